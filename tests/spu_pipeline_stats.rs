//! Statistics identities, the `stats print` block and prof_cp cycle counts.

mod spu_pipeline_support;

use pmprobe::spu::exec::SPU_RD_IN_MBOX;
use pmprobe::spu::isa::{IClass, Mnemonic};
use pmprobe::spu::pipeline::Config;
use pmprobe::spu::pipeline::{RunEnd, RunOutcome};
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::unit::{Discard, Mode};
use spu_pipeline_support::{repeated, run_to_stop, unit_with};

/// Programs of different shapes: chains, dual issue, DP, FP conflicts, loops with loads,
/// stores and calls, channel accesses.
fn programs() -> Vec<(&'static str, String)> {
    vec![
        ("fx2 chain", repeated("", "a $3,$3,$4", 40)),
        (
            "dual stream",
            repeated("", "a $10,$11,$12\nrotqby $20,$21,$22", 40),
        ),
        ("dfa", repeated("", "dfa $10,$11,$12", 20)),
        (
            "fp mix",
            repeated(
                "",
                "mpy $10,$11,$12\nlnop\nfa $20,$21,$22\nlnop\nfma $5,$5,$6,$7\nshufb $8,$5,$9,$10",
                20,
            ),
        ),
        (
            "loop",
            String::from(
                "_start: il $3,50
                 ila $4,data
                 il $5,0
                 loop: lqd $6,0($4)
                 a $5,$5,$6
                 stqd $5,16($4)
                 brsl $0,leaf
                 ai $3,$3,-1
                 brnz $3,loop
                 stop
                 leaf: ai $7,$7,1
                 bi $0
                 .data
                 .align 4
                 data: .word 1,2,3,4
                 .space 16",
            ),
        ),
        (
            "channels",
            String::from(
                "il $3,7
                 rdch $4,$ch29
                 a $5,$4,$3
                 wrch $ch28,$5
                 rchcnt $6,$ch29
                 stop",
            ),
        ),
    ]
}

#[test]
fn cycle_categories_and_dependency_classes_add_up() {
    for (name, source) in programs() {
        for config in [Config::cell(), Config::celledp()] {
            let mut unit = unit_with(&source, config, Mode::Pipeline);
            unit.arch_mut()
                .channels_mut()
                .inbound
                .push(35)
                .expect("mailbox has room");
            let (outcome, _) = run_to_stop(&mut unit, 100_000);
            let stats = unit.stats();
            assert_eq!(stats.cycles, outcome.cycles, "{name}");
            assert_eq!(stats.instructions, outcome.instructions, "{name}");
            assert_eq!(
                stats.categorised_cycles(),
                stats.cycles,
                "{name}: single + dual + nop + stalls + init = total"
            );
            let per_class: u64 = IClass::ALL
                .iter()
                .map(|&c| stats.dependency_stalls_of(c))
                .sum();
            assert_eq!(per_class, stats.dependency_stalls, "{name}");
            stats.check_identities().unwrap();
            // Every completed instruction issued once: issue slots used = instructions.
            assert_eq!(
                stats.single_cycles + 2 * stats.dual_cycles + stats.nop_cycles,
                stats.instructions,
                "{name}: no NOP in these programs issues in a NOP cycle with a partner"
            );
        }
    }
}

#[test]
fn chain_statistics_match_the_rules() {
    // 40 dependent FX2 links: every link after the first waits one cycle (depth 2) on the
    // previous FX2; all issue alone.
    let source = repeated("", "a $3,$3,$4", 40);
    let mut unit = unit_with(&source, Config::cell(), Mode::Pipeline);
    run_to_stop(&mut unit, 10_000);
    let stats = unit.stats();
    assert_eq!(stats.instructions, 41);
    assert_eq!(stats.dual_cycles, 0);
    assert_eq!(stats.dependency_stalls_of(IClass::Fx2), 39);
    assert_eq!(stats.dependency_stalls, 39);
    // The pipeline fills for four cycles (stages g, h, i, j) before the first issue.
    assert_eq!(stats.initialisation_cycles, 4);
}

#[test]
fn dfa_stalls_count_as_dp_pipeline() {
    let source = repeated("", "dfa $10,$11,$12", 10);
    let mut unit = unit_with(&source, Config::cell(), Mode::Pipeline);
    run_to_stop(&mut unit, 10_000);
    // Each of the ten dfa holds issue for 6 cycles, the stop after the last one included.
    assert_eq!(unit.stats().dp_pipeline_stalls, 60);
}

#[test]
fn fp_conflict_is_counted() {
    let source = repeated(
        "",
        "mpy $10,$11,$12\nlnop\nfa $20,$21,$22\nlnop\na $30,$31,$32\nlnop",
        10,
    );
    let mut unit = unit_with(&source, Config::cell(), Mode::Pipeline);
    run_to_stop(&mut unit, 10_000);
    assert_eq!(unit.stats().fp_resource_stalls, 10);
}

#[test]
fn branch_counts() {
    let source = "il $3,5\nloop: ai $3,$3,-1\nbrnz $3,loop\nbr skip\nnop\nskip: stop";
    let mut unit = unit_with(source, Config::cell(), Mode::Pipeline);
    run_to_stop(&mut unit, 10_000);
    let stats = unit.stats();
    // brnz: taken 4 times, not taken once; br: taken once.
    assert_eq!(stats.branches_taken, 5);
    assert_eq!(stats.branches_not_taken, 1);
    assert_eq!(stats.branches(), 6);
}

#[test]
fn stats_reset_clears_every_counter() {
    let source = repeated("", "a $3,$3,$4", 10);
    let mut unit = unit_with(&source, Config::cell(), Mode::Pipeline);
    run_to_stop(&mut unit, 10_000);
    assert!(unit.stats().cycles > 0);
    unit.reset_stats();
    assert_eq!(*unit.stats(), pmprobe::spu::pipeline::Statistics::new());
}

const N: u64 = 25;

fn profiled_chain() -> String {
    // prof_cp0 (clear), prof_cp30 (start), N dependent FX2, prof_cp31 (stop).
    let mut text = String::from("and $0,$0,$0\nand $30,$30,$30\n");
    for _ in 0..N {
        text.push_str("a $3,$3,$4\n");
    }
    text.push_str("and $31,$31,$31\nstop\n");
    text
}

#[test]
fn prof_cp_lines_carry_pipeline_cycles() {
    let mut unit = unit_with(&profiled_chain(), Config::cell(), Mode::Pipeline);
    let (_, text) = run_to_stop(&mut unit, 10_000);
    // cp30 issues one cycle before the first link (it is cross-issued from the odd slot of
    // the first group); the links issue every 2 cycles; cp31 is independent and issues the
    // cycle after the last link. Stage o is the same distance below issue for all, so the
    // counted interval is 1 + 2 (N - 1) + 1 = 2N cycles. Counted instructions: the N links
    // and cp31 itself (cp30 is not: counting was off before it); cp31 is a no-op.
    let expected = format!(
        "SPU0: CP0, 0(0), 0\nSPU0: CP30, 0(0), 0\nSPU0: CP31, {}({}), {}\n",
        N + 1,
        N,
        2 * N
    );
    assert_eq!(text, expected);
}

#[test]
fn performance_block_equals_prof_cp_figures() {
    let mut unit = unit_with(&profiled_chain(), Config::cell(), Mode::Pipeline);
    let (_, text) = run_to_stop(&mut unit, 10_000);
    let cp31 = text.lines().last().unwrap();
    // "SPU0: CP31, <instructions>(<non-NOP>), <cycles>"
    let rest = cp31.strip_prefix("SPU0: CP31, ").unwrap();
    let (counts, cycles) = rest.split_once(", ").unwrap();
    let (instructions, non_nop) = counts.trim_end_matches(')').split_once('(').unwrap();
    let mut block = String::new();
    unit.print_stats(&mut block).unwrap();
    let field = |label: &str| -> String {
        block
            .lines()
            .find_map(|l| l.strip_prefix(label))
            .unwrap_or_else(|| panic!("no {label} in\n{block}"))
            .trim()
            .to_string()
    };
    assert_eq!(field("Performance Cycle count"), cycles);
    assert_eq!(
        field("Performance Instruction count"),
        format!("{instructions} ({non_nop})")
    );
    // CPI = 2N / (N + 1) and 2N / N, two decimals.
    let cpi = 2.0 * N as f64 / (N + 1) as f64;
    assert_eq!(field("Performance CPI"), format!("{:.2} ({:.2})", cpi, 2.0));
}

#[test]
fn stats_print_has_the_simulator_labels_and_percentages() {
    let source = repeated("", "a $10,$11,$12\nrotqby $20,$21,$22", 20);
    let mut unit = unit_with(&source, Config::cell(), Mode::Pipeline);
    run_to_stop(&mut unit, 10_000);
    let mut block = String::new();
    unit.print_stats(&mut block).unwrap();
    for label in [
        "Total Cycle count",
        "Total Instruction count",
        "Total CPI",
        "Performance Cycle count",
        "Performance Instruction count",
        "Performance CPI",
        "Branch instructions",
        "Branch taken",
        "Branch not taken",
        "Hint instructions",
        "Hint hit",
        "Contention at LS between Load/Store and Prefetch",
        "Single cycle",
        "Dual cycle",
        "Nop cycle",
        "Stall due to branch miss",
        "Stall due to prefetch miss",
        "Stall due to dependency",
        "Stall due to fp resource conflict",
        "Stall due to waiting for hint target",
        "Stall due to dp pipeline",
        "Channel stall cycle",
        "SPU Initialization cycle",
        "Total cycle",
        "Stall cycles due to dependency on each pipelines",
    ] {
        assert!(
            block.lines().any(|l| l.starts_with(label)),
            "missing {label}:\n{block}"
        );
    }
    let stats = unit.stats();
    let total = stats.cycles;
    // 20 dual cycles out of the total, as the simulator prints it: "( dd.d%)" at column 63.
    let line = block.lines().find(|l| l.starts_with("Dual cycle")).unwrap();
    let percent = (2000 * 20 / total).div_ceil(2); // tenths, rounded half up
    let expected_tail = format!("20 ({:>3}.{}%)", percent / 10, percent % 10);
    assert!(line.ends_with(&expected_tail), "{line} vs {expected_tail}");
    assert_eq!(line.find('(').unwrap(), 62, "{line}");
    for class in IClass::ALL {
        assert!(
            block
                .lines()
                .any(|l| l.trim_start().starts_with(class.name()))
        );
    }
}

#[test]
fn blocked_channel_waits_and_resumes() {
    let source = "rdch $4,$ch29\nai $5,$4,1\nstop";
    let mut unit = unit_with(source, Config::cell(), Mode::Pipeline);
    let outcome: RunOutcome = unit.run(1_000, &NoProbes, &mut Discard).unwrap();
    assert_eq!(
        outcome.end,
        RunEnd::Blocked {
            channel: SPU_RD_IN_MBOX
        }
    );
    // Service the mailbox without disturbing the pipeline state more than a flush.
    unit.arch_mut().channels_mut().inbound.push(41).unwrap();
    let (_, _) = run_to_stop(&mut unit, 1_000);
    assert_eq!(unit.arch().register(5).preferred_word(), 42);
    unit.pipeline().stats().check_identities().unwrap();
}

#[test]
fn dependency_columns_show_target_then_128_after_depth() {
    use pmprobe::spu::probes::NoProbes as Quiet;
    // a $3 (FX2, depth 2) and then fa $5 (FP6, depth 6), independent.
    let source = "a $3,$4,$4\nlnop\nfa $5,$6,$6\nlnop\nnop\nlnop\nnop\nlnop\nnop\nlnop\nstop";
    let mut unit = unit_with(source, Config::cell(), Mode::Pipeline);
    // The first group reaches stage j at the end of cycle 4 and issues in cycle 5.
    unit.run(5, &Quiet, &mut Discard).unwrap();
    let jj = unit.pipeline().dependency_columns(0).unwrap();
    assert_eq!(jj, [3, -1], "a in pipe 0, the lnop has no target");
    // The pair dual-issued (even pipe `a` at the even address, odd pipe `lnop` at the odd,
    // the Cell BE's dual-issue rule), so both entered jj together.
    let jj_slots = unit.pipeline().exec_stage_slots(0).unwrap();
    assert_eq!(
        jj_slots.map(|slot| slot.map(|inflight| inflight.instruction.mnemonic)),
        [Some(Mnemonic::A), Some(Mnemonic::Lnop)]
    );
    unit.run(1, &Quiet, &mut Discard).unwrap();
    // One cycle later: a is at k (not yet released, depth 2), fa entered jj.
    assert_eq!(unit.pipeline().dependency_columns(1).unwrap(), [3, -1]);
    assert_eq!(unit.pipeline().dependency_columns(0).unwrap(), [5, -1]);
    unit.run(1, &Quiet, &mut Discard).unwrap();
    // Two cycles after entering jj the FX2 target is released; the FP6 one is not.
    assert_eq!(unit.pipeline().dependency_columns(2).unwrap(), [128, -1]);
    assert_eq!(unit.pipeline().dependency_columns(1).unwrap(), [5, -1]);
    unit.run(4, &Quiet, &mut Discard).unwrap();
    assert_eq!(unit.pipeline().dependency_columns(5).unwrap()[0], 5);
    unit.run(1, &Quiet, &mut Discard).unwrap();
    assert_eq!(unit.pipeline().dependency_columns(6).unwrap()[0], 128);
}
