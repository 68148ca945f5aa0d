//! The skipping of stalled cycles changes nothing but the host time: two SPUs, one skipping
//! and one simulating every cycle one by one (both with the fast-forward off), run the same
//! programs under both fetch models in the same slices and must agree after every slice on
//! the run outcome, the `prof_cp` lines, the statistics, the architectural state, everything
//! the pipeline shows (issue stages, execution rows, the trace frame with the real fetch
//! unit's buffers and LS pipe) and, with a listener attached, every notification in order.
//! The skip must also have run cycles, or the comparison would prove nothing.

mod spu_pipeline_support;

use pmprobe::spu::pipeline::{Config, FetchKind};
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::unit::{Mode, SpuUnit};
use spu_pipeline_support::{
    Rng, assert_same_pipeline, random_program, run_side_by_side, unit_with,
};

const FETCH_KINDS: [FetchKind; 2] = [FetchKind::Ideal, FetchKind::Real];

fn pipeline_unit(source: &str, config: Config, fetch: FetchKind, skip: bool) -> Box<SpuUnit> {
    let mut unit = unit_with(source, config, Mode::Pipeline);
    unit.set_fetch(fetch).unwrap();
    unit.set_fast_forward(false);
    unit.set_stall_skip(skip);
    unit
}

/// Runs `source` on both units in slices of the given lengths (cycled) until both stop or
/// `limit` cycles passed, draining the outbound mailbox when they block on it; with
/// `listen`, a recording listener is attached to both. Returns the cycles the skip ran.
fn compare_with(
    source: &str,
    config: Config,
    fetch: FetchKind,
    slices: &[u64],
    limit: u64,
    listen: bool,
) -> u64 {
    let mut skipping = pipeline_unit(source, config, fetch, true);
    let mut plain = pipeline_unit(source, config, fetch, false);
    run_side_by_side(
        &mut skipping,
        &mut plain,
        source,
        fetch,
        slices,
        limit,
        listen,
    );
    skipping.pipeline().skipped_stall_cycles()
}

fn compare(source: &str, config: Config, fetch: FetchKind, slices: &[u64], limit: u64) -> u64 {
    compare_with(source, config, fetch, slices, limit, false)
}

const SLICES: [u64; 8] = [1, 3, 17, 64, 250, 1_000, 7, 20_000];

/// `source` with its iteration count (the `ilhu`/`iohl` pair `old`) replaced by `count`.
fn with_count(source: &str, register: &str, old: (&str, &str), count: u32) -> String {
    let (ilhu, iohl) = (
        format!("ilhu    ${register},{}", old.0),
        format!("iohl    ${register},{}", old.1),
    );
    assert!(
        source.contains(&ilhu) && source.contains(&iohl),
        "count not found"
    );
    source
        .replace(&ilhu, &format!("ilhu    ${register},{}", count >> 16))
        .replace(&iohl, &format!("iohl    ${register},{}", count & 0xffff))
}

fn bench_stall_loop(iterations: u32) -> String {
    let source = include_str!("../spu/programs/bench_stall_loop.s");
    with_count(source, "12", ("0x16", "0xe360"), iterations)
}

fn bench_dual_issue(iterations: u32) -> String {
    let source = include_str!("../spu/programs/bench_dual_issue.s");
    with_count(source, "5", ("0xf", "0x4240"), iterations)
}

fn counted(body: &str, iterations: u32) -> String {
    format!(
        "il $30,{iterations}\nila $20,data\nloop:\n{body}ai $30,$30,-1\nbrnz $30,loop\nstop\n.data\n.align 4\ndata: .space 256\n"
    )
}

#[test]
fn benchmark_workloads_and_example_programs_skip_to_the_same_results() {
    let programs = [
        ("bench_stall_loop", bench_stall_loop(300)),
        ("bench_dual_issue", bench_dual_issue(100)),
        (
            "demo_saxpy",
            include_str!("../spu/programs/demo_saxpy.s").into(),
        ),
        (
            "demo_chain",
            include_str!("../spu/programs/demo_chain.s").into(),
        ),
        ("demo_dp", include_str!("../spu/programs/demo_dp.s").into()),
        ("call", include_str!("../spu/programs/call.s").into()),
        ("dot", include_str!("../spu/programs/dot.s").into()),
        (
            "hinted_loop",
            include_str!("../spu/programs/hinted_loop.s").into(),
        ),
        ("loop", include_str!("../spu/programs/loop.s").into()),
        ("memcpy", include_str!("../spu/programs/memcpy.s").into()),
    ];
    for fetch in FETCH_KINDS {
        let mut skipped = 0;
        for (name, source) in &programs {
            for slices in [&SLICES[..], &[1_000_000]] {
                let ran = compare(source, Config::cell(), fetch, slices, 200_000);
                if *name == "bench_stall_loop" {
                    assert!(ran > 5_000, "{fetch:?} fetch, {name}: {ran} cycles skipped");
                }
                skipped += ran;
            }
        }
        assert!(skipped > 0, "{fetch:?} fetch: nothing was skipped");
    }
}

#[test]
fn floating_point_stalls_resource_conflicts_and_configured_depths_agree() {
    // DP issue stalls, FP6/FP7 shared-unit conflicts, loads feeding FP, a dependent DP chain.
    let body = "dfa $3,$4,$5
fa $6,$6,$7
mpy $8,$9,$10
fm $11,$6,$12
dfm $13,$13,$14
lqd $15,32($20)
fma $16,$15,$11,$16
stqd $16,48($20)
";
    let mut deep = Config::cell();
    for (key, value) in [
        ("spu/pipe/FP6/depth", "31"),
        ("spu/pipe/LS/depth", "17"),
        ("spu/pipe/FX2/stall", "3"),
        ("spu/pipe/FPD/stall", "20"),
    ] {
        deep.configure(key, value).unwrap();
    }
    for config in [Config::cell(), Config::celledp(), deep] {
        for fetch in FETCH_KINDS {
            let skipped = compare(&counted(body, 200), config, fetch, &SLICES, 1_000_000);
            assert!(skipped > 0, "{fetch:?} fetch: nothing was skipped");
        }
    }
}

#[test]
fn checkpoints_channels_hints_mispredicts_and_self_modifying_code_agree() {
    // A checkpoint every iteration: its line carries the cycle.
    let checkpoint = counted("and $5,$5,$5\nfa $6,$6,$7\nfm $8,$6,$6\n", 50);
    // Every 16th iteration writes the outbound mailbox (the host drains it).
    let mailbox = counted(
        "andi $6,$30,15\nbrnz $6,quiet\nwrch $ch28,$30\nquiet: fm $7,$7,$8\nfa $9,$7,$9\n",
        200,
    );
    // An unhinted loop (mispredicts under real fetch) with a hint inside the loop body for
    // an inner branch, and a long dependency chain.
    let hinted = counted(
        "hbrr inner_branch,inner\nil $7,3\ninner: fm $8,$8,$9\nfa $8,$8,$9\nai $7,$7,-1\ninner_branch: brnz $7,inner\n",
        60,
    );
    // Stores into its own code on one iteration (see the fast-forward tests).
    let self_modifying = "il $30,100
ila $20,32
lqd $21,0($20)
ila $25,mask
lqd $24,0($25)
a $22,$21,$24
loop: ceqi $26,$30,40
selb $27,$21,$22,$26
stqd $27,0($20)
fm $8,$8,$9
ai $10,$10,2
ai $9,$9,1
ai $30,$30,-1
brnz $30,loop
stop
.data
.align 4
mask: .word 0,0,0,0x4000";
    for source in [checkpoint, mailbox, hinted, self_modifying.to_string()] {
        for fetch in FETCH_KINDS {
            compare(&source, Config::cell(), fetch, &SLICES, 1_000_000);
        }
    }
}

#[test]
fn hint_fetches_and_trigger_invalidations_inside_skipped_stretches_agree_at_every_cycle() {
    // A loop that hints its own branch before a dependency chain (the hint's line request
    // travels down the LS pipe while issue waits), and the stall-heavy benchmark (its
    // hinted branch triggers the invalidation of the old inline buffers during stalls).
    // Slices of 1 to 9 cycles put a slice end, and so a comparison of the trace frames
    // (hint target buffer, inline buffers, LS pipe), at every cycle of those stretches.
    let rehinting = counted(
        "fm $8,$8,$9
hbrr back,loop
fm $10,$8,$8
fm $11,$10,$10
fm $12,$11,$11
fa $13,$12,$8
lqd $14,0($20)
fm $15,$14,$13
stqd $15,16($20)
ai $16,$16,1
back: brnz $30,next
next:
",
        40,
    );
    let slices: Vec<u64> = (1..=9).collect();
    for source in [rehinting, bench_stall_loop(40)] {
        let skipped = compare(&source, Config::cell(), FetchKind::Real, &slices, 100_000);
        assert!(skipped > 0, "nothing was skipped");
    }
}

#[test]
fn random_programs_agree_cycle_for_cycle() {
    let mut skipped = 0;
    for seed in 0..120 {
        let source = random_program(seed);
        let mut rng = Rng(seed + 7);
        let slices = [1 + rng.below(5), 40, 333, 5_000, 2];
        for fetch in FETCH_KINDS {
            skipped += compare(&source, Config::cell(), fetch, &slices, 100_000);
        }
    }
    assert!(skipped > 0, "nothing was skipped");
}

/// A random hinted loop: a body of random length (so the hinted branch lands anywhere in its
/// line) of dependent FP and load chains and independent fillers, the branch hinted before
/// the loop or inside it.
fn random_hinted_loop(seed: u64) -> String {
    let mut rng = Rng(seed | 1);
    let mut body = String::new();
    if rng.below(2) == 0 {
        body.push_str("hbrr back,loop\n");
    }
    for _ in 0..2 + rng.below(40) {
        let (t, a) = (3 + rng.below(8), 3 + rng.below(8));
        body.push_str(&match rng.below(6) {
            0 => format!("fm ${t},${a},${a}\n"),
            1 => format!("lqd ${t},{}($20)\n", 16 * rng.below(4)),
            2 => format!("dfa ${t},${a},${t}\n"),
            3 => "lnop\n".to_string(),
            4 => format!("stqd ${t},{}($20)\n", 16 * rng.below(4)),
            _ => format!("ai ${t},${a},1\n"),
        });
    }
    format!(
        "il $30,{}\nila $20,data\nhbrr back,loop\n{}loop:\n{body}ai $30,$30,-1\nback: brnz $30,loop\nstop\n.data\n.align 4\ndata: .space 64\n",
        5 + rng.below(20),
        "nop\n".repeat(rng.below(16) as usize)
    )
}

#[test]
fn random_hinted_loops_agree_at_every_cycle() {
    let slices: Vec<u64> = (1..=9).collect();
    let mut skipped = 0;
    // 300 loops: a branch waiting in stage g for a hint target still in the LS pipe while
    // issue stalls (which bounds the real fetch unit's idle stretch) first comes at 168.
    for seed in 0..300 {
        let source = random_hinted_loop(seed);
        skipped += compare(&source, Config::cell(), FetchKind::Real, &slices, 20_000);
    }
    assert!(skipped > 0, "nothing was skipped");
}

#[test]
fn notifications_are_the_same_in_order_with_a_listener_attached() {
    let programs = [
        bench_stall_loop(40),
        counted("dfa $3,$4,$5\nlqd $15,32($20)\nfma $16,$15,$3,$16\n", 30),
        include_str!("../spu/programs/demo_chain.s").into(),
        random_program(3),
    ];
    for source in &programs {
        for fetch in FETCH_KINDS {
            let skipped = compare_with(source, Config::cell(), fetch, &SLICES, 30_000, true);
            assert!(skipped > 0, "{fetch:?} fetch: nothing was skipped");
        }
    }
}

#[test]
fn statistics_reset_flush_and_switches_between_runs_agree() {
    let source = bench_stall_loop(400);
    for fetch in FETCH_KINDS {
        let mut skipping = pipeline_unit(&source, Config::cell(), fetch, true);
        let mut plain = pipeline_unit(&source, Config::cell(), fetch, false);
        for round in 0..9 {
            for unit in [&mut skipping, &mut plain] {
                unit.run(700, &NoProbes, &mut String::new()).unwrap();
                match round % 3 {
                    0 => unit.reset_stats(),
                    1 => unit.set_config(Config::cell()),
                    _ => {}
                }
            }
            // Off and on again in the middle of a run.
            skipping.set_stall_skip(round % 2 == 0);
            assert_same_pipeline(&skipping, &plain, &format!("{fetch:?}, round {round}"));
        }
        assert!(skipping.pipeline().skipped_stall_cycles() > 0);
        assert_eq!(plain.pipeline().skipped_stall_cycles(), 0);
    }
}
