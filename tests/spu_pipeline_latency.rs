//! Latency law, dual issue and DP issue rules of the pipeline model (ideal fetch).
//!
//! Expectations come from the issue rules and the class depths and stalls of
//! `docs/spu-timing-model.md`, never from the model's output: running a program of N and of 2N repetitions
//! cancels the constant start-up and drain cycles, so the difference must be exactly N times
//! the cost per repetition the rules give.

mod spu_pipeline_support;

use pmprobe::spu::isa::IClass;
use pmprobe::spu::pipeline::Config;
use spu_pipeline_support::{cycles_of, repeated};

const N: usize = 8;

/// Cycles per repetition of `body`, from the difference between 2N and N repetitions.
fn cost_per_repetition(prologue: &str, body: &str, config: Config) -> (u64, u64) {
    let short = cycles_of(&repeated(prologue, body, N), config);
    let long = cycles_of(&repeated(prologue, body, 2 * N), config);
    let longer = cycles_of(&repeated(prologue, body, 3 * N), config);
    (long - short, longer - long)
}

/// A dependent chain per class: each instruction reads the register the previous one wrote.
fn chain(class: IClass) -> &'static str {
    match class {
        IClass::Fx2 => "a $3,$3,$4",
        IClass::Shuf => "rotqby $3,$3,$4",
        IClass::Fx3 => "shl $3,$3,$4",
        IClass::Ls => "lqd $3,0($3)",
        IClass::Br => "orx $3,$3",
        IClass::Fxb => "absdb $3,$3,$4",
        IClass::Fp6 => "fa $3,$3,$4",
        IClass::Fp7 => "mpy $3,$3,$4",
        IClass::Fpd => "dfa $3,$3,$4",
        // SPR: mfspr writes $3 reading no register, mtspr reads it: one dependent link of
        // depth(SPR) then one independent issue (the next mfspr, same pipe) per repetition.
        IClass::Spr => "mfspr $3,$sp0\nmtspr $sp0,$3",
        // NOP/LNOP write no register; a run of them in one pipe issues one per cycle.
        IClass::Nop => "nop",
        IClass::Lnop => "lnop",
    }
}

fn expected_cost(class: IClass, config: &Config) -> u64 {
    let depth = u64::from(config.depth(class));
    let stall = u64::from(config.stall(class));
    match class {
        IClass::Spr => depth + 1,
        IClass::Nop | IClass::Lnop => 1,
        // The next link also waits for the issue stall (stall + 1 cycles); depth dominates.
        _ => depth.max(stall + 1),
    }
}

#[test]
fn dependent_chain_costs_depth_per_link_for_every_class() {
    let config = Config::cell();
    for class in IClass::ALL {
        let (first, second) = cost_per_repetition("", chain(class), config);
        let per_link = expected_cost(class, &config) * N as u64;
        assert_eq!(
            (first, second),
            (per_link, per_link),
            "{}: {N} more links should cost {per_link} cycles",
            class.name()
        );
    }
}

#[test]
fn cell_depths_are_the_reference_table() {
    let config = Config::cell();
    let expected = [
        (IClass::Fx2, 2),
        (IClass::Fx3, 4),
        (IClass::Fxb, 4),
        (IClass::Fp6, 6),
        (IClass::Fp7, 7),
        (IClass::Fpd, 13),
        (IClass::Shuf, 4),
        (IClass::Ls, 6),
        (IClass::Br, 4),
        (IClass::Spr, 6),
        (IClass::Nop, 1),
        (IClass::Lnop, 1),
    ];
    for (class, depth) in expected {
        assert_eq!(config.depth(class), depth, "{}", class.name());
        let stall = if class == IClass::Fpd { 6 } else { 0 };
        assert_eq!(config.stall(class), stall, "{}", class.name());
    }
}

#[test]
fn fp6_depth_setting_changes_the_chain_cost() {
    for depth in [3u32, 6, 9, 12] {
        let mut config = Config::cell();
        config
            .configure("spu/pipe/FP6/depth", &depth.to_string())
            .unwrap();
        let (first, second) = cost_per_repetition("", "fa $3,$3,$4", config);
        assert_eq!(
            (first, second),
            (u64::from(depth) * N as u64, u64::from(depth) * N as u64)
        );
    }
}

#[test]
fn independent_even_odd_pairs_dual_issue() {
    // FX2 (even pipe) at even addresses, SHUF (odd pipe) at odd addresses: one pair per cycle.
    let body = "a $10,$11,$12\nrotqby $20,$21,$22";
    let (first, second) = cost_per_repetition("", body, Config::cell());
    assert_eq!((first, second), (N as u64, N as u64));
}

#[test]
fn swapped_pairs_issue_one_per_cycle() {
    // The odd-pipe instruction at the even address: both are cross-issued, one per cycle.
    let body = "rotqby $20,$21,$22\na $10,$11,$12";
    let (first, second) = cost_per_repetition("", body, Config::cell());
    assert_eq!((first, second), (2 * N as u64, 2 * N as u64));
}

#[test]
fn dependent_pair_does_not_dual_issue() {
    // The odd instruction reads the even one's target: single issue, then it waits for
    // depth(FX2) = 2 cycles after its producer; next pair's FX2 is independent.
    let body = "a $10,$11,$12\nrotqby $20,$10,$22";
    // The producer issues in cycle t, the consumer in t + 2; only then does the pair leave
    // stage j, so the next pair issues in t + 3: 3 cycles per repetition.
    let (first, _) = cost_per_repetition("", body, Config::cell());
    assert_eq!(first, 3 * N as u64);
}

#[test]
fn independent_dfa_issue_at_most_one_per_seven_cycles() {
    let (first, second) = cost_per_repetition("", "dfa $10,$11,$12", Config::cell());
    assert_eq!((first, second), (7 * N as u64, 7 * N as u64));
}

#[test]
fn pipelined_dp_without_stall_is_much_faster() {
    let mut config = Config::cell();
    config.configure("spu/pipe/FPD/stall", "0").unwrap();
    config.configure("spu/feature/dp-dual", "TRUE").unwrap();
    // All dfa are even-pipe instructions: one per cycle (the odd-address ones cross-issue).
    let (first, second) = cost_per_repetition("", "dfa $10,$11,$12", config);
    assert_eq!((first, second), (N as u64, N as u64));
    let default = cost_per_repetition("", "dfa $10,$11,$12", Config::cell()).0;
    assert!(first * 5 <= default, "{first} vs {default}");
}

#[test]
fn dp_dual_lets_an_odd_instruction_issue_with_dfa() {
    // dfa (even) + lnop (odd) pairs: with dp-dual off the pair cannot dual issue.
    let body = "dfa $10,$11,$12\nrotqby $20,$21,$22";
    let mut config = Config::cell();
    config.set_stall(IClass::Fpd, 0).unwrap();
    let single = cost_per_repetition("", body, config).0;
    assert_eq!(single, 2 * N as u64);
    config.set_dp_dual(true);
    let dual = cost_per_repetition("", body, config).0;
    assert_eq!(dual, N as u64);
}

#[test]
fn sp_dual_off_blocks_dual_issue_with_fp6() {
    let body = "fa $10,$11,$12\nrotqby $20,$21,$22";
    let config = Config::cell();
    assert_eq!(cost_per_repetition("", body, config).0, N as u64);
    let mut config = Config::cell();
    config.set_sp_dual(false);
    assert_eq!(cost_per_repetition("", body, config).0, 2 * N as u64);
}

#[test]
fn fp6_right_after_fp7_slips_one_cycle() {
    // FP7 uses the shared FP unit one cycle after issue, FP6 in its issue cycle. Each line is
    // its own fetch group (even instruction + lnop, which dual issue).
    // mpy (t), fa (wants t + 1: conflict, slips to t + 2), a (t + 3): 4 cycles per repetition.
    let conflict = "mpy $10,$11,$12\nlnop\nfa $20,$21,$22\nlnop\na $30,$31,$32\nlnop";
    // mpy (t), a (t + 1), fa (t + 2: the unit is free): 3 cycles per repetition.
    let no_conflict = "mpy $10,$11,$12\nlnop\na $30,$31,$32\nlnop\nfa $20,$21,$22\nlnop";
    let config = Config::cell();
    assert_eq!(cost_per_repetition("", no_conflict, config).0, 3 * N as u64);
    assert_eq!(cost_per_repetition("", conflict, config).0, 4 * N as u64);
}
