//! The fuzz targets' checks on stable Rust, without cargo-fuzz: every committed seed
//! (`fuzz/corpus/<target>/`) and a fixed set of pseudo-random inputs and seed mutations go
//! through the same `check` functions the targets run (`fuzz/checks/<target>.rs`), so CI
//! exercises the invariants even where nightly is missing. Deterministic (xorshift PRNG).

#[path = "../fuzz/checks/asm_roundtrip.rs"]
mod asm_roundtrip;
#[path = "../fuzz/checks/assemble.rs"]
mod assemble;
#[path = "../fuzz/checks/decode_execute.rs"]
mod decode_execute;
#[path = "../fuzz/checks/pipeline.rs"]
mod pipeline;
#[path = "../fuzz/checks/pmu.rs"]
mod pmu;
#[path = "../fuzz/checks/pmu_extension.rs"]
mod pmu_extension;
#[path = "../fuzz/checks/probe.rs"]
mod probe;
#[path = "../fuzz/checks/stack_distance.rs"]
mod stack_distance;
#[path = "../fuzz/checks/trace_decode.rs"]
mod trace_decode;

use std::path::PathBuf;

#[path = "support/xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("list {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    files.sort();
    let seeds: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|path| {
            let data = std::fs::read(&path).expect("read a seed");
            (path.display().to_string(), data)
        })
        .collect();
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    seeds
}

/// A seed with a few bytes overwritten, inserted or removed (what a fuzzer does first).
fn mutate(rng: &mut XorShift, seed: &[u8]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(3) {
            0 if !data.is_empty() => {
                let at = rng.below(data.len());
                data[at] = rng.next() as u8;
            }
            1 => {
                let at = rng.below(data.len() + 1);
                data.insert(at, rng.next() as u8);
            }
            _ if !data.is_empty() => {
                let at = rng.below(data.len());
                data.remove(at);
            }
            _ => {}
        }
    }
    data
}

/// Runs `check` on every seed, `mutations` mutations of each and `random` random inputs of up
/// to `max_len` bytes; a failing input is named (seed path or generator index) by the panic.
fn exercise(
    target: &str,
    check: fn(&[u8]),
    mutations: usize,
    random: usize,
    max_len: usize,
) -> usize {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D ^ target.len() as u64);
    let mut runs = 0;
    for (name, seed) in seeds(target) {
        eprintln!("{target}: seed {name}");
        check(&seed);
        runs += 1;
        for _ in 0..mutations {
            check(&mutate(&mut rng, &seed));
            runs += 1;
        }
    }
    for _ in 0..random {
        let len = rng.below(max_len + 1);
        check(&rng.bytes(len));
        runs += 1;
    }
    runs
}

#[test]
fn assemble_checks_hold_on_seeds_and_random_text() {
    let runs = exercise("assemble", assemble::check, 500, 2000, 300);
    assert!(runs > 700);
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
