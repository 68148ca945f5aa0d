//! Instruction mode's quiet run loop (`SpuState::run_checkpoints`, behind `run`,
//! `run_with_output` and `SpuUnit::run` with nothing listening) skips building the report of
//! ordinary instructions. It must change nothing else: four SPUs, one run through the loop
//! that reports batches of instructions (`SpuUnit::run` with a listener attached), two
//! through the quiet loop (`SpuUnit::run` with nothing listening,
//! `SpuState::run_with_output`) and one stepped an instruction at a time
//! (`SpuState::run_observed`), run the same programs in the same slices
//! and must agree after every slice on the outcome, the `prof_cp` lines and the whole
//! architectural state (registers, PC, status, counters, profile counters, channels, the
//! local store). The programs cover checkpoints, stops, channel waits, faults, illegal words
//! and stores into the code being run. Both loops run the local store's code decoded once
//! (`src/spu/exec/code.rs`), so rewritten code (by a store of the program or by the host
//! between runs, a few quadwords or more than the local store notes one by one) must be
//! decoded again: the last three tests fail if a way of noticing it goes.

mod spu_pipeline_support;

use pmprobe::spu::exec::SPU_WR_OUT_MBOX;
use pmprobe::spu::pipeline::{Config, RunEnd};
use pmprobe::spu::probes::{NoProbes, SpuObserver};
use pmprobe::spu::unit::{Mode, SpuUnit};
use spu_pipeline_support::{assert_same_architecture, random_program, unit_with};

/// A listener that hears nothing but makes the unit report every instruction.
struct Listening;

impl SpuObserver for Listening {}

fn assert_same(quiet: &SpuUnit, reporting: &SpuUnit, what: &str) {
    assert_same_architecture(quiet, reporting, what);
    let (a, b) = (quiet.arch(), reporting.arch());
    assert_eq!(a.status(), b.status(), "{what}: status");
    assert_eq!(a.cycle_count(), b.cycle_count(), "{what}: cycle count");
    assert_eq!(
        a.non_nop_instructions_retired(),
        b.non_nop_instructions_retired(),
        "{what}: non-NOP count"
    );
    assert_eq!(
        a.profile_counters(),
        b.profile_counters(),
        "{what}: profile counters"
    );
    assert_eq!(a.channels(), b.channels(), "{what}: channels");
    for address in (0..0x4_0000).step_by(16) {
        assert_eq!(
            a.local_store().load_quadword(address),
            b.local_store().load_quadword(address),
            "{what}: LS quadword at {address:#x}"
        );
    }
}

/// Runs `source` on both SPUs in slices of the given lengths (cycled) until both stop or
/// `limit` instructions were attempted, draining the outbound mailbox when they block on
/// it. Returns the instructions the quiet SPU retired.
fn compare(source: &str, slices: &[u64], limit: u64) -> u64 {
    let mut quiet = unit_with(source, Config::cell(), Mode::Instruction);
    let mut reporting = unit_with(source, Config::cell(), Mode::Instruction);
    // The same loop reached directly: `SpuState::run_with_output` (`run_checkpoints`).
    let mut direct = unit_with(source, Config::cell(), Mode::Instruction);
    // One `SpuState::step` at a time (`run_observed`): no decoded blocks at all.
    let mut stepped = unit_with(source, Config::cell(), Mode::Instruction);
    let (mut text_quiet, mut text_reporting) = (String::new(), String::new());
    let mut text_direct = String::new();
    let mut total = 0;
    for (round, &slice) in slices.iter().cycle().enumerate() {
        let what = format!("slice {round} ({slice} instructions) at {total}");
        let a = quiet.run(slice, &NoProbes, &mut text_quiet);
        let b = reporting.run(slice, &Listening, &mut text_reporting);
        let c = direct.arch_mut().run_with_output(slice, &mut text_direct);
        let d = stepped.arch_mut().run_observed(slice, &mut |_| Ok(()));
        assert_eq!(a.as_ref().ok(), d.as_ref().ok(), "{what}: outcome, stepped");
        assert_eq!(a, b, "{what}: outcome\n{source}");
        assert_eq!(
            a.as_ref().ok(),
            c.as_ref().ok(),
            "{what}: outcome, directly"
        );
        assert_eq!(text_quiet, text_reporting, "{what}: prof_cp lines");
        assert_eq!(
            text_direct, text_reporting,
            "{what}: prof_cp lines, directly"
        );
        assert_same(&quiet, &reporting, &what);
        assert_same(&direct, &reporting, &format!("{what}, directly"));
        assert_same(&stepped, &reporting, &format!("{what}, stepped"));
        let Ok(outcome) = a else { break };
        total += outcome.cycles;
        match outcome.end {
            RunEnd::Stopped(_) => break,
            RunEnd::Blocked { channel } if channel == SPU_WR_OUT_MBOX => {
                let x = quiet.arch_mut().channels_mut().outbound.pop();
                let y = reporting.arch_mut().channels_mut().outbound.pop();
                let z = direct.arch_mut().channels_mut().outbound.pop();
                let w = stepped.arch_mut().channels_mut().outbound.pop();
                assert_eq!(w, y, "{what}: mailbox value, stepped");
                assert_eq!(x, y, "{what}: mailbox value");
                assert_eq!(z, y, "{what}: mailbox value, directly");
            }
            RunEnd::Blocked { .. } => break,
            RunEnd::CycleLimit => {}
        }
        if total >= limit {
            break;
        }
    }
    quiet.arch().instructions_retired()
}

const SLICES: [u64; 7] = [1, 2, 17, 64, 1_000, 5, 100_000];

fn counted(body: &str, iterations: u32) -> String {
    format!(
        "il $30,{iterations}\nila $20,data\nloop:\n{body}ai $30,$30,-1\nbrnz $30,loop\nstop\n.data\n.align 4\ndata: .space 256\n"
    )
}

#[test]
fn example_programs_and_workloads_agree() {
    let programs = [
        include_str!("../spu/programs/demo_saxpy.s"),
        include_str!("../spu/programs/demo_chain.s"),
        include_str!("../spu/programs/demo_dp.s"),
        include_str!("../spu/programs/call.s"),
        include_str!("../spu/programs/dot.s"),
        include_str!("../spu/programs/hinted_loop.s"),
        include_str!("../spu/programs/loop.s"),
        include_str!("../spu/programs/memcpy.s"),
        include_str!("../spu/programs/bench_stall_loop.s"),
        include_str!("../spu/programs/bench_dual_issue.s"),
    ];
    for source in programs {
        // The workloads run for tens of millions of instructions: a part of them is enough.
        assert!(compare(source, &SLICES, 300_000) > 0);
    }
}

#[test]
fn checkpoints_channels_stops_and_faults_agree() {
    // Two checkpoints (prof_cp10, prof_cp11: `and` of a register with itself) every
    // iteration, then stop.
    let checkpoint = counted("and $10,$10,$10\nfa $6,$6,$7\nand $11,$11,$11\n", 40);
    // Every 8th iteration writes the outbound mailbox (the host drains it).
    let mailbox = counted(
        "andi $6,$30,7\nbrnz $6,quiet\nwrch $ch28,$30\nquiet: fm $7,$7,$8\n",
        100,
    );
    // A read of an empty inbound mailbox: the SPU waits for good.
    let waits = "il $3,1\nrdch $4,$ch29\nstop\n";
    // A halt (heq on equal registers) and a stop with a signal.
    let halts = "il $3,5\nil $4,5\nheq $3,$4\nstop 0x1234\n";
    let stops = "il $3,5\nstop 0x1234\n";
    // An illegal word in the code.
    let illegal = "il $3,5\n.word 0x00800000\nstop\n";
    for source in [checkpoint.as_str(), &mailbox, waits, halts, stops, illegal] {
        compare(source, &SLICES, 100_000);
    }
}

#[test]
fn stores_into_the_code_being_run_agree() {
    // The loop rewrites its own `ai $10,$10,2` into `ai $10,$10,3` halfway (the decode cache
    // must see the new word) and, on the last iteration, its branch into a stop.
    let source = "il $30,100
ila $20,patch
lqd $21,0($20)
ila $25,mask
lqd $24,0($25)
a $22,$21,$24
loop: ceqi $26,$30,40
selb $27,$21,$22,$26
stqd $27,0($20)
fm $8,$8,$9
.align 4
patch: ai $10,$10,2
ai $9,$9,1
ai $30,$30,-1
brnz $30,loop
stop
.data
.align 4
mask: .word 0x400,0,0,0";
    for slices in [&SLICES[..], &[1], &[3, 7]] {
        compare(source, slices, 100_000);
    }
}

#[test]
fn random_programs_agree() {
    for seed in 0..60 {
        let source = random_program(seed);
        assert!(compare(&source, &[1 + seed % 7, 50, 999], 100_000) > 0);
    }
}

#[test]
fn code_the_host_rewrites_between_runs_is_run_new() {
    // `ai $10,$10,1` at address 8, the loop's first instruction; the host turns it into
    // `ai $10,$10,5` after some iterations, when the quiet loop has it decoded in a block.
    let source = counted("ai $10,$10,1\nai $11,$11,1\n", 1000);
    let mut quiet = unit_with(&source, Config::cell(), Mode::Instruction);
    let mut reporting = unit_with(&source, Config::cell(), Mode::Instruction);
    let word = quiet.arch().local_store().load_word(8);
    assert_eq!(word >> 24, 0x1c, "ai at address 8: {word:#x}");
    let patched = (word & !(0x3ff << 14)) | (5 << 14);
    quiet.run(1_003, &NoProbes, &mut String::new()).unwrap();
    reporting
        .run(1_003, &Listening, &mut String::new())
        .unwrap();
    for unit in [&mut quiet, &mut reporting] {
        unit.arch_mut().local_store_mut().store_word(8, patched);
    }
    quiet.run(100_000, &NoProbes, &mut String::new()).unwrap();
    reporting
        .run(100_000, &Listening, &mut String::new())
        .unwrap();
    assert_same(&quiet, &reporting, "after the patch");
    let ten = quiet.arch().register(10).preferred_word();
    let eleven = quiet.arch().register(11).preferred_word();
    assert_eq!(eleven, 1000);
    assert!(ten > 3 * eleven, "the patched instruction ran: $10 = {ten}");
}

#[test]
fn a_rewrite_of_more_code_than_the_local_store_notes_is_run_new() {
    // 160 straight-line `ai $10,$10,1` (40 quadwords, more than the eight written quadwords
    // the local store notes one by one) looping 20 times; after 1,003 instructions (`il`,
    // six passes and 30 more `ai`: 990 of them) the host makes every one `ai $10,$10,2`.
    let body = "ai $10,$10,1\n".repeat(160);
    let source = format!("il $30,20\nloop:\n{body}ai $30,$30,-1\nbrnz $30,loop\nstop\n");
    let mut quiet = unit_with(&source, Config::cell(), Mode::Instruction);
    let mut reporting = unit_with(&source, Config::cell(), Mode::Instruction);
    quiet.run(1_003, &NoProbes, &mut String::new()).unwrap();
    reporting
        .run(1_003, &Listening, &mut String::new())
        .unwrap();
    for unit in [&mut quiet, &mut reporting] {
        let store = unit.arch_mut().local_store_mut();
        for index in 0..160 {
            let address = 4 + 4 * index;
            let word = store.load_word(address);
            assert_eq!(word >> 24, 0x1c, "ai at {address:#x}: {word:#x}");
            store.store_word(address, (word & !(0x3ff << 14)) | (2 << 14));
        }
    }
    quiet.run(100_000, &NoProbes, &mut String::new()).unwrap();
    reporting
        .run(100_000, &Listening, &mut String::new())
        .unwrap();
    assert_same(&quiet, &reporting, "after the rewrite");
    // 990 additions of 1, then the other 3,200 - 990 of 2.
    assert_eq!(
        quiet.arch().register(10).preferred_word(),
        990 + 2 * (3_200 - 990)
    );
}
