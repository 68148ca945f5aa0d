//! The firmware image carries code, not zeros: the demo's release build, as a raw image
//! (`llvm-objcopy -O binary`), is at most 960 KiB, and its `.data` at most 1 KiB.
//!
//! Static state (the SPU arena, the trace rings, per-core slots and results, the MFC part's
//! 2 MiB of main memory) must be all-zero bits so that it lands in `.bss`, which the boot code
//! zeroes and the image does not contain; what `.data` keeps is a few words of boot state. One
//! static whose reset state is not zero bits, such as an `Option` of a type with a niche, is
//! enough to break the limit: the arena alone is about 5 MB.
//!
//! The raw-image budget is the demo's code and read-only data (everything pmprobe has, the
//! assembler and the demo's sections) with room for the code to grow by a few pages: `.data`
//! starts on a 4 KiB page, so a few bytes of code can move the image by 4 KiB. A change that
//! needs more raises it in its own commit, saying what took the room and how it was measured
//! (`llvm-nm --size-sort` against the build before); `git log -p tests/image_size.rs` has
//! those steps. What each part of pmprobe costs on its own is `tests/embed_size.rs`.
mod common;

use std::process::Command;

use common::qemu::{demo_elf, repo};
use common::toolchain::llvm_tool;

const RAW_IMAGE_LIMIT: u64 = 960 * 1024;
const DATA_LIMIT: u64 = 1024;

#[test]
fn release_image_is_at_most_960_kib_and_data_at_most_1_kib() {
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
