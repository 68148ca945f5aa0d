//! The `spusim_options` fuzz target's checks on stable Rust: its committed seeds, mutations
//! and random argument vectors (the other targets' checks run in `tests/robust_fuzz_seeds.rs`;
//! this one calls spusim, so it runs in spusim's package).

#[path = "../../../fuzz/checks/spusim_options.rs"]
mod spusim_options;

#[path = "../../../tests/support/fuzz_seeds.rs"]
mod seeds;

use std::path::Path;

#[test]
fn spusim_options_checks_hold_on_seeds_and_random_arguments() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let runs = seeds::exercise(&root, "spusim_options", spusim_options::check, 40, 300, 200);
    assert!(runs > 300);
}
