//! The demo firmware's three MFC kernels (`spu/programs/demo_stream.s`, `demo_workqueue.s`,
//! `demo_handshake.s`) on the host, in both modes, checked against Rust with the firmware's
//! own reference (`src/demo/mfc/kernels.rs`, included below), so they are tested without QEMU:
//! the stream's output and checksum with one buffer and two (two waiting less on DMA in
//! pipeline mode), the work queue shared by eight SPUs run round robin in short slices (every
//! item exactly once, reservations lost and retried), and the signal handshake between two
//! SPUs. And the firmware's copies of the kernels, stripped of their comments at compile time
//! (`src/demo/mfc/source_strip.rs`), assemble to the same images as the sources.

#[allow(dead_code)] // the firmware uses all of it; this test not every constant
#[path = "../src/demo/mfc/kernels.rs"]
mod mfc_kernels;

#[path = "../src/demo/mfc/source_strip.rs"]
mod source_strip;

use mfc_kernels::*;
use pmprobe::spu::exec::{RunEnd, StopReason};
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::main_memory::{MainMemory, SharedMemory, SignalRegister};
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

const MODES: [Mode; 2] = [Mode::Instruction, Mode::Pipeline];

/// The firmware's slice: cycles an SPU runs before the next one's turn.
const SLICE_CYCLES: u64 = 40;

fn memory() -> &'static MainMemory<Vec<u8>> {
    Box::leak(Box::new(MainMemory::new(vec![0u8; MEMORY_BYTES])))
}

/// SPU `id` with `source` loaded, attached to `memory`, `mailbox` in its inbound mailbox; in
/// pipeline mode with the real fetch unit, as the firmware runs it.
fn load(
    source: &str,
    memory: &'static dyn SharedMemory,
    mode: Mode,
    id: u8,
    mailbox: &[u32],
) -> Box<SpuUnit> {
    let mut image = vec![0u8; 64 * 1024];
    let program = assemble::<64>(source, &mut image).unwrap();
    let mut unit = Box::new(SpuUnit::new(id));
    unit.load_program(&image[..program.len], program.entry)
        .unwrap();
    unit.attach_main_memory(memory);
    unit.set_mode(mode);
    unit.set_fetch(FetchKind::Real).unwrap();
    for &word in mailbox {
        unit.write_inbound_mailbox(word).unwrap();
    }
    unit
}

fn stopped_normally(end: RunEnd) -> bool {
    matches!(
        end,
        RunEnd::Stopped(StopReason::Stop { signal: 0x2000, .. })
    )
}

#[test]
fn the_stream_computes_rusts_output_with_one_buffer_and_two() {
    for mode in MODES {
        let mut waits = Vec::new();
        for buffers in [1, 2] {
            let memory = memory();
            write_stream_input(memory).unwrap();
            let mut unit = load(STREAM_SOURCE, memory, mode, 0, &stream_mailbox(buffers));
            let outcome = unit.run(10_000_000, &NoProbes, &mut Discard).unwrap();
            assert!(
                stopped_normally(outcome.end),
                "{mode:?} {buffers}: {outcome:?}"
            );
            let expected = check_stream_output(memory).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(unit.read_outbound_mailbox(), Some(expected), "checksum");
            let dma = unit.arch().dma_stats();
            assert_eq!((dma.bytes_in, dma.bytes_out), (STREAM_BYTES, STREAM_BYTES));
            assert_eq!(dma.commands, 2 * u64::from(STREAM_BLOCKS));
            if mode == Mode::Pipeline {
                let stats = unit.stats();
                stats.check_identities().unwrap();
                assert_eq!(stats.channel_wait_stalls, dma.wait_cycles);
                waits.push((dma.wait_cycles, stats.cycles));
            }
        }
        if mode == Mode::Pipeline {
            let ((one, one_total), (two, two_total)) = (waits[0], waits[1]);
            // One buffer waits out every get and put (about 2 x 2332 cycles a block); two
            // hide them behind the computation, which takes longer than the transfers.
            assert!(
                two * 10 < one,
                "DMA wait: {one} with one buffer, {two} with two"
            );
            assert!(two_total < one_total);
        }
    }
}

#[test]
fn the_work_queue_hands_out_every_item_once_while_reservations_are_lost() {
    for mode in MODES {
        let memory = memory();
        reset_queue(memory).unwrap();
        let mut units: Vec<Box<SpuUnit>> = (0..QUEUE_SPUS)
            .map(|spu| {
                let mailbox = queue_mailbox(spu);
                load(WORK_QUEUE_SOURCE, memory, mode, spu as u8, &mailbox)
            })
            .collect();
        // Round robin in short slices, as the firmware's interleaved part: a slice boundary
        // between an SPU's getllar and its putllc lets another SPU's putllc come first.
        let mut done = [false; QUEUE_SPUS];
        let mut rounds = 0;
        while done.contains(&false) {
            rounds += 1;
            assert!(rounds < 1_000_000, "{mode:?}: no end");
            for (unit, done) in units.iter_mut().zip(done.iter_mut()) {
                if *done {
                    continue;
                }
                let outcome = unit.run(SLICE_CYCLES, &NoProbes, &mut Discard).unwrap();
                match outcome.end {
                    RunEnd::CycleLimit => {}
                    end => {
                        assert!(stopped_normally(end), "{mode:?}: {end:?}");
                        *done = true;
                    }
                }
            }
        }
        let tally = check_queue(memory).unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        let mut lost = 0;
        for (spu, unit) in units.iter().enumerate() {
            let failures = unit.arch().dma_stats().putllc_failures;
            assert_eq!(
                u64::from(tally.failures[spu]),
                failures,
                "{mode:?} SPU{spu}"
            );
            lost += failures;
        }
        // The counter's line changes hands between every getllar and putllc that straddle
        // a slice boundary: in pipeline mode (300 cycles from getllar to putllc and back)
        // nearly every take, in instruction mode some.
        assert!(lost > 0, "{mode:?}: no reservation was lost");
        assert!(
            tally.taken.iter().filter(|&&n| n > 0).count() > 1,
            "{mode:?}"
        );
    }
}

#[test]
fn the_handshake_counts_up_through_both_spus() {
    for mode in MODES {
        let memory = memory();
        let (first, second) = (6, 7);
        let mut a = load(
            HANDSHAKE_SOURCE,
            memory,
            mode,
            first,
            &handshake_mailbox(second.into()),
        );
        let mut b = load(
            HANDSHAKE_SOURCE,
            memory,
            mode,
            second,
            &handshake_mailbox(first.into()),
        );
        // The host starts the game, as a PPE would with spe_signal_write.
        a.write_signal(SignalRegister::One, 0);
        let mut ends = [None, None];
        let mut turns = 0;
        while ends.contains(&None) {
            turns += 1;
            assert!(turns < 100_000, "{mode:?}: no end");
            for (unit, end) in [&mut a, &mut b].into_iter().zip(ends.iter_mut()) {
                if end.is_some() {
                    continue;
                }
                let outcome = unit.run(1000, &NoProbes, &mut Discard).unwrap();
                match outcome.end {
                    // Waiting for the other SPU's sndsig: its turn.
                    RunEnd::CycleLimit | RunEnd::Blocked { channel: 0 } => {}
                    other => *end = Some(other),
                }
            }
        }
        assert!(ends.iter().all(|end| end.is_some_and(stopped_normally)));
        let [first_last, second_last, left] = handshake_expected();
        assert_eq!(a.read_outbound_mailbox(), Some(first_last), "{mode:?}");
        assert_eq!(b.read_outbound_mailbox(), Some(second_last), "{mode:?}");
        let mut register = None;
        memory.with_view(&mut |view| register = view.take_signal(first, SignalRegister::One));
        assert_eq!(register, Some(left), "{mode:?}");
        for unit in [&a, &b] {
            assert_eq!(unit.arch().register(7).words()[0], HANDSHAKE_ROUNDS);
            assert_eq!(
                unit.arch().dma_stats().commands,
                u64::from(HANDSHAKE_ROUNDS)
            );
        }
    }
}

#[test]
fn the_kernels_stripped_of_their_comments_assemble_to_the_same_images() {
    for source in [STREAM_SOURCE, WORK_QUEUE_SOURCE, HANDSHAKE_SOURCE] {
        let len = source_strip::stripped_len(source);
        let bytes = source_strip::strip::<8192>(source);
        let stripped = source_strip::text(&bytes[..len]);
        assert!(
            !stripped.contains('#') && 3 * len < source.len(),
            "{stripped}"
        );
        let mut images = Vec::new();
        for text in [source, stripped] {
            let mut image = vec![0u8; 64 * 1024];
            let program = assemble::<64>(text, &mut image).unwrap();
            image.truncate(program.len);
            images.push((image, program.entry));
        }
        assert_eq!(images[0], images[1], "{stripped}");
    }
}
