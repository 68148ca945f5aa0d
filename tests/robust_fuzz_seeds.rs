//! The fuzz targets' checks on stable Rust, without cargo-fuzz: every committed seed
//! (`fuzz/corpus/<target>/`) and a fixed set of pseudo-random inputs and seed mutations go
//! through the same `check` functions the targets run (`fuzz/checks/<target>.rs`), so CI
//! exercises the invariants even where nightly is missing. Deterministic (xorshift PRNG).
//! The `spusim_options` target's checks call spusim, so they run in spusim's package
//! (`tools/spusim/tests/fuzz_seeds.rs`).

// Checks are written to be their own crates (fuzz targets); here several live in one, so
// `fuzz/checks/byte_stream.rs`, which two of them include, is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "../fuzz/checks/asm_expression.rs"]
mod asm_expression;
#[path = "../fuzz/checks/asm_macro.rs"]
mod asm_macro;
#[path = "../fuzz/checks/asm_roundtrip.rs"]
mod asm_roundtrip;
#[path = "../fuzz/checks/assemble.rs"]
mod assemble;
#[path = "../fuzz/checks/decode_execute.rs"]
mod decode_execute;
#[path = "../fuzz/checks/mfc.rs"]
mod mfc;
#[path = "../fuzz/checks/pipeline.rs"]
mod pipeline;
#[path = "../fuzz/checks/pmu.rs"]
mod pmu;
#[path = "../fuzz/checks/pmu_extension.rs"]
mod pmu_extension;
#[path = "../fuzz/checks/probe.rs"]
mod probe;
#[path = "../fuzz/checks/spu_elf.rs"]
mod spu_elf;
#[path = "../fuzz/checks/spu_printf.rs"]
mod spu_printf;
#[path = "../fuzz/checks/stack_distance.rs"]
mod stack_distance;
#[path = "../fuzz/checks/trace_decode.rs"]
mod trace_decode;

use std::path::Path;

#[path = "support/fuzz_seeds.rs"]
mod fuzz_seeds;

/// `fuzz_seeds::exercise` over this repository's corpus.
fn exercise(
    target: &str,
    check: fn(&[u8]),
    mutations: usize,
    random: usize,
    max_len: usize,
) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    fuzz_seeds::exercise(root, target, check, mutations, random, max_len)
}

#[test]
fn assemble_checks_hold_on_seeds_and_random_text() {
    let runs = exercise("assemble", assemble::check, 500, 2000, 300);
    assert!(runs > 700);
}

#[test]
fn asm_expression_checks_hold_on_seeds_and_random_expressions() {
    let runs = exercise("asm_expression", asm_expression::check, 300, 3000, 200);
    assert!(runs > 3000);
}

#[test]
fn asm_macro_checks_hold_on_seeds_and_random_macros() {
    let runs = exercise("asm_macro", asm_macro::check, 300, 3000, 200);
    assert!(runs > 3000);
}

#[test]
fn asm_roundtrip_checks_hold_on_seeds_and_random_programs() {
    let runs = exercise("asm_roundtrip", asm_roundtrip::check, 100, 300, 2000);
    assert!(runs > 300);
}

#[test]
fn decode_execute_checks_hold_on_seeds_and_random_images() {
    let runs = exercise("decode_execute", decode_execute::check, 200, 1000, 2048);
    assert!(runs > 1000);
}

#[test]
fn pipeline_checks_hold_on_seeds_and_random_images() {
    let runs = exercise("pipeline", pipeline::check, 60, 300, 600);
    assert!(runs > 100);
}

#[test]
fn pmu_checks_hold_on_seeds_and_random_operation_sequences() {
    let runs = exercise("pmu", pmu::check, 300, 1000, 600);
    assert!(runs > 300);
}

#[test]
fn pmu_extension_checks_hold_on_seeds_and_random_operation_sequences() {
    let runs = exercise("pmu_extension", pmu_extension::check, 300, 2000, 600);
    assert!(runs > 2000);
}

#[test]
fn probe_checks_hold_on_seeds_and_random_operation_sequences() {
    let runs = exercise("probe", probe::check, 500, 2000, 300);
    assert!(runs > 700);
}

#[test]
fn stack_distance_checks_hold_on_seeds_and_random_streams() {
    let runs = exercise("stack_distance", stack_distance::check, 300, 2000, 1200);
    assert!(runs > 2000);
}

#[test]
fn trace_decode_checks_hold_on_seeds_and_random_bytes() {
    let runs = exercise("trace_decode", trace_decode::check, 500, 3000, 400);
    assert!(runs > 3000);
}

#[test]
fn spu_elf_checks_hold_on_seeds_and_random_files() {
    let runs = exercise("spu_elf", spu_elf::check, 500, 2000, 600);
    assert!(runs > 2000);
}

#[test]
fn mfc_checks_hold_on_seeds_and_random_operation_sequences() {
    let runs = exercise("mfc", mfc::check, 200, 600, 400);
    assert!(runs > 600);
}

#[test]
fn spu_printf_checks_hold_on_seeds_and_random_formats() {
    let runs = exercise("spu_printf", spu_printf::check, 500, 2000, 200);
    assert!(runs > 700);
}
