//! The per-function profile's outputs: the table (`--profile`), folded stacks
//! (`--profile-folded`) and a Firefox Profiler file (`--profile-firefox`), the last two with
//! pmprofile's writers.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::rc::Rc;
use std::time::SystemTime;

use pmprobe::spu::isa::SymbolLookup;
use pmprofile::Profile;
use pmprofile::firefox::{self, Firmware, FxProfile, Layout, StackSample, ThreadInfo};

use crate::exit::Failure;
use crate::function_profile::{Metrics, STALL_CLASSES, Tree, path, per_function};

/// One SPU's finished profile.
pub struct SpuProfile {
    pub spu: u8,
    pub tree: Tree,
    /// Pipeline mode: cycles were charged.
    pub timed: bool,
}

/// The name of the function at `entry`: its symbol, the nearest one below with the offset,
/// or the address.
pub fn function_name(symbols: &dyn SymbolLookup, entry: u32) -> String {
    match symbols.symbol_before(entry) {
        Some((name, at)) if at == entry => name.to_string(),
        Some((name, at)) => format!("{name}+{:#x}", entry.wrapping_sub(at)),
        None => format!("{entry:#07x}"),
    }
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// The table: one row per function, by inclusive cycles (instructions in instruction mode).
pub fn table(profile: &SpuProfile, symbols: &dyn SymbolLookup) -> String {
    let rows = per_function(&profile.tree);
    let total: Metrics = profile
        .tree
        .nodes
        .iter()
        .fold(Metrics::default(), |mut sum, node| {
            sum.instructions += node.own.instructions;
            sum.cycles += node.own.cycles;
            sum
        });
    let weight = |m: &Metrics| {
        if profile.timed {
            m.cycles
        } else {
            m.instructions
        }
    };
    let mut rows = rows;
    rows.sort_by(|a, b| {
        weight(&b.2)
            .cmp(&weight(&a.2))
            .then(weight(&b.1).cmp(&weight(&a.1)))
            .then(a.0.cmp(&b.0))
    });
    let mut out = String::new();
    if profile.timed {
        let _ = writeln!(
            out,
            "function profile of SPU{} (exact, pipeline mode): {} cycles, {} instructions",
            profile.spu, total.cycles, total.instructions
        );
        let _ = write!(
            out,
            "{:>10} {:>10} {:>6} {:>9} {:>5} {:>6}",
            "cycles", "self", "self%", "insts", "IPC", "dual%"
        );
        for class in STALL_CLASSES {
            let _ = write!(out, " {class:>8}");
        }
        let _ = writeln!(out, " {:>6}  function", "calls");
        for (function, own, inclusive, calls) in &rows {
            let ipc = if own.cycles == 0 {
                0.0
            } else {
                own.instructions as f64 / own.cycles as f64
            };
            let _ = write!(
                out,
                "{:>10} {:>10} {:>6.2} {:>9} {:>5.2} {:>6.2}",
                inclusive.cycles,
                own.cycles,
                percent(own.cycles, total.cycles),
                own.instructions,
                ipc,
                percent(own.dual, own.issued)
            );
            for stalls in own.stalls {
                let _ = write!(out, " {stalls:>8}");
            }
            let _ = writeln!(out, " {calls:>6}  {}", function_name(symbols, *function));
        }
    } else {
        let _ = writeln!(
            out,
            "function profile of SPU{} (exact, instruction mode: instructions only): {} instructions",
            profile.spu, total.instructions
        );
        let _ = writeln!(
            out,
            "{:>10} {:>10} {:>6} {:>6}  function",
            "insts", "self", "self%", "calls"
        );
        for (function, own, inclusive, calls) in &rows {
            let _ = writeln!(
                out,
                "{:>10} {:>10} {:>6.2} {calls:>6}  {}",
                inclusive.instructions,
                own.instructions,
                percent(own.instructions, total.instructions),
                function_name(symbols, *function)
            );
        }
    }
    if profile.tree.too_deep > 0 {
        let _ = writeln!(
            out,
            "({} calls past a depth of {} were charged to their caller)",
            profile.tree.too_deep,
            crate::function_profile::MAX_DEPTH
        );
    }
    out
}

/// The call paths of `profile` as names, root first (with an `SPU n` root frame when the
/// run had several SPUs), and what each was charged.
fn named_paths(
    profile: &SpuProfile,
    symbols: &dyn SymbolLookup,
    several: bool,
) -> BTreeMap<usize, Vec<String>> {
    (0..profile.tree.nodes.len())
        .map(|node| {
            let mut names: Vec<String> = Vec::new();
            if several {
                names.push(format!("SPU{}", profile.spu));
            }
            names.extend(
                path(&profile.tree, node)
                    .into_iter()
                    .map(|f| function_name(symbols, f)),
            );
            (node, names)
        })
        .collect()
}

/// The folded stacks of every SPU's profile: one `root;...;leaf count` line per call path,
/// counting cycles (instructions in instruction mode), pmprofile's format.
pub fn folded(profiles: &[SpuProfile], symbols: &dyn SymbolLookup) -> Vec<String> {
    let several = profiles.len() > 1;
    let mut merged = Profile::default();
    for profile in profiles {
        let names = named_paths(profile, symbols, several);
        for (node, data) in profile.tree.nodes.iter().enumerate() {
            let count = if profile.timed {
                data.own.cycles
            } else {
                data.own.instructions
            };
            if count == 0 {
                continue;
            }
            if let Some(stack) = names.get(&node) {
                *merged.stacks.entry(stack.clone()).or_insert(0) += count;
                merged.samples += count;
            }
        }
    }
    merged.folded()
}

/// Writes the folded stacks to `path`.
pub fn write_folded(
    path: &Path,
    profiles: &[SpuProfile],
    symbols: &dyn SymbolLookup,
) -> Result<(), Failure> {
    let error = |e: std::io::Error| {
        Failure::Io(format!(
            "--profile-folded: cannot write `{}`: {e}",
            path.display()
        ))
    };
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).map_err(error)?);
    for line in folded(profiles, symbols) {
        writeln!(file, "{line}").map_err(error)?;
    }
    file.flush().map_err(error)
}

/// The Firefox Profiler profile: one thread per SPU (`SPU n`), one sample per stretch of the
/// run on one call path, at the cycle (instruction) it started, weighted by its cycles
/// (instructions): one cycle drawn as one nanosecond.
pub fn firefox_profile(
    profiles: &[SpuProfile],
    symbols: &dyn SymbolLookup,
    program: &Path,
    recorded: SystemTime,
) -> FxProfile {
    let mut threads = Vec::new();
    let mut samples = Vec::new();
    for (thread, profile) in profiles.iter().enumerate() {
        let names: BTreeMap<usize, Rc<[String]>> = named_paths(profile, symbols, false)
            .into_iter()
            .map(|(node, names)| (node, names.into()))
            .collect();
        let mut sample = |node: usize, start: u64, weight: u64| {
            let Some(stack) = names.get(&node) else {
                return;
            };
            // Weights are 32-bit: a longer stretch is several samples.
            let mut left = weight;
            let mut at = start;
            while left > 0 {
                let part = left.min(i32::MAX as u64);
                samples.push(StackSample {
                    thread,
                    stack: stack.clone(),
                    time_ns: at,
                    cpu_delta_ns: part,
                    weight: part as i32,
                });
                left -= part;
                at += part;
            }
        };
        for segment in &profile.tree.segments {
            sample(segment.node, segment.start, segment.weight);
        }
        let mut end = profile
            .tree
            .segments
            .last()
            .map_or(0, |s| s.start + s.weight);
        for &(node, weight) in &profile.tree.late {
            sample(node, end, weight);
            end += weight;
        }
        threads.push(ThreadInfo {
            name: format!("SPU{}", profile.spu),
            tid: u32::from(profile.spu),
            end_ns: end,
        });
    }
    let layout = Layout {
        product: "spusim".to_string(),
        interval_ns: 1,
        arch: None,
        category: "SPU program".to_string(),
    };
    firefox::build_stacks(
        &layout,
        &Firmware::at(program),
        &threads,
        &samples,
        recorded,
    )
}

/// Writes the Firefox profile to `path`.
pub fn write_firefox(
    path: &Path,
    profiles: &[SpuProfile],
    symbols: &dyn SymbolLookup,
    program: &Path,
) -> Result<(), Failure> {
    let error = |e: std::io::Error| {
        Failure::Io(format!(
            "--profile-firefox: cannot write `{}`: {e}",
            path.display()
        ))
    };
    let profile = firefox_profile(profiles, symbols, program, SystemTime::now());
    let file = std::fs::File::create(path).map_err(error)?;
    let mut out = std::io::BufWriter::new(file);
    firefox::write(&profile, &mut out).map_err(error)?;
    out.flush().map_err(error)
}
