//! The SPU event facility, the decrementer and interrupts, as the CBEA and the SPU ISA define
//! them: `SPU_RdEventStat` returns the pending events the mask enables and waits while none
//! is; the decrementer counts down one per timebase tick (40 cycles by default) and raises
//! `Tm` (0x20) when it passes from 0 to -1; with interrupts enabled a pending enabled event
//! enters the handler at LS address 0 with SRR0 holding the next instruction's address;
//! `bisled` branches only while an enabled event is pending; `SPU_RdMachStat` bit 0 is the
//! interrupt enable; SRR0 keeps a word address in the local store.

mod spu_mfc_support;

use pmprobe::spu::exec::RunEnd;
use pmprobe::spu::mfc::DEFAULT_CYCLES_PER_TICK;
use pmprobe::spu::unit::Mode;
use spu_mfc_support::*;

#[test]
fn the_decrementer_counts_one_per_timebase_tick() {
    // Instruction mode runs one instruction per cycle: `wrch SPU_WrDec` is instruction 1
    // (cycle 1), `rdch SPU_RdDec` instruction 402 (cycle 402). Ticks begin every 40 cycles:
    // 402 / 40 - 1 / 40 = 10 ticks later the value is 100 - 10.
    let nops = " nop\n".repeat(400);
    let memory = memory(4096);
    let (unit, outcome, _) = run_program(
        &format!("_start: il $3, 100\n wrch $SPU_WrDec, $3\n{nops} rdch $4, $SPU_RdDec\n stop"),
        memory,
        Mode::Instruction,
    );
    assert!(stopped(&outcome));
    assert_eq!(DEFAULT_CYCLES_PER_TICK, 40);
    let (write_cycle, read_cycle) = (1, 402);
    assert_eq!(word(&unit, 4), 100 - (read_cycle / 40 - write_cycle / 40));
}

#[test]
fn an_underflow_raises_tm_which_a_waiting_read_gets() {
    for mode in MODES {
        let memory = memory(4096);
        let (unit, outcome, _) = run_program(
            "_start:
                il $3, 0x20
                wrch $SPU_WrEventMask, $3
                il $3, 3
                wrch $SPU_WrDec, $3
                rdch $4, $SPU_RdEventStat
                rdch $5, $SPU_RdDec
                stop",
            memory,
            mode,
        );
        assert!(stopped(&outcome), "{mode:?}: {outcome:?}");
        assert_eq!(word(&unit, 4), 0x20, "{mode:?}");
        // Read after the underflow: -1 or a little lower.
        assert!(
            word(&unit, 5) >= u32::MAX - 2,
            "{mode:?}: {:#x}",
            word(&unit, 5)
        );
        // The read waited for the 4th tick after the write (value 3 -> 0 -> -1).
        assert!(unit.arch().dma_stats().wait_cycles > 2 * 40, "{mode:?}");
    }
}

#[test]
fn events_are_pending_until_acknowledged_and_masked_ones_do_not_count() {
    // The inbound mailbox event (Mb, 0x10) is pending once the host wrote the mailbox; with
    // it masked off the event status count stays 0; a mask write that enables it makes the
    // count 1; a read returns it and leaves it pending until acknowledged.
    let memory = memory(4096);
    let mut unit = load(
        "_start:
            rchcnt $4, $SPU_RdEventStat
            il $3, 0x10
            wrch $SPU_WrEventMask, $3
            rchcnt $5, $SPU_RdEventStat
            rdch $6, $SPU_RdEventStat
            il $3, 0x10
            wrch $SPU_WrEventAck, $3
            rdch $7, $SPU_RdEventMask
            stop",
        memory,
        Mode::Instruction,
        0,
    );
    unit.arch_mut().channels_mut().inbound.push(5).unwrap();
    assert!(stopped(&run(&mut unit, 1000, &Recorder::default())));
    assert_eq!(
        (
            word(&unit, 4),
            word(&unit, 5),
            word(&unit, 6),
            word(&unit, 7)
        ),
        (0, 1, 0x10, 0x10)
    );
    assert_eq!(unit.arch().mfc().events().pending(), 0);
}

/// A handler at LS address 0 that counts decrementer interrupts in `$11` (re-arming the
/// decrementer) and a main program that enables interrupts and spins until five came.
const INTERRUPTS: &str = "
    .global _start
handler:
    rdch $10, $SPU_RdEventStat
    wrch $SPU_WrEventAck, $10
    ai $11, $11, 1
    rdch $15, $SPU_RdSRR0
    il $3, 50
    wrch $SPU_WrDec, $3
    irete
_start:
    il $11, 0
    il $3, 0x20
    wrch $SPU_WrEventMask, $3
    il $3, 50
    wrch $SPU_WrDec, $3
    rdch $16, $SPU_RdMachStat
    ila $3, loop
    bie $3
loop:
    ai $12, $12, 1
    cgti $13, $11, 4
    brz $13, loop
    rdch $17, $SPU_RdMachStat
    stop
";

#[test]
fn an_enabled_pending_event_enters_the_handler_at_zero_with_srr0_set() {
    for mode in MODES {
        let memory = memory(4096);
        let (unit, outcome, _) = run_program(INTERRUPTS, memory, mode);
        assert!(stopped(&outcome), "{mode:?}: {outcome:?}");
        assert_eq!(word(&unit, 11), 5, "{mode:?}: five interrupts");
        // SRR0 held an address in the loop the interrupt left (`loop` .. the `brz`).
        let program = pmprobe::spu::isa::asm::assemble::<64>(
            &format!("{MACROS}\n{INTERRUPTS}"),
            &mut vec![0u8; 4096],
        )
        .unwrap();
        let start = program.symbol("loop").unwrap();
        let srr0 = word(&unit, 15);
        assert!((start..=start + 8).contains(&srr0), "{mode:?}: {srr0:#x}");
        assert!(
            word(&unit, 12) > 5,
            "{mode:?}: the loop ran between interrupts"
        );
        // SPU_RdMachStat: interrupts off before `bie`, on after `irete`.
        assert_eq!((word(&unit, 16), word(&unit, 17)), (0, 1), "{mode:?}");
    }
}

#[test]
fn bisled_branches_and_links_only_while_an_enabled_event_is_pending() {
    for pending in [false, true] {
        let memory = memory(4096);
        let mut unit = load(
            "_start:
                il $3, 0x10
                wrch $SPU_WrEventMask, $3
                ila $3, taken
                bisled $0, $3
                il $4, 1
                stop
            taken:
                il $4, 2
                stop",
            memory,
            Mode::Pipeline,
            0,
        );
        if pending {
            unit.arch_mut().channels_mut().inbound.push(1).unwrap();
        }
        assert!(stopped(&run(&mut unit, 10_000, &Recorder::default())));
        assert_eq!(word(&unit, 4), if pending { 2 } else { 1 });
        // The link is the address after `bisled` either way: il, wrch, ila, bisled -> 16.
        assert_eq!(word(&unit, 0), 16);
    }
}

#[test]
fn srr0_keeps_a_word_address_in_the_local_store() {
    let memory = memory(4096);
    let (unit, outcome, _) = run_program(
        "_start: il $3, -1\n wrch $SPU_WrSRR0, $3\n rdch $4, $SPU_RdSRR0\n stop",
        memory,
        Mode::Instruction,
    );
    assert!(stopped(&outcome));
    assert_eq!(word(&unit, 4), 0x3fffc);
}

#[test]
fn a_wait_only_the_host_can_end_returns_to_the_host() {
    // Nothing inside the SPU will ever write its signal register or its inbound mailbox.
    for (channel, source) in [
        (3, "_start: rdch $3, $SPU_RdSigNotify1\n stop"),
        (29, "_start: rdch $3, $SPU_RdInMbox\n stop"),
        (
            0,
            "_start: il $3, 0x10\n wrch $SPU_WrEventMask, $3\n rdch $4, $SPU_RdEventStat\n stop",
        ),
    ] {
        for mode in MODES {
            let (_, outcome, _) = run_program(source, memory(4096), mode);
            assert_eq!(
                outcome.end,
                RunEnd::Blocked { channel },
                "{mode:?} {source}"
            );
        }
    }
}
