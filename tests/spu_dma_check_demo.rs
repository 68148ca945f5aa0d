//! The DMA race checker on the demo firmware's MFC kernels, which the firmware checks against
//! Rust (`src/demo/mfc/kernels.rs`): the work queue of eight SPUs (atomic counter, results put
//! from a ring of slots, one tag group each) and the signal handshake of two SPUs, in both
//! modes, as `tests/spu_mfc_kernels.rs` runs them. Correct programs: no race.

#[allow(dead_code)] // the firmware uses all of it; this test not every constant
#[path = "../src/demo/mfc/kernels.rs"]
mod mfc_kernels;

use mfc_kernels::*;
use pmprobe::spu::dma_check::DmaRaceChecker;
use pmprobe::spu::exec::RunEnd;
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::main_memory::{MainMemory, SignalRegister};
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

const MODES: [Mode; 2] = [Mode::Instruction, Mode::Pipeline];

fn load(
    source: &str,
    memory: &'static MainMemory<Vec<u8>>,
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
    for &word in mailbox {
        unit.write_inbound_mailbox(word).unwrap();
    }
    unit
}

/// Runs `units` round robin, `slice` cycles a turn, each under `checker`, until all stopped.
fn run_all(units: &mut [Box<SpuUnit>], checker: &DmaRaceChecker<'_>, slice: u64) {
    let observers: Vec<_> = units
        .iter()
        .map(|u| checker.observer(u.id()).unwrap())
        .collect();
    let mut done = vec![false; units.len()];
    for _ in 0..1_000_000 {
        for ((unit, observer), done) in units.iter_mut().zip(&observers).zip(done.iter_mut()) {
            if !*done {
                let outcome = unit.run(slice, observer, &mut Discard).unwrap();
                *done = matches!(outcome.end, RunEnd::Stopped(_));
            }
        }
        if !done.contains(&false) {
            return;
        }
    }
    panic!("no end");
}

#[test]
fn the_work_queue_of_eight_spus_is_race_free() {
    for mode in MODES {
        let memory = Box::leak(Box::new(MainMemory::new(vec![0u8; MEMORY_BYTES])));
        reset_queue(memory).unwrap();
        let mut units: Vec<Box<SpuUnit>> = (0..QUEUE_SPUS)
            .map(|spu| {
                load(
                    WORK_QUEUE_SOURCE,
                    memory,
                    mode,
                    spu as u8,
                    &queue_mailbox(spu),
                )
            })
            .collect();
        let checker = Box::new(DmaRaceChecker::new());
        run_all(&mut units, &checker, 40);
        check_queue(memory).unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        let stats = checker.stats();
        assert_eq!(stats.races, 0, "{mode:?}: {stats:?}");
        // Every item: a getllar and a putllc at least, and the put of its entry.
        assert!(stats.commands >= 3 * u64::from(QUEUE_ITEMS), "{stats:?}");
        assert!(!stats.incomplete(), "{stats:?}");
    }
}

#[test]
fn the_signal_handshake_of_two_spus_is_race_free() {
    for mode in MODES {
        let memory = Box::leak(Box::new(MainMemory::new(vec![0u8; MEMORY_BYTES])));
        let (first, second) = (6u8, 7u8);
        let mut units = vec![
            load(
                HANDSHAKE_SOURCE,
                memory,
                mode,
                first,
                &handshake_mailbox(second.into()),
            ),
            load(
                HANDSHAKE_SOURCE,
                memory,
                mode,
                second,
                &handshake_mailbox(first.into()),
            ),
        ];
        units[0].write_signal(SignalRegister::One, 0);
        let checker = Box::new(DmaRaceChecker::new());
        run_all(&mut units, &checker, 1000);
        let stats = checker.stats();
        assert_eq!(stats.races, 0, "{mode:?}: {stats:?}");
        assert_eq!(stats.commands, 2 * u64::from(HANDSHAKE_ROUNDS), "{stats:?}");
    }
}
