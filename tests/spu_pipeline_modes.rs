//! Pipeline mode computes what instruction mode computes; mode switches keep the
//! architectural state; the static arena runs eight SPUs independently.

mod spu_pipeline_support;

use std::sync::Mutex;

use pmprobe::spu::arena::{Arena, SPU_COUNT};
use pmprobe::spu::pipeline::Config;
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::pipeline::RunEnd;
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};
use spu_pipeline_support::{
    assert_same_architecture, load, random_program, run_to_stop, unit_with,
};

fn run_mode(source: &str, mode: Mode) -> Box<SpuUnit> {
    let mut unit = unit_with(source, Config::cell(), mode);
    run_to_stop(&mut unit, 1_000_000);
    unit
}

#[test]
fn pipeline_mode_results_equal_instruction_mode() {
    for seed in 1..=12u64 {
        let source = random_program(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let functional = run_mode(&source, Mode::Instruction);
        for config in [Config::cell(), Config::celledp()] {
            let mut pipelined = unit_with(&source, config, Mode::Pipeline);
            run_to_stop(&mut pipelined, 1_000_000);
            assert_same_architecture(&functional, &pipelined, &format!("seed {seed}"));
            pipelined.stats().check_identities().unwrap();
        }
    }
}

#[test]
fn switching_modes_mid_run_keeps_the_architectural_state() {
    let source = random_program(77);
    let reference = run_mode(&source, Mode::Instruction);
    let mut unit = unit_with(&source, Config::cell(), Mode::Pipeline);
    let mut slices = 0;
    loop {
        let outcome = unit.run(37, &NoProbes, &mut Discard).unwrap();
        if let RunEnd::Stopped(_) = outcome.end {
            break;
        }
        let next = match unit.mode() {
            Mode::Pipeline => Mode::Instruction,
            Mode::Instruction => Mode::Pipeline,
        };
        unit.set_mode(next);
        slices += 1;
        assert!(slices < 100_000);
    }
    assert!(slices > 4, "the program should span several slices");
    assert_same_architecture(&reference, &unit, "alternating modes");
}

#[test]
fn fetch_model_can_be_switched_both_ways() {
    let mut unit = Box::new(SpuUnit::new(0));
    assert_eq!(unit.pipeline().fetch_kind(), FetchKind::Ideal);
    unit.set_fetch(FetchKind::Real).unwrap();
    assert_eq!(unit.pipeline().fetch_kind(), FetchKind::Real);
    unit.set_fetch(FetchKind::Ideal).unwrap();
    assert_eq!(unit.pipeline().fetch_kind(), FetchKind::Ideal);
}

#[test]
fn code_written_just_before_it_runs_behaves_as_in_instruction_mode() {
    // The store replaces the quadword at `target` (il $6,1..4) with `il $6,50; stop` before
    // it executes. Fetch reads words in program order from the run-ahead state, so the
    // pipeline executes the new code, as instruction mode does.
    let source = "ila $3,src\nlqd $4,0($3)\nila $5,target\nstqd $4,0($5)\n.align 4\ntarget: il $6,1\nil $6,2\nil $6,3\nil $6,4\nil $7,99\nstop\n.align 4\nsrc: il $6,50\nstop\nnop\nnop";
    let functional = run_mode(source, Mode::Instruction);
    let pipelined = run_mode(source, Mode::Pipeline);
    assert_eq!(functional.arch().register(6).preferred_word(), 50);
    assert_eq!(functional.arch().register(7).preferred_word(), 0);
    assert_same_architecture(&functional, &pipelined, "patched code");
}

/// Straight-line code longer than fetch's small decode cache (512 instructions), run twice,
/// with a quadword in its middle rewritten between the passes: pipeline mode keeps decoded
/// instructions behind that cache too (in the memory instruction mode decodes into), and must
/// run the new words there, in both fetch models, and hand the memory back to instruction
/// mode intact when the mode changes.
#[test]
fn long_straight_line_code_rewritten_between_passes_runs_the_new_words() {
    // 1 200 `ai $20,$20,1` a pass; the store puts `ai $20,$20,100` at the first of the four
    // words at `patch` (word 600). Pass 1 adds 1 200, pass 2 adds 1 199 + 100: $20 = 2 499.
    let ones = |n: usize| "ai $20,$20,1\n".repeat(n);
    let source = format!(
        "il $10,0\nil $20,0\nbr loop\n.align 4\nloop:\n{}.align 4\npatch:\n{}\
         ai $10,$10,1\nila $3,src\nlqd $4,0($3)\nila $5,patch\nstqd $4,0($5)\n\
         ceqi $11,$10,2\nbrz $11,loop\nstop\n.align 4\n\
         src: ai $20,$20,100\nai $20,$20,1\nai $20,$20,1\nai $20,$20,1\n",
        ones(600),
        ones(600)
    );
    let functional = run_mode(&source, Mode::Instruction);
    assert_eq!(functional.arch().register(20).preferred_word(), 2_499);
    for fetch in [FetchKind::Ideal, FetchKind::Real] {
        let mut pipelined = unit_with(&source, Config::cell(), Mode::Pipeline);
        pipelined.set_fetch(fetch).unwrap();
        run_to_stop(&mut pipelined, 10_000_000);
        assert_same_architecture(&functional, &pipelined, &format!("{fetch:?} fetch"));
        // The same code again in instruction mode, then in pipeline mode, on the same SPU:
        // each mode finds its decoded code as it left the other's.
        for mode in [Mode::Instruction, Mode::Pipeline] {
            load(&mut pipelined, &source);
            pipelined.set_mode(mode);
            run_to_stop(&mut pipelined, 10_000_000);
            assert_same_architecture(&functional, &pipelined, &format!("{fetch:?}, {mode:?}"));
        }
    }
}

static ARENA: Mutex<Arena> = Mutex::new(Arena::new());

/// SPU i sums 1..=(10 + i) in a loop and stores the sum at `result`.
fn sum_program(i: usize) -> String {
    format!(
        "il $3,{}\nil $4,0\nloop: a $4,$4,$3\nai $3,$3,-1\nbrnz $3,loop\nila $5,result\nstqd $4,0($5)\nstop\n.data\n.align 4\nresult: .space 16",
        10 + i
    )
}

#[test]
fn arena_runs_eight_spus_with_different_programs_and_modes() {
    let mut arena = ARENA.lock().unwrap();
    assert!(arena.get(SPU_COUNT).is_err());
    for (i, unit) in arena.units_mut().iter_mut().enumerate() {
        assert_eq!(usize::from(unit.id()), i);
        load(unit, &sum_program(i));
        unit.set_mode(if i % 2 == 0 {
            Mode::Pipeline
        } else {
            Mode::Instruction
        });
        if i == 4 {
            unit.set_config(Config::celledp());
        }
    }
    // Round-robin in slices of 10 cycles; SPU 6 switches mode half way.
    let mut done = [false; SPU_COUNT];
    let mut round = 0;
    while !done.iter().all(|&d| d) {
        for (i, unit) in arena.units_mut().iter_mut().enumerate() {
            if done[i] {
                continue;
            }
            if i == 6 && round == 3 {
                unit.set_mode(Mode::Instruction);
            }
            let outcome = unit.run(10, &NoProbes, &mut Discard).unwrap();
            done[i] = matches!(outcome.end, RunEnd::Stopped(_));
        }
        round += 1;
        assert!(round < 10_000);
    }
    for (i, unit) in arena.units().iter().enumerate() {
        let n = 10 + i as u32;
        assert_eq!(
            unit.arch().register(4).preferred_word(),
            n * (n + 1) / 2,
            "SPU{i}"
        );
        let instructions = 2 + 3 * u64::from(n) + 3;
        assert_eq!(unit.arch().instructions_retired(), instructions, "SPU{i}");
    }
    // Pipeline-mode SPUs kept cycle statistics; instruction-mode ones none.
    assert!(arena.get(0).unwrap().stats().cycles > 0);
    assert_eq!(arena.get(1).unwrap().stats().cycles, 0);
    // SPU0 and SPU2 run the same loop shape with different counts: more work, more cycles.
    assert!(arena.get(2).unwrap().stats().cycles > arena.get(0).unwrap().stats().cycles);
}

#[test]
fn example_programs_give_the_same_results_in_both_modes() {
    let examples = [
        ("call.s", include_str!("../spu/programs/call.s")),
        ("dot.s", include_str!("../spu/programs/dot.s")),
        ("loop.s", include_str!("../spu/programs/loop.s")),
        ("memcpy.s", include_str!("../spu/programs/memcpy.s")),
    ];
    for (name, source) in examples {
        let functional = run_mode(source, Mode::Instruction);
        let pipelined = run_mode(source, Mode::Pipeline);
        assert_same_architecture(&functional, &pipelined, name);
        // The pipeline never completes more than two instructions per cycle.
        let stats = pipelined.stats();
        assert!(stats.cycles * 2 >= stats.instructions, "{name}");
        stats.check_identities().unwrap();
    }
}
