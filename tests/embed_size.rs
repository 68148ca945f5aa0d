//! What pmprobe costs in an embedder's firmware: the small configurations of
//! `tests/embed_size/` (the PMU driver alone; + probe points and listeners; + one SPU in
//! instruction mode; + pipeline mode; + the assembler; the PMU with the event catalogue's
//! names), each linked for `aarch64-unknown-none` as an embedder links pmprobe
//! (`default-features = false`, release, LTO, and the linker's `--gc-sections`, which rustc
//! passes), and their `.text`, `.rodata` and `.bss` read from the ELF's section headers.
//! Pipeline mode and the assembler are measured with pmprobe's `spu-lean` too, as
//! `examples/embedded` takes it on a board.
//!
//! Each configuration has a budget per section: a change that makes one grow past it says so
//! here, with the table (docs/embedding.md holds the same table). The goal for the PMU driver
//! with probe points, under 32 KiB of `.text`, is kept by the `probes` row's budget, 20 KiB.
//!
//! The event catalogue's names are in a firmware's image only when it asks for them: the
//! string of an architecture event that no code names (`L2D_CACHE_ALLOCATE`, from Arm's
//! catalogue) is in the loaded sections of the configuration that prints event names and in
//! no other one. Descriptions are in none (bare-metal builds keep no descriptions).
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::qemu::repo;
use common::toolchain::{TARGET, set_up_machine};
use elf::ElfBytes;
use elf::abi::SHF_ALLOC;
use elf::endian::AnyEndian;

const KIB: u64 = 1024;

/// One configuration: its binary, whether it is built with `spu-lean`, and its budgets for
/// `.text`, `.rodata` and `.bss`, in KiB.
struct Configuration {
    name: &'static str,
    lean: bool,
    budget: [u64; 3],
}

/// Budgets: the sizes measured when the test was written (rustc 1.95.0, docs/embedding.md)
/// with room for the code to grow by about a fifth.
const CONFIGURATIONS: [Configuration; 9] = [
    // The entry symbol and the panic handler: what every row has besides pmprobe.
    config("baseline", false, [1, 1, 1]),
    config("pmu", false, [12, 2, 1]),
    // The goal: under 32 KiB of .text.
    config("probes", false, [20, 2, 1]),
    config("spu_instruction", false, [80, 20, 300]),
    config("spu_pipeline", false, [272, 26, 960]),
    config("assembler", false, [432, 56, 960]),
    config("spu_pipeline", true, [232, 26, 640]),
    config("assembler", true, [392, 56, 640]),
    config("event_names", false, [24, 44, 1]),
];

const fn config(name: &'static str, lean: bool, budget: [u64; 3]) -> Configuration {
    Configuration { name, lean, budget }
}

const SECTIONS: [&str; 3] = [".text", ".rodata", ".bss"];

/// An architecture event's name and description from Arm's catalogue, which no code of
/// pmprobe's or of the configurations names.
const EVENT_NAME: &str = "L2D_CACHE_ALLOCATE";
const EVENT_DESCRIPTION: &str = "Level 2 data cache allocation without refill";

/// Builds the configurations (`lean`: with pmprobe's `spu-lean`, the SPU ones only) and
/// returns the folder of their ELF files. One target folder each, kept between runs.
fn build(lean: bool) -> PathBuf {
    set_up_machine(repo());
    let target_dir = repo().join("target").join(if lean {
        "embed-size-lean"
    } else {
        "embed-size"
    });
    let manifest = repo().join("tests/embed_size/Cargo.toml");
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(repo())
        .env("CARGO_TARGET_DIR", &target_dir)
        .args(["build", "--release", "--target", TARGET, "--manifest-path"])
        .arg(&manifest);
    if lean {
        command.args([
            "--features",
            "lean",
            "--bin",
            "spu_pipeline",
            "--bin",
            "assembler",
        ]);
    } else {
        command.arg("--bins");
    }
    let out = command.output().expect("run cargo");
    assert!(
        out.status.success(),
        "building tests/embed_size failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    target_dir.join(TARGET).join("release")
}

/// What one configuration's ELF holds: the bytes of each of [`SECTIONS`] (with their
/// `.name.*` input sections, if the linker kept them apart), and the contents of every
/// section that is loaded (the image and its `.bss`).
struct Measured {
    sizes: [u64; 3],
    loaded: Vec<u8>,
}

fn measure(path: &Path) -> Measured {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = ElfBytes::<AnyEndian>::minimal_parse(&data).expect("an ELF file");
    let (headers, names) = file.section_headers_with_strtab().expect("section headers");
    let (headers, names) = (headers.expect("section headers"), names.expect("names"));
    let mut sizes = [0; 3];
    let mut loaded = Vec::new();
    for header in headers {
        let name = names.get(header.sh_name as usize).unwrap_or("");
        for (slot, section) in SECTIONS.iter().enumerate() {
            if name == *section || name.starts_with(&format!("{section}.")) {
                sizes[slot] += header.sh_size;
            }
        }
        if header.sh_flags & u64::from(SHF_ALLOC) != 0 {
            let (bytes, _) = file.section_data(&header).expect("section data");
            loaded.extend_from_slice(bytes);
        }
    }
    Measured { sizes, loaded }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

fn row_name(config: &Configuration) -> String {
    if config.lean {
        format!("{} (spu-lean)", config.name)
    } else {
        config.name.to_string()
    }
}

#[test]
fn each_configuration_stays_within_its_budget_and_names_come_only_when_asked_for() {
    let full = build(false);
    let lean = build(true);
    let mut failures = Vec::new();
    println!(
        "{:<26} {:>9} {:>9} {:>9}   budget KiB (.text/.rodata/.bss)",
        "configuration", ".text", ".rodata", ".bss"
    );
    for config in &CONFIGURATIONS {
        let folder = if config.lean { &lean } else { &full };
        let measured = measure(&folder.join(config.name));
        let [text, rodata, bss] = measured.sizes;
        let [text_kib, rodata_kib, bss_kib] = config.budget;
        println!(
            "{:<26} {text:>9} {rodata:>9} {bss:>9}   {text_kib}/{rodata_kib}/{bss_kib}",
            row_name(config)
        );
        for ((section, size), budget) in SECTIONS.iter().zip(measured.sizes).zip(config.budget) {
            if size > budget * KIB {
                failures.push(format!(
                    "{}: {section} is {size} bytes, over its budget of {budget} KiB",
                    row_name(config)
                ));
            }
        }
        let has_name = contains(&measured.loaded, EVENT_NAME);
        if has_name != (config.name == "event_names") {
            failures.push(format!(
                "{}: the event catalogue's name {EVENT_NAME} is {} its image",
                row_name(config),
                if has_name { "in" } else { "not in" }
            ));
        }
        if contains(&measured.loaded, EVENT_DESCRIPTION) {
            failures.push(format!(
                "{}: an event description is in its image",
                row_name(config)
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
