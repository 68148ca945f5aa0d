//! Fuzz target: arbitrary access streams through the stack distance calculator against a naive LRU stack. The checks are in `fuzz/checks/stack_distance.rs`.
#![no_main]

#[path = "../checks/stack_distance.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
