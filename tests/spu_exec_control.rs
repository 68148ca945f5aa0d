//! Branches, loads/stores, stop, hints, channels, SPRs, profiling checkpoints and faults.

mod spu_exec_support;

use pmprobe::spu::exec::{
    AccessKind, ChannelOperation, Fault, FaultKind, LS_SIZE, LsAccess, Quadword, RunEnd, SpuState,
    Status, StopReason,
};
use pmprobe::spu::isa::Mnemonic as M;
use spu_exec_support::*;

const FEATURE_E: u32 = 0x10 << 14;
const FEATURE_D: u32 = 0x20 << 14;

#[test]
fn relative_and_absolute_branches() {
    let mut h = Harness::new();
    let executed = h.exec_at(0x100, ri16(M::Br, 0, 4));
    assert_eq!((executed.next_pc, executed.branch_taken), (0x110, true));
    assert_eq!(h.spu.pc(), 0x110);
    // Relative targets wrap around the local store.
    let executed = h.exec_at(0, ri16(M::Br, 0, -1));
    assert_eq!(executed.next_pc, LS_SIZE - 4);
    let executed = h.exec_at(0x40, ri16(M::Bra, 0, 0x100));
    assert_eq!(executed.next_pc, 0x400);
    let executed = h.exec_at(0x40, ri16(M::Bra, 0, -4));
    assert_eq!(executed.next_pc, LS_SIZE - 16);
}

#[test]
fn branch_and_set_link() {
    let mut h = Harness::new();
    h.set(0, [9, 9, 9, 9]);
    let executed = h.exec_at(0x200, ri16(M::Brsl, 0, -0x10));
    assert_eq!(executed.next_pc, 0x1c0);
    assert_eq!(
        h.get(0),
        [0x204, 0, 0, 0],
        "link in the preferred slot, rest zero"
    );
    h.exec_at(0x300, ri16(M::Brasl, 5, 0x20));
    assert_eq!((h.spu.pc(), h.get(5)), (0x80, [0x304, 0, 0, 0]));
    // Link at the top of LS wraps to 0.
    h.exec_at(LS_SIZE - 4, ri16(M::Brsl, 6, 1));
    assert_eq!(h.get(6), [0, 0, 0, 0]);
}

#[test]
fn conditional_branches_test_word_or_halfword_preferred_slot() {
    let mut h = Harness::new();
    h.set(3, [0x0001_0000, 1, 1, 1]);
    // Word 0 is non-zero, but its halfword (bytes 2-3) is zero.
    assert!(!h.exec_at(0, ri16(M::Brz, 3, 8)).branch_taken);
    assert!(h.exec_at(0, ri16(M::Brnz, 3, 8)).branch_taken);
    assert!(h.exec_at(0, ri16(M::Brhz, 3, 8)).branch_taken);
    assert!(!h.exec_at(0, ri16(M::Brhnz, 3, 8)).branch_taken);
    let not_taken = h.exec_at(0x20, ri16(M::Brz, 3, 8));
    assert_eq!((not_taken.next_pc, h.spu.pc()), (0x24, 0x24));
    h.set(3, [0, 0xffff_ffff, 0, 0]);
    let taken = h.exec_at(0x20, ri16(M::Brz, 3, 8));
    assert_eq!(taken.next_pc, 0x40);
}

#[test]
fn indirect_branches() {
    let mut h = Harness::new();
    h.set(4, [0x1237, 0, 0, 0]);
    assert_eq!(
        h.exec_at(0, rr(M::Bi, 0, 4, 0)).next_pc,
        0x1234,
        "low 2 bits ignored"
    );
    h.set(4, [LS_SIZE + 8, 0, 0, 0]);
    assert_eq!(h.exec_at(0, rr(M::Bi, 0, 4, 0)).next_pc, 8, "target wraps");

    // bisl with rt == ra: the target is read before the link is written.
    h.set(4, [0x800, 0, 0, 0]);
    let executed = h.exec_at(0x10, rr(M::Bisl, 4, 4, 0));
    assert_eq!((executed.next_pc, h.get(4)), (0x800, [0x14, 0, 0, 0]));

    h.set(4, [0x500, 0, 0, 0]);
    h.set(3, [0, 7, 7, 7]);
    assert!(h.exec_at(0, rr(M::Biz, 3, 4, 0)).branch_taken);
    assert!(!h.exec_at(0, rr(M::Binz, 3, 4, 0)).branch_taken);
    h.set(3, [0xffff_0000, 0, 0, 0]);
    assert!(h.exec_at(0, rr(M::Bihz, 3, 4, 0)).branch_taken);
    assert!(!h.exec_at(0, rr(M::Bihnz, 3, 4, 0)).branch_taken);
    assert!(h.exec_at(0, rr(M::Binz, 3, 4, 0)).branch_taken);
}

#[test]
fn interrupt_enable_feature_bits() {
    let mut h = Harness::new();
    assert!(!h.spu.interrupts_enabled());
    h.set(4, [0x100, 0, 0, 0]);
    h.exec_at(0, rr(M::Bi, 0, 4, 0) | FEATURE_E);
    assert!(h.spu.interrupts_enabled(), "bie enables");
    h.exec_at(0, rr(M::Bi, 0, 4, 0) | FEATURE_D);
    assert!(!h.spu.interrupts_enabled(), "bid disables");
    // A conditional form that is not taken leaves the state alone.
    h.set(3, [1, 0, 0, 0]);
    h.exec_at(0, rr(M::Biz, 3, 4, 0) | FEATURE_E);
    assert!(!h.spu.interrupts_enabled());
    // E and D together are undefined: the model faults instead of guessing.
    let executed = h.exec_at(0x40, rr(M::Bi, 0, 4, 0) | FEATURE_E | FEATURE_D);
    assert_eq!(
        executed.status,
        Status::Stopped(StopReason::Fault(Fault {
            pc: 0x40,
            word: rr(M::Bi, 0, 4, 0) | FEATURE_E | FEATURE_D,
            kind: FaultKind::IllegalInstruction,
        }))
    );
}

#[test]
fn iret_returns_to_srr0_and_bisled_links_without_events() {
    let mut h = Harness::new();
    h.set(3, [0x2468, 0, 0, 0]);
    h.exec(rr(M::Wrch, 3, 14, 0)); // SPU_WrSRR0
    h.exec(rr(M::Rdch, 5, 15, 0)); // SPU_RdSRR0
    assert_eq!(h.get(5), [0x2468, 0, 0, 0]);
    let executed = h.exec_at(0x10, rr(M::Iret, 0, 0, 0) | FEATURE_E);
    assert_eq!(executed.next_pc, 0x2468);
    assert!(h.spu.interrupts_enabled());
    h.set(4, [0x900, 0, 0, 0]);
    let executed = h.exec_at(0x30, rr(M::Bisled, 6, 4, 0));
    assert!(!executed.branch_taken, "no external event is pending");
    assert_eq!(h.get(6), [0x34, 0, 0, 0]);
}

#[test]
fn quadword_loads_and_stores() {
    let mut h = Harness::new();
    let value = [0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444];
    h.set(3, value);
    h.set(1, [0x1000, 0, 0, 0]);
    let executed = h.exec(ri10(M::Stqd, 3, 1, 2)); // stqd $3,32($1)
    assert_eq!(
        executed.access,
        Some(LsAccess {
            address: 0x1020,
            size: 16,
            kind: AccessKind::Write
        })
    );
    assert_eq!(h.spu.local_store().load_quadword(0x1020).words(), value);
    // Low 4 address bits are ignored.
    h.set(5, [0x1027, 0, 0, 0]);
    let executed = h.exec(ri10(M::Lqd, 6, 5, 0));
    assert_eq!(h.get(6), value);
    assert_eq!(
        executed.access.map(|a| (a.address, a.kind)),
        Some((0x1020, AccessKind::Read))
    );
    // Negative offsets and wrap-around: 0x10 - 0x20 wraps to LS_SIZE - 0x10.
    h.set(5, [0x10, 0, 0, 0]);
    h.exec(ri10(M::Stqd, 3, 5, -2));
    assert_eq!(
        h.spu.local_store().load_quadword(LS_SIZE - 0x10).words(),
        value
    );
    h.spu
        .local_store_mut()
        .store_quadword(0x10, Quadword::from_words([5, 6, 7, 8]));
    h.set(5, [LS_SIZE - 0x10, 0, 0, 0]);
    h.exec(ri10(M::Lqd, 7, 5, 2)); // LS_SIZE - 0x10 + 0x20 wraps to 0x10
    assert_eq!(h.get(7), [5, 6, 7, 8]);

    // X-form, A-form and R-form.
    h.set(5, [0x2000, 0, 0, 0]);
    h.set(8, [0x0030, 0, 0, 0]);
    h.exec(rr(M::Stqx, 3, 5, 8));
    assert_eq!(h.spu.local_store().load_quadword(0x2030).words(), value);
    h.exec(rr(M::Lqx, 9, 8, 5));
    assert_eq!(h.get(9), value);
    h.exec(ri16(M::Stqa, 3, 0x1000)); // address 0x4000
    assert_eq!(h.spu.local_store().load_quadword(0x4000).words(), value);
    h.exec(ri16(M::Lqa, 10, 0x1000));
    assert_eq!(h.get(10), value);
    h.exec_at(0x100, ri16(M::Stqr, 3, 0x40)); // 0x100 + 0x100
    assert_eq!(h.spu.local_store().load_quadword(0x200).words(), value);
    h.exec_at(0x208, ri16(M::Lqr, 11, -2)); // 0x208 - 8 = 0x200
    assert_eq!(h.get(11), value);
}

#[test]
fn stop_carries_the_signal_and_the_spu_stays_stopped_until_resumed() {
    let mut h = Harness::new();
    let executed = h.exec_at(0x80, rr(M::Stop, 0, 0, 0) | 0x1234);
    assert_eq!(
        executed.status,
        Status::Stopped(StopReason::Stop {
            pc: 0x80,
            signal: 0x1234
        })
    );
    assert!(executed.retired);
    assert_eq!(h.spu.pc(), 0x84, "the PC points after the stop");
    let again = h.exec(ri16(M::Il, 3, 5));
    assert!(!again.retired);
    assert_eq!(h.get(3), [0; 4], "a stopped SPU executes nothing");
    h.spu.resume();
    assert!(h.exec(ri16(M::Il, 3, 5)).retired);
    assert_eq!(h.get(3), [5; 4]);
    // stopd: signal is the low 14 bits of the word.
    let word = rr(M::Stopd, 3, 4, 5);
    let executed = h.exec_at(0, word);
    assert_eq!(
        executed.status,
        Status::Stopped(StopReason::Stop {
            pc: 0,
            signal: (word & 0x3fff) as u16
        })
    );
}

#[test]
fn hints_nops_and_syncs_have_no_architectural_effect() {
    let mut h = Harness::new();
    h.set(3, [1, 2, 3, 4]);
    let before = *h.spu.registers();
    for (word, is_nop) in [
        (rr(M::Nop, 0, 0, 0), true),
        (rr(M::Lnop, 0, 0, 0), true),
        (ri16(M::Hbrr, 0, 16) | 4, true), // ROL = 4
        (ri16(M::Hbra, 0, 16), true),
        (rr(M::Hbr, 0, 3, 0), true),
        (rr(M::Sync, 0, 0, 0), false),
        (rr(M::Dsync, 0, 0, 0), false),
        (rr(M::Mtspr, 3, 5, 0), false),
    ] {
        let executed = h.exec_at(0x40, word);
        assert_eq!(
            (
                executed.next_pc,
                executed.branch_taken,
                executed.is_nop,
                executed.access
            ),
            (0x44, false, is_nop, None),
            "word {word:#010x}"
        );
    }
    assert_eq!(*h.spu.registers(), before);
    h.exec(rr(M::Mfspr, 3, 5, 0));
    assert_eq!(h.get(3), [0; 4], "SPRs read as zero");
}

#[test]
fn mailboxes_block_and_count() {
    let mut h = Harness::new();
    // rdch $3,SPU_RdInMbox on an empty mailbox blocks without retiring.
    let executed = h.exec_at(0x10, rr(M::Rdch, 3, 29, 0));
    assert_eq!(executed.status, Status::Blocked { channel: 29 });
    assert!(!executed.retired);
    assert_eq!(h.spu.pc(), 0x10);
    h.spu.channels_mut().inbound.push(42).unwrap();
    h.spu.channels_mut().inbound.push(43).unwrap();
    h.exec(rr(M::Rchcnt, 4, 29, 0));
    assert_eq!(h.get(4), [2, 0, 0, 0]);
    let executed = h.exec_at(0x10, rr(M::Rdch, 3, 29, 0));
    assert!(executed.retired);
    assert_eq!(executed.status, Status::Running);
    assert_eq!(h.get(3), [42, 0, 0, 0]);

    // wrch SPU_WrOutMbox: one entry; the second write blocks until the host pops.
    h.exec(rr(M::Rchcnt, 4, 28, 0));
    assert_eq!(h.get(4), [1, 0, 0, 0]);
    h.set(5, [0xabcd, 1, 2, 3]);
    assert!(h.exec(rr(M::Wrch, 5, 28, 0)).retired);
    let executed = h.exec(rr(M::Wrch, 5, 28, 0));
    assert_eq!(executed.status, Status::Blocked { channel: 28 });
    assert_eq!(h.spu.channels_mut().outbound.pop(), Some(0xabcd));
    assert!(h.exec(rr(M::Wrch, 5, 28, 0)).retired);
}

#[test]
fn unsupported_channels_fault_with_pc_and_word() {
    // Channel 5 is reserved in the CBEA's map; 28 and 29 exist but only for the other
    // direction; 100 is past the channels the CBE has.
    for (word, access) in [
        (rr(M::Rdch, 3, 5, 0), ChannelOperation::Read),
        (rr(M::Rdch, 3, 28, 0), ChannelOperation::Read),
        (rr(M::Wrch, 3, 29, 0), ChannelOperation::Write),
        (rr(M::Rchcnt, 3, 100, 0), ChannelOperation::Count),
    ] {
        let mut h = Harness::new();
        let executed = h.exec_at(0x60, word);
        let channel = ((word >> 7) & 0x7f) as u8;
        assert_eq!(
            executed.status,
            Status::Stopped(StopReason::Fault(Fault {
                pc: 0x60,
                word,
                kind: FaultKind::UnsupportedChannel { channel, access },
            }))
        );
        assert!(!executed.retired);
        assert_eq!(h.spu.pc(), 0x60);
    }
}

#[test]
fn illegal_word_faults_in_step() {
    let mut spu = Box::new(SpuState::new(3));
    spu.load_program_words(&[ri16(M::Il, 3, 1), 0x0080_0000], 0)
        .unwrap();
    assert!(spu.step().retired);
    let executed = spu.step();
    assert_eq!(
        executed.status,
        Status::Stopped(StopReason::Fault(Fault {
            pc: 4,
            word: 0x0080_0000,
            kind: FaultKind::IllegalInstruction,
        }))
    );
    assert_eq!(spu.instructions_retired(), 1);
}

#[test]
fn runaway_program_is_bounded_by_the_instruction_budget() {
    let mut spu = Box::new(SpuState::new(0));
    spu.load_program_words(&[ri16(M::Br, 0, 0)], 0).unwrap(); // br . (forever)
    let outcome = spu.run(1000);
    assert_eq!(outcome.end, RunEnd::CycleLimit);
    assert_eq!(outcome.instructions, 1000);
    // An empty local store is all zeros = `stop 0`: running off the end stops.
    let mut spu = Box::new(SpuState::new(0));
    let outcome = spu.run(10);
    assert_eq!(
        outcome.end,
        RunEnd::Stopped(StopReason::Stop { pc: 0, signal: 0 })
    );
}

#[test]
fn a_loaded_program_starts_as_the_abi_says() {
    // Power-on: every register zero (so a static SPU is all-zero bits).
    let spu = Box::new(SpuState::new(7));
    assert!(spu.registers().iter().all(|r| r.words() == [0; 4]));
    assert_eq!(spu.pc(), 0);
    assert_eq!(spu.id(), 7);
    // A loaded program gets the ABI's stack pointer and its entry point.
    let mut spu = spu;
    spu.load_program_words(&[0, 0, 0], 8).unwrap();
    assert_eq!(spu.register(1).words(), [LS_SIZE - 16, 0, 0, 0]);
    assert_eq!(spu.register(0).words(), [0; 4]);
    assert_eq!(spu.pc(), 8, "entry point (e.g. _start)");
    assert_eq!(spu.id(), 7);
}

fn prof_cp(n: u32) -> u32 {
    rr(M::And, n, n, n)
}

#[test]
fn profiling_checkpoints_clear_start_stop_and_print() {
    let program = [
        prof_cp(0),
        prof_cp(30),
        ri16(M::Il, 3, 1),
        rr(M::Nop, 0, 0, 0),
        ri16(M::Il, 4, 2),
        prof_cp(5), // prints, counters keep running
        rr(M::Lnop, 0, 0, 0),
        prof_cp(31),
        ri16(M::Il, 5, 3), // not counted: stopped
        prof_cp(7),
        rr(M::Stop, 0, 0, 0),
    ];
    let mut spu = Box::new(SpuState::new(2));
    spu.load_program_words(&program, 0).unwrap();
    let mut out = String::new();
    let outcome = spu.run_with_output(100, &mut out).unwrap();
    // Rule: a checkpoint counts itself if the counters ran before it; instruction mode
    // counts one cycle per instruction. From cp30: il, nop, il, cp5 = 4 (2 non-NOP);
    // then lnop, cp31 = 6 (2 non-NOP).
    assert_eq!(
        out,
        "SPU2: CP0, 0(0), 0\n\
         SPU2: CP30, 0(0), 0\n\
         SPU2: CP5, 4(2), 4\n\
         SPU2: CP31, 6(2), 6\n\
         SPU2: CP7, 6(2), 6\n"
    );
    assert_eq!(outcome.instructions, 11);
    assert_eq!(spu.instructions_retired(), 11);
    // Non-NOP overall: il, il, il, stop (the nop, lnop and five checkpoints are NOPs).
    assert_eq!(spu.non_nop_instructions_retired(), 4);
    // Instructions keep executing while the counters are stopped.
    assert_eq!(spu.register(5).words(), [3; 4]);
}

#[test]
fn and_with_distinct_registers_is_not_a_checkpoint() {
    let mut h = Harness::new();
    let executed = h.exec(rr(M::And, 30, 30, 31));
    assert_eq!((executed.profile, executed.is_nop), (None, false));
    let executed = h.exec(prof_cp(31));
    assert!(executed.profile.is_some() && executed.is_nop);
    let executed = h.exec(rr(M::And, 40, 40, 40));
    assert_eq!(executed.profile, None);
}

#[test]
fn a_timing_model_supplies_the_cycle_clock() {
    // execute_at_cycle: the checkpoint cycles come from the caller's clock.
    let mut h = Harness::new();
    let insn = |word| pmprobe::spu::isa::decode(word).unwrap();
    h.spu.execute_at_cycle(&insn(prof_cp(30)), 10);
    h.spu.execute_at_cycle(&insn(ri16(M::Il, 3, 1)), 20);
    let executed = h.spu.execute_at_cycle(&insn(prof_cp(31)), 50);
    let checkpoint = executed.profile.expect("prof_cp31 reports");
    assert_eq!(checkpoint.to_string(), "SPU0: CP31, 2(1), 40");
    assert_eq!(h.spu.cycle_count(), 50);
}
