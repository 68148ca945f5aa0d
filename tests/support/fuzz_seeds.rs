//! Running a fuzz target's `check` on stable Rust, without cargo-fuzz: every committed seed
//! (`fuzz/corpus/<target>/`), mutations of each and pseudo-random inputs. Deterministic
//! (xorshift), so a failure repeats. Shared by `tests/robust_fuzz_seeds.rs` and spusim's
//! `tools/spusim/tests/fuzz_seeds.rs` (a target whose checks call spusim runs in spusim's
//! package), both include it with `#[path]`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

#[path = "xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

/// The committed seeds of `target`, sorted by file name, under the repository at `root`.
pub fn seeds(root: &Path, target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = root.join("fuzz/corpus").join(target);
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
pub fn mutate(rng: &mut XorShift, seed: &[u8]) -> Vec<u8> {
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

/// Runs `check` on every seed of `target` (under the repository at `root`), `mutations`
/// mutations of each and `random` random inputs of up to `max_len` bytes; a failing input is
/// named (seed path) by the output before the panic. Returns the number of runs.
pub fn exercise(
    root: &Path,
    target: &str,
    check: fn(&[u8]),
    mutations: usize,
    random: usize,
    max_len: usize,
) -> usize {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D ^ target.len() as u64);
    let mut runs = 0;
    for (name, seed) in seeds(root, target) {
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
