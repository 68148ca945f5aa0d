//! QEMU test: a firmware embeds an SPU ELF executable, loads it with the library's reader and
//! runs it on an SPU (tests/guest/src/bin/spu_elf.rs).
mod common;

use common::qemu::{Options, run_guest};

#[test]
fn an_embedded_spu_elf_loads_and_runs_on_bare_metal() {
    let run = run_guest("spu_elf", &Options::default());
    run.assert_passed();
    for check in [
        "elf_symbol_dot",
        "elf_symbol_names_branch_target",
        "spu_dot_product",
        "spu_breakpoint_by_symbol",
        "cut_elf_refused",
    ] {
        assert_eq!(run.check(check), Some(true), "{check}\n{}", run.stdout);
    }
}
