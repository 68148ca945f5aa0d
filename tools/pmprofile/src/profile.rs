//! Samples to call stacks, and the aggregates a profile report shows.

use std::collections::{BTreeMap, HashMap, HashSet};

use pmprobe::sampling::Sample;

use crate::symbolize::{Frame, Symbolizer, UNKNOWN};

/// Resolves an address to its frames, innermost first (the [`Symbolizer`], or a stand-in in
/// tests).
pub trait Resolve {
    /// The frames at `address`, innermost first; never empty.
    fn frames(&self, address: u64) -> Vec<Frame>;
    /// Whether, at `pc`, the function's caller is in the link register rather than on the
    /// frame-pointer chain (see [`crate::frame_record`]). `false` when unknown.
    fn caller_in_lr(&self, _pc: u64) -> bool {
        false
    }
}

impl Resolve for Symbolizer {
    fn frames(&self, address: u64) -> Vec<Frame> {
        Symbolizer::frames(self, address)
    }

    fn caller_in_lr(&self, pc: u64) -> bool {
        Symbolizer::caller_in_lr(self, pc)
    }
}

/// Resolves through the ELF symbol table alone: one frame per address, the function symbol
/// that covers it, no inlined functions. That is the view of `perf report --no-inline`, which
/// names a sample by the symbol-table function its address falls in (`pmprofile --no-inline`).
pub struct SymbolTableOnly<'s>(pub &'s Symbolizer);

impl Resolve for SymbolTableOnly<'_> {
    fn frames(&self, address: u64) -> Vec<Frame> {
        let function = self
            .0
            .symbol_at(address)
            .map_or_else(|| UNKNOWN.to_string(), |symbol| symbol.name.clone());
        vec![Frame {
            function,
            file: None,
            line: None,
            inlined: false,
        }]
    }

    fn caller_in_lr(&self, pc: u64) -> bool {
        self.0.caller_in_lr(pc)
    }
}

/// The return addresses of one sample's call stack, innermost caller first: the link register
/// when the sampled function had no frame record of its own at the PC
/// ([`Resolve::caller_in_lr`]; the frame-pointer chain skipped that caller), then the
/// frame-pointer chain. Each is the instruction after a call, as the firmware recorded it.
pub fn return_addresses(sample: &Sample, resolve: &impl Resolve) -> Vec<u64> {
    let lr_is_missing_caller = sample.lr != 0
        && sample.frames().first() != Some(&sample.lr)
        && resolve.caller_in_lr(sample.pc);
    lr_is_missing_caller
        .then_some(sample.lr)
        .into_iter()
        .chain(sample.frames().iter().copied())
        .collect()
}

/// The call stack of one sample as function names, outermost (root) first.
///
/// The PC resolves as is; a return address ([`return_addresses`]) resolves one byte earlier,
/// inside the call instruction, so the caller's line is the call's, not the next statement's.
/// Each address expands into its inlined frames.
pub fn stack_of(sample: &Sample, resolve: &impl Resolve) -> Vec<String> {
    let mut innermost_first: Vec<String> = resolve
        .frames(sample.pc)
        .into_iter()
        .map(|f| f.function)
        .collect();
    for return_address in return_addresses(sample, resolve) {
        innermost_first.extend(
            resolve
                .frames(return_address.saturating_sub(1))
                .into_iter()
                .map(|f| f.function),
        );
    }
    innermost_first.reverse();
    innermost_first
}

/// One row of the top-N table.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionShare {
    /// The function.
    pub function: String,
    /// Samples whose innermost frame is this function.
    pub self_samples: u64,
    /// Samples with this function anywhere in the stack (counted once per sample).
    pub total_samples: u64,
}

/// A symbolized profile.
#[derive(Debug, Default, Clone)]
pub struct Profile {
    /// Identical stacks merged, with their sample counts. When the samples come from more than
    /// one core, each stack starts with a `core N` frame (as `perf report --sort cpu` splits
    /// them), so the flamegraph has one tower per core.
    pub stacks: BTreeMap<Vec<String>, u64>,
    /// Samples in the profile.
    pub samples: u64,
    /// Samples per core.
    pub per_core: BTreeMap<u8, u64>,
}

/// The root frame naming the core of a sample in a profile of several cores.
pub fn core_frame(core: u8) -> String {
    format!("core {core}")
}

impl Profile {
    /// Symbolizes `samples` and merges identical stacks.
    pub fn build<'s>(
        samples: impl IntoIterator<Item = &'s Sample> + Clone,
        resolve: &impl Resolve,
    ) -> Self {
        let mut profile = Self::default();
        for sample in samples.clone() {
            *profile.per_core.entry(sample.core).or_insert(0) += 1;
        }
        let several_cores = profile.per_core.len() > 1;
        for sample in samples {
            let mut stack = stack_of(sample, resolve);
            if several_cores {
                stack.insert(0, core_frame(sample.core));
            }
            *profile.stacks.entry(stack).or_insert(0) += 1;
            profile.samples += 1;
        }
        profile
    }

    /// Samples with a frame whose function name contains `pattern` (counted once per sample).
    pub fn samples_through(&self, pattern: &str) -> u64 {
        self.stacks
            .iter()
            .filter(|(stack, _)| stack.iter().any(|frame| frame.contains(pattern)))
            .map(|(_, &count)| count)
            .sum()
    }

    /// Functions by total samples (then self samples, then name), at most `n`.
    pub fn top(&self, n: usize) -> Vec<FunctionShare> {
        let mut shares: HashMap<&str, (u64, u64)> = HashMap::new();
        for (stack, &count) in &self.stacks {
            if let Some(leaf) = stack.last() {
                shares.entry(leaf).or_default().0 += count;
            }
            let distinct: HashSet<&str> = stack.iter().map(String::as_str).collect();
            for function in distinct {
                shares.entry(function).or_default().1 += count;
            }
        }
        let mut rows: Vec<FunctionShare> = shares
            .into_iter()
            .map(|(function, (self_samples, total_samples))| FunctionShare {
                function: function.to_string(),
                self_samples,
                total_samples,
            })
            .collect();
        rows.sort_by(|a, b| {
            (b.total_samples, b.self_samples)
                .cmp(&(a.total_samples, a.self_samples))
                .then_with(|| a.function.cmp(&b.function))
        });
        rows.truncate(n);
        rows
    }

    /// Folded stacks, one `root;...;leaf count` line per distinct stack (the input format of
    /// flamegraph tools). A `;` inside a name (Rust array types) becomes `,` so it cannot split
    /// the frame.
    pub fn folded(&self) -> Vec<String> {
        self.stacks
            .iter()
            .map(|(stack, count)| {
                let frames: Vec<String> = stack.iter().map(|f| f.replace(';', ",")).collect();
                format!("{} {count}", frames.join(";"))
            })
            .collect()
    }
}
