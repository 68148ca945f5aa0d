//! The fast-forward over repeating loop iterations changes nothing but the host time: two
//! SPUs, one with the fast-forward and one simulating every cycle, run the same programs in
//! the same slices, under both fetch models, and must agree after every slice on the run
//! outcome, the statistics, the architectural state and everything the pipeline shows (clock,
//! issue stages, execution stages with their dependency columns, last stall). Each program
//! runs twice: with nothing listening, and with a recording listener attached to both, which
//! must have heard the same notifications in the same order (the fast-forward replays what
//! it noted of a simulated iteration for each one it skips). The fast-forward must also have
//! skipped cycles in both, or the comparison would prove nothing.
// The lean configuration (feature `spu-lean`) has no fast-forward to compare.
#![cfg(not(feature = "spu-lean"))]

mod spu_pipeline_support;

use pmprobe::spu::pipeline::{Config, FetchKind};
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::unit::{Mode, SpuUnit};
use spu_pipeline_support::{Rng, assert_same_pipeline, run_side_by_side, run_to_stop, unit_with};

/// Both fetch models: the fast-forward works under each.
const FETCH: [FetchKind; 2] = [FetchKind::Ideal, FetchKind::Real];

fn pipeline_unit(
    source: &str,
    config: Config,
    fetch: FetchKind,
    fast_forward: bool,
) -> Box<SpuUnit> {
    let mut unit = unit_with(source, config, Mode::Pipeline);
    unit.set_fetch(fetch).unwrap();
    unit.set_fast_forward(fast_forward);
    // The reference is the plain model: every cycle simulated one by one.
    unit.set_stall_skip(fast_forward);
    unit
}

/// Runs `source` on both units in slices of the given lengths (cycled) until both stop or
/// `limit` cycles passed, draining the outbound mailbox of both when they block on it; with
/// `listen`, a recording listener is attached to both, and they must have heard the same
/// notifications in the same order. Returns the cycles the fast unit skipped.
fn compare_with(
    source: &str,
    config: Config,
    fetch: FetchKind,
    slices: &[u64],
    limit: u64,
    listen: bool,
) -> u64 {
    let mut fast = pipeline_unit(source, config, fetch, true);
    let mut slow = pipeline_unit(source, config, fetch, false);
    run_side_by_side(&mut fast, &mut slow, source, fetch, slices, limit, listen);
    fast.pipeline().fast_forwarded_cycles()
}

/// [`compare_with`] with nothing listening, then with a recording listener attached; the
/// cycles skipped in the two.
fn compare(
    source: &str,
    config: Config,
    fetch: FetchKind,
    slices: &[u64],
    limit: u64,
) -> (u64, u64) {
    (
        compare_with(source, config, fetch, slices, limit, false),
        compare_with(source, config, fetch, slices, limit, true),
    )
}

const SLICES: [u64; 8] = [1, 3, 17, 64, 250, 1_000, 7, 20_000];

/// A loop of `iterations` around `body`, its branch hinted (the real fetch unit predicts an
/// unhinted branch not taken: every iteration would end in a mispredict). The data lies
/// apart from the code: under real fetch, a store into a half-line the fetch unit holds
/// keeps that repetition from being skipped.
fn counted(body: &str, iterations: u32) -> String {
    format!(
        "il $30,{iterations}\nila $20,data\nhbrr back,loop\nloop:\n{body}ai $30,$30,-1\nback: brnz $30,loop\nstop\n.data\n.align 4\n.space 512\ndata: .space 256\n"
    )
}

#[test]
fn dependency_chain_dual_issue_and_call_loops_fast_forward_to_the_same_results() {
    let chain = counted(&"a $3,$3,$4\n".repeat(32), 300);
    let dual = counted(&"a $10,$11,$12\nrotqby $20,$21,$22\n".repeat(20), 300);
    let call = "ila $4,data
il $9,3
outer: il $3,100
loop: lqd $6,0($4)
a $7,$7,$6
stqd $7,16($4)
brsl $0,leaf
ai $3,$3,-1
brnz $3,loop
ai $9,$9,-1
brnz $9,outer
stop
leaf: ai $8,$8,1
bi $0
.data
.align 4
data: .word 1,2,3,4
.space 16";
    for fetch in FETCH {
        for (name, source) in [
            ("chain", &chain),
            ("dual", &dual),
            ("call", &call.to_string()),
        ] {
            for slices in [&SLICES[..], &[1_000_000]] {
                let (quiet, heard) = compare(source, Config::cell(), fetch, slices, 1_000_000);
                // Under real fetch the unhinted call and return mispredict every iteration:
                // no repetition stays on the predicted path.
                if fetch == FetchKind::Ideal || name != "call" {
                    assert!(
                        quiet > 0 && heard > 0,
                        "{name}, {fetch:?} fetch: nothing was fast-forwarded ({quiet}, {heard})"
                    );
                }
            }
        }
    }
}

#[test]
fn floating_point_stalls_and_resource_conflicts_repeat_exactly() {
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
    for fetch in FETCH {
        for config in [Config::cell(), Config::celledp()] {
            let (quiet, heard) = compare(&counted(body, 200), config, fetch, &SLICES, 1_000_000);
            assert!(
                quiet > 0 && heard > 0,
                "{fetch:?} fetch: nothing was fast-forwarded ({quiet}, {heard})"
            );
        }
    }
}

#[test]
fn loops_with_checkpoints_channels_and_changing_paths_agree() {
    // A checkpoint every iteration (never skipped over: its line carries the cycle).
    let checkpoint = counted("and $5,$5,$5\na $6,$6,$7\n", 50);
    // The path alternates: a forward branch taken on odd iterations only.
    let alternating = counted(
        "andi $6,$30,1\nbrz $6,even\na $7,$7,$7\nai $8,$8,1\neven: rotqby $9,$9,$10\n",
        120,
    );
    // Every 16th iteration writes the outbound mailbox (the host drains it).
    let mailbox = counted(
        "andi $6,$30,15\nbrnz $6,quiet\nwrch $ch28,$30\nquiet: a $7,$7,$8\nai $9,$9,1\n",
        200,
    );
    // Each iteration stores into its own code; the stored quadword differs from the code
    // only when the counter is 40, and makes that iteration's `ai $9,$9,1` add 2. The path
    // is the same every iteration, so only watching the stores keeps the fast-forward from
    // repeating the old instruction.
    let self_modifying = "il $30,100
ila $20,32
lqd $21,0($20)
ila $25,mask
lqd $24,0($25)
a $22,$21,$24
loop: ceqi $26,$30,40
selb $27,$21,$22,$26
stqd $27,0($20)
a $8,$8,$9
ai $10,$10,2
ai $9,$9,1
ai $30,$30,-1
brnz $30,loop
stop
.data
.align 4
mask: .word 0,0,0,0x4000";
    let mut instruction_mode = unit_with(self_modifying, Config::cell(), Mode::Instruction);
    run_to_stop(&mut instruction_mode, 100_000);
    let nine = instruction_mode.arch().register(9).preferred_word();
    assert_eq!(nine, 101, "the patched iteration added 2");
    for fetch in FETCH {
        for source in [&checkpoint, &mailbox, &self_modifying.to_string()] {
            compare(source, Config::cell(), fetch, &SLICES, 1_000_000);
        }
        let (quiet, heard) = compare(&alternating, Config::cell(), fetch, &SLICES, 1_000_000);
        // Two iterations make the repetition (under real fetch the forward branch, taken
        // every other time, mispredicts then: no repetition stays on the predicted path).
        if fetch == FetchKind::Ideal {
            assert!(
                quiet > 0 && heard > 0,
                "the alternating loop was not fast-forwarded ({quiet}, {heard})"
            );
        }
    }
}

/// A random program: register setup, then an outer loop around an inner loop whose body
/// mixes the classes, loads and stores, forward branches on counter bits (so some paths
/// repeat and some do not) and sometimes a call.
fn random_loops(seed: u64) -> String {
    let mut rng = Rng(seed | 1);
    let mut text = String::new();
    for r in 3..16 {
        text.push_str(&format!("il ${r},{}\n", rng.below(200) as i64 - 100));
    }
    let ops = [
        "a", "sf", "and", "xor", "shl", "rot", "fa", "fm", "mpy", "dfa", "dfm", "rotqby", "shufb",
        "ceq", "selb", "fma", "cntb", "lnop", "nop",
    ];
    text.push_str(&format!(
        "ila $20,data\nil $22,{}\nouter: il $21,{}\nhbrr inner_end,inner\ninner:\n",
        1 + rng.below(3),
        2 + rng.below(40)
    ));
    for i in 0..2 + rng.below(30) {
        let r = |rng: &mut Rng| 3 + rng.below(13);
        let (t, a, b, c) = (r(&mut rng), r(&mut rng), r(&mut rng), r(&mut rng));
        match rng.below(12) {
            0 => text.push_str(&format!("lqd ${t},{}($20)\n", 16 * rng.below(8))),
            1 => text.push_str(&format!("stqd ${t},{}($20)\n", 16 * rng.below(8))),
            2 => text.push_str(&format!(
                "andi $23,$21,{}\nbrz $23,skip{i}\nai ${t},${t},3\nskip{i}:\n",
                1 << rng.below(3)
            )),
            3 => text.push_str("brsl $0,leaf\n"),
            _ => match ops[rng.below(ops.len() as u64) as usize] {
                op @ ("selb" | "shufb" | "fma") => {
                    text.push_str(&format!("{op} ${t},${a},${b},${c}\n"))
                }
                op @ "cntb" => text.push_str(&format!("{op} ${t},${a}\n")),
                op @ ("lnop" | "nop") => text.push_str(&format!("{op}\n")),
                op => text.push_str(&format!("{op} ${t},${a},${b}\n")),
            },
        }
    }
    text.push_str(
        "ai $21,$21,-1\ninner_end: brnz $21,inner\nai $22,$22,-1\nbrnz $22,outer\nstop\n\
         leaf: ai $24,$24,1\nbi $0\n.data\n.align 4\ndata: .space 128\n",
    );
    text
}

#[test]
fn random_loop_programs_agree_cycle_for_cycle() {
    for fetch in FETCH {
        let (mut quiet, mut heard) = (0, 0);
        for seed in 0..200 {
            let source = random_loops(seed);
            let slices = [1 + seed % 5, 40, 333, 5_000, 2];
            let skipped = compare(&source, Config::cell(), fetch, &slices, 200_000);
            quiet += skipped.0;
            heard += skipped.1;
        }
        assert!(
            quiet > 0 && heard > 0,
            "{fetch:?} fetch: nothing was fast-forwarded ({quiet}, {heard})"
        );
    }
}

#[test]
fn statistics_reset_and_flush_between_runs_agree() {
    let source = counted("a $3,$3,$4\nrotqby $5,$5,$6\nfa $7,$7,$8\n", 400);
    for fetch in FETCH {
        let mut fast = pipeline_unit(&source, Config::cell(), fetch, true);
        let mut slow = pipeline_unit(&source, Config::cell(), fetch, false);
        for round in 0..8 {
            for unit in [&mut fast, &mut slow] {
                unit.run(700, &NoProbes, &mut String::new()).unwrap();
                match round % 3 {
                    0 => unit.reset_stats(),
                    1 => unit.set_config(Config::cell()),
                    _ => {}
                }
            }
            assert_same_pipeline(&fast, &slow, &format!("{fetch:?} fetch, round {round}"));
        }
        assert!(
            fast.pipeline().fast_forwarded_cycles() > 0,
            "{fetch:?} fetch"
        );
    }
}

#[test]
fn real_fetch_repetitions_that_store_where_fetch_reads_are_simulated() {
    // Each iteration stores into the line after the loop's code, which the inline buffers
    // load again every iteration: the original quadword while the counter is above 60, from
    // then on one that turns the first `lnop` there into `ai $9,$9,5`. Skipping an iteration
    // would leave the buffers holding the words loaded before the skip, so none is skipped
    // (the mispredict at the loop's exit fetches that line afresh, so the results would not
    // show it: the count of skipped cycles does).
    let near_code = "il $30,100
ila $20,after
lqd $21,0($20)
ila $25,patch
lqd $24,0($25)
hbrr back,loop
loop: cgti $26,$30,60
selb $27,$24,$21,$26
stqd $27,0($20)
a $8,$8,$30
ai $30,$30,-1
back: brnz $30,loop
.align 7
after: lnop
lnop
lnop
lnop
stop
.data
.align 4
patch: .word 0x1c014489,0x00200000,0x00200000,0x00200000";
    let skipped = compare(
        near_code,
        Config::cell(),
        FetchKind::Real,
        &SLICES,
        1_000_000,
    );
    assert_eq!(
        skipped,
        (0, 0),
        "a repetition storing into a line fetch holds was skipped"
    );
    let mut instruction_mode = unit_with(near_code, Config::cell(), Mode::Instruction);
    run_to_stop(&mut instruction_mode, 100_000);
    assert_eq!(
        instruction_mode.arch().register(9).preferred_word(),
        5,
        "the patch ran"
    );
    // The same loop storing far from its code is repeated.
    let far = near_code.replace("ila $20,after", "ila $20,0x1000");
    let (quiet, heard) = compare(&far, Config::cell(), FetchKind::Real, &SLICES, 1_000_000);
    assert!(
        quiet > 0 && heard > 0,
        "the far-storing loop was not fast-forwarded ({quiet}, {heard})"
    );
}
