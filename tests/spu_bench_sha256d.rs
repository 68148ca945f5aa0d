//! The straight-line benchmark kernel `benches/spu/sha256d.s` (SHA-256d of a Bitcoin block
//! header, four nonces at a time, three fully unrolled compressions per pass) computes the
//! right hash in both modes, shortened to three passes.
//!
//! Expected values from outside: the Bitcoin genesis block's hash is
//! `000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f` (the block explorers'
//! and Bitcoin Core's `chainparams.cpp` `hashGenesisBlock`), so the digest's words, bytes
//! reversed, are 6fe28c0a b6f1b372 c1a6a246 ae63f74f 931e8365 e15a089c 68d61900 00000000; its
//! nonce is 2083236893 (0x7c2bac1d). The kernel stops with 0x2000 only when lane 0 of its last
//! pass has that nonce and that digest (0x2001 otherwise), so a wrong SHA-256 fails here.

use pmprobe::spu::exec::{LS_SIZE, RunEnd, StopReason};
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::unit::{Mode, SpuUnit};

/// The genesis hash's digest words (see the module documentation).
const GENESIS_DIGEST: [u32; 8] = [
    0x6fe2_8c0a,
    0xb6f1_b372,
    0xc1a6_a246,
    0xae63_f74f,
    0x931e_8365,
    0xe15a_089c,
    0x68d6_1900,
    0,
];

/// The kernel with 3 passes instead of 4,000 (the `iohl` at `_start` holds the count).
fn source() -> String {
    let full = include_str!("../benches/spu/sha256d.s");
    let shortened = full.replacen("iohl    $62, 0xfa0", "iohl    $62, 3", 1);
    assert_ne!(
        shortened, full,
        "the pass count is where the test expects it"
    );
    shortened
}

fn run(mode: Mode, fetch: FetchKind) -> Box<SpuUnit> {
    let mut image = vec![0u8; LS_SIZE as usize];
    let program = assemble::<1024>(&source(), &mut image).expect("the kernel assembles");
    let mut unit = Box::new(SpuUnit::new(0));
    unit.set_fetch(fetch).unwrap();
    unit.set_mode(mode);
    unit.load_program(&image[..program.len], program.entry)
        .unwrap();
    let outcome = unit
        .run(10_000_000, &NoProbes, &mut String::new())
        .expect("no model error");
    assert!(
        matches!(
            outcome.end,
            RunEnd::Stopped(StopReason::Stop { signal: 0x2000, .. })
        ),
        "{mode:?} {fetch:?}: the genesis hash in lane 0 of the last pass: {:?}",
        outcome.end
    );
    unit
}

#[test]
fn the_kernel_finds_the_genesis_hash_in_both_modes() {
    let instruction = run(Mode::Instruction, FetchKind::Real);
    for (register, word) in (11u8..).zip(GENESIS_DIGEST) {
        assert_eq!(
            instruction.arch().register(register).words()[0],
            word,
            "${register}"
        );
    }
    // The nonces of the last pass: lane 0 the genesis nonce.
    assert_eq!(
        instruction.arch().register(70).words(),
        [2_083_236_893, 2_083_236_894, 2_083_236_895, 2_083_236_896]
    );
    // 3 passes of 6,853 instructions and the prologue and check around them.
    let instructions = instruction.arch().instructions_retired();
    assert!(
        (3 * 6_853..3 * 6_853 + 100).contains(&instructions),
        "{instructions}"
    );
    for fetch in [FetchKind::Real, FetchKind::Ideal] {
        let pipeline = run(Mode::Pipeline, fetch);
        assert_eq!(
            pipeline.arch().registers(),
            instruction.arch().registers(),
            "{fetch:?}"
        );
        assert_eq!(pipeline.arch().instructions_retired(), instructions);
    }
}
