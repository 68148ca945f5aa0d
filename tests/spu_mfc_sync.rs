//! Synchronisation through the MFC, as the CBEA defines it: tag-status update conditions,
//! the lock-line atomics and their reservation, signal notification between SPUs, and
//! multisource synchronisation. Expected values are the architecture's (`spu_mfcio.h`'s
//! opcodes and status bits: getllar 0xD0, putllc 0xB4, putlluc 0xB0, sndsig 0xA0;
//! MFC_RdAtomicStat G = 4, U = 2, S = 1; event Lr = 0x400, Ms = 0x1000).

mod spu_mfc_support;

use pmprobe::spu::exec::RunEnd;
use pmprobe::spu::main_memory::{SharedMemory, SignalMode, SignalRegister};
use pmprobe::spu::unit::Mode;
use spu_mfc_support::*;

/// A list of one element with stall-and-notify and one without, both 16 bytes from 0x2000:
/// tag group `tag` stays incomplete while the list is stalled.
fn stalled_list(tag: u32) -> String {
    format!("dma 0x44, 0x800, list, 16, {tag}\n rdch $2, $MFC_RdListStallStat\n")
}

const LIST: &str = ".balign 16\nlist: .word 0x80000010, 0x2000, 0x10, 0x2000\n";

/// Writes the tag mask and an update request, reads the status into `$4`.
fn query(mask: u32, condition: u32) -> String {
    format!(
        "ila $2, {mask}\n wrch $MFC_WrTagMask, $2\n il $2, {condition}\n \
         wrch $MFC_WrTagUpdate, $2\n rdch $4, $MFC_RdTagStat\n"
    )
}

#[test]
fn tag_update_conditions_immediate_any_and_all() {
    // Group 1 holds a stalled list; group 2 has nothing left.
    let memory = memory(1 << 16);
    let run = |body: String| {
        run_program(
            &format!("_start:\n{}{body}stop\n{LIST}", stalled_list(1)),
            memory,
            Mode::Instruction,
        )
    };
    // Immediate (0): the masked groups complete now.
    let (unit, outcome, _) = run(query(0b110, 0));
    assert!(stopped(&outcome));
    assert_eq!(word(&unit, 4), 0b100);
    // Any (1): as soon as one masked group is complete.
    let (unit, outcome, _) = run(query(0b110, 1));
    assert!(stopped(&outcome));
    assert_eq!(word(&unit, 4), 0b100);
    // All (2): waits for group 1, which only the program's acknowledgement would release:
    // the SPU waits on MFC_RdTagStat (channel 24) for good.
    let (_, outcome, _) = run(query(0b110, 2));
    assert_eq!(outcome.end, RunEnd::Blocked { channel: 24 });
    // Any with an empty mask never completes (a Cell waits until a mask is written).
    let (_, outcome, _) = run(query(0, 1));
    assert_eq!(outcome.end, RunEnd::Blocked { channel: 24 });
    // All with an empty mask completes at once, with no group.
    let (unit, outcome, _) = run(query(0, 2));
    assert!(stopped(&outcome));
    assert_eq!(word(&unit, 4), 0);
}

#[test]
fn getllar_putllc_succeed_while_the_reservation_holds() {
    for mode in MODES {
        let memory = memory(1 << 16);
        host_write(memory, 0x4000, &pattern(3, 128));
        let (unit, outcome, _) = run_program(
            "_start:
                dma 0xD0, 0x1000, 0x4000, 128, 0
                rdch $4, $MFC_RdAtomicStat
                il $3, 42
                stqd $3, 0x1000($0)
                dma 0xB4, 0x1000, 0x4000, 128, 0
                rdch $5, $MFC_RdAtomicStat
                dma 0xB0, 0x1000, 0x4080, 128, 0
                rdch $6, $MFC_RdAtomicStat
                stop",
            memory,
            mode,
        );
        assert!(stopped(&outcome), "{mode:?} {outcome:?}");
        assert_eq!(
            (word(&unit, 4), word(&unit, 5), word(&unit, 6)),
            (4, 0, 2),
            "{mode:?}: G, putllc success, U"
        );
        let mut line = pattern(3, 128);
        line[..16].copy_from_slice(&[0, 0, 0, 42].repeat(4));
        assert_eq!(host_read(memory, 0x4000, 128), line, "{mode:?}");
        assert_eq!(host_read(memory, 0x4080, 128), line, "{mode:?}");
    }
}

#[test]
fn a_write_by_another_party_loses_the_reservation_and_raises_lr() {
    for mode in MODES {
        let memory = memory(1 << 16);
        let mut unit = load(
            "_start:
                il $3, 0x400
                wrch $SPU_WrEventMask, $3
                dma 0xD0, 0x1000, 0x4000, 128, 0
                rdch $4, $MFC_RdAtomicStat
                stop 1
                il $3, 7
                stqd $3, 0x1000($0)
                dma 0xB4, 0x1000, 0x4000, 128, 0
                rdch $5, $MFC_RdAtomicStat
                rdch $6, $SPU_RdEventStat
                stop 2",
            memory,
            mode,
            0,
        );
        let recorder = Recorder::default();
        assert!(stopped(&run(&mut unit, 100_000, &recorder)));
        // The host writes one byte of the reserved line (the PPE's store).
        host_write(memory, 0x4010, &[0xee]);
        unit.arch_mut().resume();
        assert!(stopped(&run(&mut unit, 100_000, &recorder)), "{mode:?}");
        assert_eq!(word(&unit, 5), 1, "{mode:?}: putllc failed (S)");
        assert_eq!(word(&unit, 6), 0x400, "{mode:?}: Lr");
        let line = host_read(memory, 0x4000, 32);
        assert_eq!(line[0x10], 0xee);
        assert_eq!(&line[..16], &[0; 16], "{mode:?}: nothing stored");
    }
}

#[test]
fn atomics_ignore_the_low_seven_bits_of_lsa_and_ea() {
    // A Cell loads the whole 128-byte lines holding both addresses (no alignment check).
    let memory = memory(1 << 16);
    host_write(memory, 0x4000, &pattern(9, 128));
    let (unit, outcome, events) = run_program(
        "_start: dma 0xD0, 0x107f, 0x407f, 128, 0\n rdch $4, $MFC_RdAtomicStat\n stop",
        memory,
        Mode::Instruction,
    );
    assert!(stopped(&outcome));
    assert_eq!(ls_bytes(&unit, 0x1000, 128), pattern(9, 128));
    assert_eq!((events[0].lsa, events[0].ea), (0x1000, 0x4000));
}

#[test]
fn sndsig_writes_another_spus_signal_register_in_or_and_overwrite_mode() {
    // SPU 1's signal-notification register 1 is at the problem-state offset 0x1400C of its
    // window (0xF0000000 + 1 * 0x100000 + 0x40000): EA 0xF015400C. `sndsig` moves the word at
    // an LSA with the same low 4 bits (0x100C).
    for (mode_of_register, expected) in [(SignalMode::Overwrite, 0x4), (SignalMode::Or, 0x5)] {
        let memory = memory(1 << 16);
        memory.set_signal_mode(1, SignalRegister::One, mode_of_register);
        let mut sender = load(
            "_start:
                il $3, 1
                stqd $3, 0x1000($0)
                dma 0xA0, 0x100c, 0xf015400c, 4, 1
                il $3, 4
                stqd $3, 0x1000($0)
                dma 0xA0, 0x100c, 0xf015400c, 4, 1
                wait 2
                stop",
            memory,
            Mode::Pipeline,
            0,
        );
        let mut receiver = load(
            "_start:
                rchcnt $4, $SPU_RdSigNotify1
                rdch $5, $SPU_RdSigNotify1
                rchcnt $6, $SPU_RdSigNotify1
                stop",
            memory,
            Mode::Instruction,
            1,
        );
        let recorder = Recorder::default();
        // Nothing was written yet: the receiver waits on channel 3 for the other SPU.
        assert_eq!(
            run(&mut receiver, 1000, &recorder).end,
            RunEnd::Blocked { channel: 3 }
        );
        assert!(stopped(&run(&mut sender, 100_000, &recorder)));
        assert!(stopped(&run(&mut receiver, 1000, &recorder)));
        assert_eq!(
            (word(&receiver, 5), word(&receiver, 6)),
            (expected, 0),
            "{mode_of_register:?}: the value, then the count 0 after the read"
        );
    }
}

#[test]
fn sndsig_must_be_four_bytes_to_a_signal_register() {
    let memory = memory(1 << 16);
    for (size, ea) in [(8, 0xf015_400c_u32), (4, 0xf015_4000), (4, 0x1000)] {
        let (unit, outcome, _) = run_program(
            &format!("_start: dma 0xA0, 0x100c, {ea:#x}, {size}, 1\n stop"),
            memory,
            Mode::Instruction,
        );
        assert!(
            matches!(outcome.end, RunEnd::Stopped(_)) && unit.arch().dma_fault().is_some(),
            "{size} {ea:#x}: {outcome:?}"
        );
    }
}

#[test]
fn multisource_sync_completes_when_the_transfers_before_it_did() {
    for mode in MODES {
        let memory = memory(1 << 16);
        let (unit, outcome, _) = run_program(
            "_start:
                il $3, 0x1000
                wrch $SPU_WrEventMask, $3
                dma 0x40, 0x800, 0x1000, 4096, 0
                il $3, 0
                wrch $MFC_WrMSSyncReq, $3
                rdch $4, $SPU_RdEventStat
                rchcnt $5, $MFC_WrMSSyncReq
                stop",
            memory,
            mode,
        );
        assert!(stopped(&outcome), "{mode:?}");
        assert_eq!((word(&unit, 4), word(&unit, 5)), (0x1000, 1), "{mode:?}");
    }
}
