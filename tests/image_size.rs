//! The firmware image carries code, not zeros: the demo's release build, as a raw image
//! (`llvm-objcopy -O binary`), is at most 896 KiB, and its `.data` at most 1 KiB. Static state
//! (the SPU arena, the trace ring, per-core slots and results) must be all-zero bits so that it
//! lands in `.bss`, which the boot code zeroes and the image does not contain; what `.data` keeps
//! is a few words of boot state (32 bytes today). One static whose reset state is not zero bits,
//! such as an `Option` of a type with a niche, is enough to break the limit: the arena alone is
//! about 8 MB. The limit leaves the code room to grow by page-sized steps (`.data` starts on a
//! 4 KiB page, so a few bytes of code can move the image by 4 KiB): it was 512 KiB until the
//! CHAIN model, the objdump-exact disassembler and the event catalogue's names came in, and
//! 576 KiB until the GNU as front end, which the firmware keeps so that it can assemble SPU
//! sources on the board: measured with `llvm-nm --size-sort`, its code is 78 KB (expression
//! evaluator, macro and conditional expander, directives) and `.float`/`.double`'s decimal
//! parsing pulls in core's 15 KB `dec2flt`, for a raw image of 640 KiB. It was 704 KiB until the
//! MFC model (about 28 KB of code: command queue, transfer rules, tag groups, channel services)
//! and the PMU's multiplexing, interval mode and top-down tree (raw image measured 655,392 →
//! 692,256 bytes) took the image to 720,928 bytes, and 768 KiB until the demo's MFC sections
//! (765,984 → 802,848 bytes: 29 KB of code, 23.7 KB of it the three sections and their checks,
//! and 8 KB of `.rodata`, their text and the three kernels, which the firmware carries without
//! comments: 3.9 KB instead of 13 KB; their 2 MiB of main memory is `.bss`), and 832 KiB until
//! perf stat's options in the firmware (`-e`/`-r`/`-x`: 819,232 → 856,096 bytes, measured with
//! `llvm-nm --size-sort` against the build before: 29 KB of code, most of it the perf stat mode
//! inlined into `main` (30.5 KB, with its SysRegPmu multiplexer), the `-e` parser and the
//! modifiers' filters (2.4 KB), filtered counter programming (1.8 KB); and 8.8 KB of
//! `.rodata`, perf's generic event names and the error texts).
mod common;

use std::process::Command;

use common::qemu::{demo_elf, repo};
use common::toolchain::llvm_tool;

const RAW_IMAGE_LIMIT: u64 = 896 * 1024;
const DATA_LIMIT: u64 = 1024;

#[test]
fn release_image_is_at_most_896_kib_and_data_at_most_1_kib() {
    let elf = demo_elf();
    let raw = elf.with_extension("bin");
    let objcopy = llvm_tool(repo(), "llvm-objcopy");
    let status = Command::new(&objcopy)
        .args(["-O", "binary"])
        .arg(&elf)
        .arg(&raw)
        .status()
        .unwrap_or_else(|e| panic!("run {}: {e}", objcopy.display()));
    assert!(status.success(), "llvm-objcopy failed");
    let raw_bytes = std::fs::metadata(&raw).expect("the raw image").len();

    let size = llvm_tool(repo(), "llvm-size");
    let out = Command::new(&size)
        .arg("-A")
        .arg(&elf)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", size.display()));
    let sections = String::from_utf8_lossy(&out.stdout);
    let section = |name: &str| -> u64 {
        sections
            .lines()
            .find_map(|line| {
                let mut fields = line.split_whitespace();
                (fields.next() == Some(name)).then(|| fields.next()?.parse().ok())?
            })
            .unwrap_or(0)
    };
    let data = section(".data");
    println!(
        "raw image {raw_bytes} bytes (limit {RAW_IMAGE_LIMIT}), .data {data} (limit {DATA_LIMIT}), .bss {}",
        section(".bss")
    );
    assert!(
        raw_bytes <= RAW_IMAGE_LIMIT && data <= DATA_LIMIT,
        "the firmware image is too large: raw {raw_bytes} bytes (limit {RAW_IMAGE_LIMIT}), .data {data} bytes (limit {DATA_LIMIT})\n{sections}"
    );
}
