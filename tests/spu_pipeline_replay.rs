//! Under ideal fetch, stage o applies the effect the run-ahead shadow recorded (a register
//! write or a quadword store) instead of interpreting most instructions a second time. That
//! is only right for instructions with no other effect; this test runs every opcode of the
//! table, with random operand fields on random register values (so FPSCR writes, interrupt
//! enables, loads, stores and branches all do something visible), in pipeline mode with ideal
//! fetch and in instruction mode, and requires the whole architectural state to match: the
//! registers, the PC, the status, FPSCR, the interrupt enable, the local store and the
//! instruction count.

use pmprobe::spu::exec::{LS_SIZE, Quadword, SpuState, Status};
use pmprobe::spu::isa::OPCODES;
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

#[path = "support/xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

/// Variants (random operand fields and register values) per opcode.
const VARIANTS: usize = 24;
/// Where the instruction under test sits (after the instruction before it, so a branch or
/// a store has code on both sides).
const TEST_PC: u32 = 0x100;
/// Cycle budget: a random branch may land anywhere (zeroed LS decodes as `stop`).
const MAX_CYCLES: u64 = 2_000;

fn random_quadword(rng: &mut XorShift) -> Quadword {
    Quadword((u128::from(rng.next()) << 64) | u128::from(rng.next()))
}

/// A fresh unit: `a $3,$3,$4` (an ordinary instruction before), the instruction under test,
/// then `stop 0x123`; every register holds a random value.
fn unit_with(word: u32, rng: &mut XorShift, mode: Mode) -> Box<SpuUnit> {
    let mut words = vec![0u32; (TEST_PC / 4) as usize + 3];
    let before = TEST_PC as usize / 4 - 1;
    words[before] = 0x1801_0183; // a $3,$3,$4
    words[before + 1] = word;
    words[before + 2] = 0x0000_0123; // stop 0x123
    let mut unit = Box::new(SpuUnit::new(0));
    unit.load_program_words(&words, TEST_PC - 4)
        .expect("program fits");
    for register in 0..128u8 {
        let value = random_quadword(rng);
        unit.arch_mut().set_register(register, value);
    }
    unit.set_mode(mode);
    unit.set_fetch(FetchKind::Ideal).expect("ideal fetch");
    unit
}

fn run(unit: &mut SpuUnit) {
    let mut budget = MAX_CYCLES;
    while budget > 0 {
        let outcome = unit
            .run(budget, &NoProbes, &mut Discard)
            .expect("no model error");
        budget = budget.saturating_sub(outcome.cycles.max(1));
        match unit.arch().status() {
            Status::Running => {}
            // A channel wait or a stop ends the comparison (both modes end there).
            Status::Blocked { .. } | Status::Stopped(_) => break,
        }
    }
}

fn assert_same_state(pipelined: &SpuState, functional: &SpuState, context: &str) {
    assert_eq!(pipelined.pc(), functional.pc(), "{context}: PC");
    assert_eq!(pipelined.status(), functional.status(), "{context}: status");
    assert_eq!(
        pipelined.instructions_retired(),
        functional.instructions_retired(),
        "{context}: instruction count"
    );
    assert_eq!(pipelined.fpscr(), functional.fpscr(), "{context}: FPSCR");
    assert_eq!(
        pipelined.interrupts_enabled(),
        functional.interrupts_enabled(),
        "{context}: interrupt enable"
    );
    for (index, (a, b)) in pipelined
        .registers()
        .iter()
        .zip(functional.registers())
        .enumerate()
    {
        assert_eq!(a, b, "{context}: ${index}");
    }
    for address in (0..LS_SIZE).step_by(16) {
        assert_eq!(
            pipelined.local_store().load_quadword(address),
            functional.local_store().load_quadword(address),
            "{context}: LS quadword {address:#x}"
        );
    }
}

#[test]
fn every_opcode_leaves_the_same_state_in_pipeline_and_instruction_mode() {
    let mut rng = XorShift(0x5eed_0fa1_1c0d_e000);
    for info in OPCODES.iter() {
        for variant in 0..VARIANTS {
            let operand_mask = u32::MAX >> info.format.opcode_bits();
            let word = info.base_word() | (rng.next() as u32 & operand_mask);
            let seed = rng.next() | 1;
            let mut pipelined = unit_with(word, &mut XorShift(seed), Mode::Pipeline);
            let mut functional = unit_with(word, &mut XorShift(seed), Mode::Instruction);
            run(&mut pipelined);
            run(&mut functional);
            let context = format!("{:?} variant {variant} (word {word:#010x})", info.mnemonic);
            assert_same_state(pipelined.arch(), functional.arch(), &context);
        }
    }
}
