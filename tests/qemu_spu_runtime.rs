//! QEMU test: a firmware runs a PS3 SPU thread's program (an SPU ELF that calls `spu_printf`
//! and exits through lv2) under the library's lv2 runtime, heap-free, in both modes
//! (tests/guest/src/bin/spu_runtime.rs).
mod common;

use common::qemu::{Options, run_guest};

#[test]
fn an_lv2_program_prints_and_exits_on_bare_metal() {
    let run = run_guest("spu_runtime", &Options::default());
    run.assert_passed();
    for check in ["thread_exit_status_7", "spu_printf_text"] {
        assert_eq!(run.check(check), Some(true), "{check}\n{}", run.stdout);
    }
}
