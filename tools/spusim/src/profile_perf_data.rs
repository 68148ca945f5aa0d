//! `--profile-perf-data FILE`: the exact per-function profile as a perf.data file, written with
//! pmprofile's perf.data writer, so stock `perf report`, `perf report -g` and `perf script`
//! read it.
//!
//! The SPU program's ELF is the binary: an `MMAP2` of its executable segment, its build id when
//! it has one (`spu-ld` writes none unless linked with `--build-id`; then perf opens the file by
//! its path unchecked). One sample per call path and PC the run charged, its period the cycles
//! charged there (instruction mode: the instructions), so perf's shares are the profile's
//! exact ones. The event is `cycles` (instruction mode: `instructions`); each SPU is a `cpu`.
//! The call chain is the call sites of the path's frames (for a path entered from several
//! sites, the first). Times are an order, not a clock: each sample's time is the cycles of
//! the samples before it on its SPU.

use std::path::Path;

use pmprofile::perf_data::{
    self, Firmware, HW_CPU_CYCLES, HW_INSTRUCTIONS, PerfEventAttrType, PerfSample, Recording,
};

use crate::exit::Failure;
use crate::function_profile::Tree;
use crate::profile_output::SpuProfile;

/// The process name the samples are given (`perf report --sort comm`).
pub const COMM: &str = "spusim";

/// `HEADER_ARCH`. No perf knows the SPU; the name says what the samples are.
pub const ARCH: &str = "ppc64";

/// The call sites of path `node`'s frames, innermost first.
fn callers(tree: &Tree, node: usize) -> Vec<u64> {
    let mut sites = Vec::new();
    let mut at = node;
    while let Some(entry) = tree.nodes.get(at).filter(|n| n.function.is_some()) {
        if let Some(site) = entry.call_site {
            sites.push(u64::from(site));
        }
        at = entry.parent;
    }
    sites
}

/// The samples of every SPU's profile.
pub fn samples(profiles: &[SpuProfile]) -> Vec<PerfSample> {
    let mut samples = Vec::new();
    for profile in profiles {
        let mut time = 0u64;
        for (&(node, pc), &weight) in &profile.tree.by_pc {
            samples.push(PerfSample {
                pc: u64::from(pc),
                cpu: u32::from(profile.spu),
                time,
                period: weight,
                callers: callers(&profile.tree, node),
            });
            time += weight;
        }
    }
    samples
}

/// Writes `profiles` to `path` as perf.data, with the ELF at `binary` (`elf`, its bytes) as
/// the program; `command_line` goes into the file's header.
pub fn write(
    path: &Path,
    profiles: &[SpuProfile],
    binary: &Path,
    elf: &[u8],
    command_line: &[String],
) -> Result<(), Failure> {
    let firmware = Firmware::from_elf_with_any_build_id(binary, elf)
        .map_err(|e| Failure::Io(format!("--profile-perf-data: `{}`: {e}", binary.display())))?;
    let timed = profiles.iter().any(|p| p.timed);
    let (config, name) = if timed {
        (HW_CPU_CYCLES, "cycles")
    } else {
        (HW_INSTRUCTIONS, "instructions")
    };
    let recording = Recording {
        firmware: &firmware,
        comm: COMM,
        attr: perf_data::sample_attr(PerfEventAttrType::Hardware, config, 1),
        event_name: name,
        arch: ARCH,
        command_line,
    };
    perf_data::write_recording(path, &recording, &samples(profiles)).map_err(|e| {
        Failure::Io(format!(
            "--profile-perf-data: cannot write `{}`: {e}",
            path.display()
        ))
    })
}
