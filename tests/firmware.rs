//! One test binary for the firmware's (built for `aarch64-unknown-none`: the image budgets, and the
//! QEMU guests run under `qemu-system-aarch64`; together so that their release builds, each mostly
//! on one core, overlap) integration tests: each file below is a module of it (why one binary per
//! area: the README's "Tests"). Each file declares the support modules it uses itself, so a support
//! module two files use is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "embed_size.rs"]
mod embed_size;
#[path = "image_size.rs"]
mod image_size;
#[path = "qemu_ctf.rs"]
mod qemu_ctf;
#[path = "qemu_demo.rs"]
mod qemu_demo;
#[path = "qemu_demo_machines.rs"]
mod qemu_demo_machines;
#[path = "qemu_embedded.rs"]
mod qemu_embedded;
#[path = "qemu_observe.rs"]
mod qemu_observe;
#[path = "qemu_perf_stat.rs"]
mod qemu_perf_stat;
#[path = "qemu_pmu.rs"]
mod qemu_pmu;
#[path = "qemu_probe.rs"]
mod qemu_probe;
#[path = "qemu_raspi3b.rs"]
mod qemu_raspi3b;
#[path = "qemu_rt.rs"]
mod qemu_rt;
#[path = "qemu_spu_elf.rs"]
mod qemu_spu_elf;
#[path = "qemu_spu_runtime.rs"]
mod qemu_spu_runtime;
