//! Fuzz target: arbitrary images in pipeline mode against instruction mode. The checks are in `fuzz/checks/pipeline.rs`.
#![no_main]

#[path = "../checks/pipeline.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
