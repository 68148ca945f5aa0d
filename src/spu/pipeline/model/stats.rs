//! Pipeline statistics, printed like the simulator's `mysim spu N stats print`.
//!
//! Every simulated cycle lands in exactly one category, so
//! `single + dual + nop + the stall categories + initialisation = total cycles`, and the
//! dependency stalls are split by the class of the instruction whose unreleased target held
//! issue up, so the per-class column sums to the dependency stall count
//! ([`Statistics::check_identities`]).
//!
//! Category rules of this model:
//! - *dual cycle*: two instructions issued; *single cycle*: one issued; *NOP cycle*: the
//!   instructions issued were all `nop`/`lnop` (checked first, so a NOP cycle is neither
//!   single nor dual);
//! - a cycle with nothing issued counts under its [`StallReason`].
//!
//! The *performance* block is the `prof_cp` counters (`prof_cp0` clears, `prof_cp30` starts,
//! `prof_cp31` stops), held by the architectural state; `stats reset` clears everything else.

use core::fmt;

use super::config::class_index;
use crate::spu::exec::ProfileCounters;
use crate::spu::isa::IClass;
use crate::spu::probes::StallReason;

/// The SPU statistics counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Statistics {
    /// Simulated cycles.
    pub cycles: u64,
    /// Instructions completed (stage o).
    pub instructions: u64,
    /// Completed instructions that are not NOP-class (`nop`, `lnop`, hints, `prof_cp`).
    pub non_nop_instructions: u64,
    /// Taken branches.
    pub branches_taken: u64,
    /// Not-taken branches.
    pub branches_not_taken: u64,
    /// Hint instructions (`hbr`, `hbra`, `hbrr`) completed.
    pub hints: u64,
    /// Branches predicted correctly by a hint.
    pub hint_hits: u64,
    /// Cycles in which a load/store kept an instruction line fetch out of the LS.
    pub ls_contention: u64,
    /// Cycles with one instruction issued.
    pub single_cycles: u64,
    /// Cycles with two instructions issued.
    pub dual_cycles: u64,
    /// Cycles in which only `nop`/`lnop` issued.
    pub nop_cycles: u64,
    /// Stall cycles: branch miss.
    pub branch_miss_stalls: u64,
    /// Stall cycles: prefetch miss.
    pub prefetch_miss_stalls: u64,
    /// Stall cycles: operand dependency.
    pub dependency_stalls: u64,
    /// Stall cycles: shared FP unit conflict.
    pub fp_resource_stalls: u64,
    /// Stall cycles: waiting for a hint target.
    pub hint_target_stalls: u64,
    /// Stall cycles: issue stall after FPD (or another class with a non-zero `stall`).
    pub dp_pipeline_stalls: u64,
    /// Stall cycles: waiting for a channel instruction (or `stop`) to complete.
    pub channel_stalls: u64,
    /// Stall cycles: a channel instruction blocked on the MFC or an event.
    pub channel_wait_stalls: u64,
    /// Stall cycles: a load or store waited for the local-store port DMA had.
    pub dma_local_store_stalls: u64,
    /// Cycles filling the pipeline after the SPU started.
    pub initialisation_cycles: u64,
    /// Dependency stall cycles by the class of the producing instruction, in
    /// [`IClass::ALL`] order.
    pub dependency_by_class: [u64; 12],
    /// Cycles in which dual issue was prevented by an SP instruction (sp-dual off).
    pub sp_issue_block: u64,
    /// Cycles in which dual issue was prevented by a DP instruction (dp-dual off).
    pub dp_issue_block: u64,
    /// Cycles in which an instruction went to the execution pipe opposite its issue pipe.
    pub cross_issue_cycles: u64,
    /// Cycles in which dual issue was prevented by a dependency inside the pair.
    pub src0_dep_cycles: u64,
    /// Registers read or written by issued instructions (bit n = `$n`).
    pub registers_used: u128,
}

/// A statistics identity that does not hold (a model bug).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum IdentityError {
    /// The cycle categories do not add up to the total.
    CycleCategories {
        /// Sum of the categories.
        sum: u64,
        /// Total cycles.
        total: u64,
    },
    /// The per-class dependency stalls do not add up to the dependency stall count.
    DependencyClasses {
        /// Sum of the per-class column.
        sum: u64,
        /// Dependency stall cycles.
        total: u64,
    },
}

impl fmt::Display for IdentityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::CycleCategories { sum, total } => {
                write!(f, "cycle categories sum to {sum}, total cycles are {total}")
            }
            Self::DependencyClasses { sum, total } => write!(
                f,
                "per-class dependency stalls sum to {sum}, dependency stalls are {total}"
            ),
        }
    }
}

impl core::error::Error for IdentityError {}

impl Statistics {
    /// All counters zero.
    pub const fn new() -> Self {
        Statistics {
            cycles: 0,
            instructions: 0,
            non_nop_instructions: 0,
            branches_taken: 0,
            branches_not_taken: 0,
            hints: 0,
            hint_hits: 0,
            ls_contention: 0,
            single_cycles: 0,
            dual_cycles: 0,
            nop_cycles: 0,
            branch_miss_stalls: 0,
            prefetch_miss_stalls: 0,
            dependency_stalls: 0,
            fp_resource_stalls: 0,
            hint_target_stalls: 0,
            dp_pipeline_stalls: 0,
            channel_stalls: 0,
            channel_wait_stalls: 0,
            dma_local_store_stalls: 0,
            initialisation_cycles: 0,
            dependency_by_class: [0; 12],
            sp_issue_block: 0,
            dp_issue_block: 0,
            cross_issue_cycles: 0,
            src0_dep_cycles: 0,
            registers_used: 0,
        }
    }

    /// `stats reset`: every counter back to zero.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// Adds `times` repetitions of what happened between the snapshots `before` and `after`
    /// (every counter grows by `times × (after − before)`; the registers-used set takes
    /// `after`'s registers). The fast-forward's step: a repetition of the same timing.
    #[cfg_attr(feature = "spu-lean", allow(dead_code))] // the fast-forward's only
    pub(crate) fn add_repeats(&mut self, before: &Statistics, after: &Statistics, times: u64) {
        let step = |to: u64, from: u64| to.wrapping_sub(from).wrapping_mul(times);
        // Destructured in full, so a counter added later cannot be left out.
        let Statistics {
            cycles,
            instructions,
            non_nop_instructions,
            branches_taken,
            branches_not_taken,
            hints,
            hint_hits,
            ls_contention,
            single_cycles,
            dual_cycles,
            nop_cycles,
            branch_miss_stalls,
            prefetch_miss_stalls,
            dependency_stalls,
            fp_resource_stalls,
            hint_target_stalls,
            dp_pipeline_stalls,
            channel_stalls,
            channel_wait_stalls,
            dma_local_store_stalls,
            initialisation_cycles,
            dependency_by_class,
            sp_issue_block,
            dp_issue_block,
            cross_issue_cycles,
            src0_dep_cycles,
            registers_used,
        } = after;
        self.cycles += step(*cycles, before.cycles);
        self.instructions += step(*instructions, before.instructions);
        self.non_nop_instructions += step(*non_nop_instructions, before.non_nop_instructions);
        self.branches_taken += step(*branches_taken, before.branches_taken);
        self.branches_not_taken += step(*branches_not_taken, before.branches_not_taken);
        self.hints += step(*hints, before.hints);
        self.hint_hits += step(*hint_hits, before.hint_hits);
        self.ls_contention += step(*ls_contention, before.ls_contention);
        self.single_cycles += step(*single_cycles, before.single_cycles);
        self.dual_cycles += step(*dual_cycles, before.dual_cycles);
        self.nop_cycles += step(*nop_cycles, before.nop_cycles);
        self.branch_miss_stalls += step(*branch_miss_stalls, before.branch_miss_stalls);
        self.prefetch_miss_stalls += step(*prefetch_miss_stalls, before.prefetch_miss_stalls);
        self.dependency_stalls += step(*dependency_stalls, before.dependency_stalls);
        self.fp_resource_stalls += step(*fp_resource_stalls, before.fp_resource_stalls);
        self.hint_target_stalls += step(*hint_target_stalls, before.hint_target_stalls);
        self.dp_pipeline_stalls += step(*dp_pipeline_stalls, before.dp_pipeline_stalls);
        self.channel_stalls += step(*channel_stalls, before.channel_stalls);
        self.channel_wait_stalls += step(*channel_wait_stalls, before.channel_wait_stalls);
        self.dma_local_store_stalls += step(*dma_local_store_stalls, before.dma_local_store_stalls);
        self.initialisation_cycles += step(*initialisation_cycles, before.initialisation_cycles);
        for ((total, to), from) in self
            .dependency_by_class
            .iter_mut()
            .zip(dependency_by_class)
            .zip(before.dependency_by_class)
        {
            *total += step(*to, from);
        }
        self.sp_issue_block += step(*sp_issue_block, before.sp_issue_block);
        self.dp_issue_block += step(*dp_issue_block, before.dp_issue_block);
        self.cross_issue_cycles += step(*cross_issue_cycles, before.cross_issue_cycles);
        self.src0_dep_cycles += step(*src0_dep_cycles, before.src0_dep_cycles);
        self.registers_used |= registers_used;
    }

    /// Branch instructions completed (taken + not taken).
    pub fn branches(&self) -> u64 {
        self.branches_taken + self.branches_not_taken
    }

    /// Stall cycles of all categories.
    pub fn stall_cycles(&self) -> u64 {
        self.branch_miss_stalls
            + self.prefetch_miss_stalls
            + self.dependency_stalls
            + self.fp_resource_stalls
            + self.hint_target_stalls
            + self.dp_pipeline_stalls
            + self.channel_stalls
            + self.channel_wait_stalls
            + self.dma_local_store_stalls
    }

    /// Sum of all cycle categories (equals [`cycles`](Self::cycles)).
    pub fn categorised_cycles(&self) -> u64 {
        self.single_cycles
            + self.dual_cycles
            + self.nop_cycles
            + self.stall_cycles()
            + self.initialisation_cycles
    }

    /// Dependency stall cycles charged to `class`.
    pub fn dependency_stalls_of(&self, class: IClass) -> u64 {
        self.dependency_by_class[class_index(class)]
    }

    /// Number of registers used.
    pub fn registers_used_count(&self) -> u32 {
        self.registers_used.count_ones()
    }

    /// Checks the two identities of the statistics block.
    pub fn check_identities(&self) -> Result<(), IdentityError> {
        let sum = self.categorised_cycles();
        if sum != self.cycles {
            return Err(IdentityError::CycleCategories {
                sum,
                total: self.cycles,
            });
        }
        let sum: u64 = self.dependency_by_class.iter().sum();
        if sum != self.dependency_stalls {
            return Err(IdentityError::DependencyClasses {
                sum,
                total: self.dependency_stalls,
            });
        }
        Ok(())
    }

    /// Counts one cycle in which nothing issued.
    #[inline(always)]
    pub(crate) fn count_stall(&mut self, reason: StallReason) {
        self.count_stalls(reason, 1);
    }

    /// Counts `cycles` cycles in which nothing issued, all for the same reason.
    #[inline(always)]
    pub(crate) fn count_stalls(&mut self, reason: StallReason, cycles: u64) {
        match reason {
            StallReason::BranchMiss => self.branch_miss_stalls += cycles,
            StallReason::PrefetchMiss => self.prefetch_miss_stalls += cycles,
            StallReason::Dependency(class) => {
                self.dependency_stalls += cycles;
                self.dependency_by_class[class_index(class)] += cycles;
            }
            StallReason::FpResource => self.fp_resource_stalls += cycles,
            StallReason::HintTarget => self.hint_target_stalls += cycles,
            StallReason::DpPipeline => self.dp_pipeline_stalls += cycles,
            StallReason::Channel => self.channel_stalls += cycles,
            StallReason::ChannelWait => self.channel_wait_stalls += cycles,
            StallReason::DmaLocalStore => self.dma_local_store_stalls += cycles,
            StallReason::Initialisation => self.initialisation_cycles += cycles,
        }
    }

    /// Writes the block of `spu N stats print`. `profile` holds the `prof_cp` counters and
    /// `now` the cycle clock they are read at.
    pub fn print(
        &self,
        profile: &ProfileCounters,
        now: u64,
        out: &mut impl fmt::Write,
    ) -> fmt::Result {
        let perf_cycles = profile.cycles_at(now);
        writeln!(out, "SPU DD1.0")?;
        writeln!(out, "{:<31} {}", "Total Cycle count", self.cycles)?;
        writeln!(
            out,
            "{:<31} {}",
            "Total Instruction count", self.instructions
        )?;
        writeln!(
            out,
            "{:<31} {}",
            "Total CPI",
            Ratio(self.cycles, self.instructions)
        )?;
        writeln!(out, "{:<31} {}", "Performance Cycle count", perf_cycles)?;
        writeln!(
            out,
            "{:<31} {} ({})",
            "Performance Instruction count", profile.instructions, profile.non_nop_instructions
        )?;
        writeln!(
            out,
            "{:<31} {} ({})",
            "Performance CPI",
            Ratio(perf_cycles, profile.instructions),
            Ratio(perf_cycles, profile.non_nop_instructions)
        )?;
        writeln!(out, "{:<31} {}", "Branch instructions", self.branches())?;
        writeln!(out, "{:<31} {}", "Branch taken", self.branches_taken)?;
        writeln!(
            out,
            "{:<31} {}",
            "Branch not taken", self.branches_not_taken
        )?;
        writeln!(out, "{:<31} {}", "Hint instructions", self.hints)?;
        writeln!(out, "{:<31} {}", "Hint hit", self.hint_hits)?;
        writeln!(
            out,
            "Contention at LS between Load/Store and Prefetch {}",
            self.ls_contention
        )?;
        let categories: [(&str, u64); 14] = [
            ("Single cycle", self.single_cycles),
            ("Dual cycle", self.dual_cycles),
            ("Nop cycle", self.nop_cycles),
            ("Stall due to branch miss", self.branch_miss_stalls),
            ("Stall due to prefetch miss", self.prefetch_miss_stalls),
            ("Stall due to dependency", self.dependency_stalls),
            ("Stall due to fp resource conflict", self.fp_resource_stalls),
            (
                "Stall due to waiting for hint target",
                self.hint_target_stalls,
            ),
            ("Stall due to dp pipeline", self.dp_pipeline_stalls),
            ("Channel stall cycle", self.channel_stalls),
            (
                "Stall due to channel wait (MFC, events)",
                self.channel_wait_stalls,
            ),
            (
                "Stall due to DMA at the LS port",
                self.dma_local_store_stalls,
            ),
            ("SPU Initialization cycle", self.initialisation_cycles),
            ("Total cycle", self.cycles),
        ];
        for (label, value) in &categories {
            // The value column ends at column 63, then "(ppp.p%)", as the simulator prints.
            let width = 61usize.saturating_sub(label.len());
            writeln!(
                out,
                "{label}{value:>width$} ({})",
                Percent(*value, self.cycles)
            )?;
        }
        writeln!(out, "Stall cycles due to dependency on each pipelines")?;
        for class in IClass::ALL {
            writeln!(
                out,
                " {:<11}{}",
                class.name(),
                self.dependency_stalls_of(class)
            )?;
        }
        writeln!(out)?;
        let used = self.registers_used_count();
        writeln!(
            out,
            "The number of used registers are {used}, the used percentage is {}",
            Ratio(u64::from(used) * 100, 128)
        )
    }
}

/// `a / b` with two decimals, rounded half up, in integer arithmetic (`0.00` for b = 0).
struct Ratio(u64, u64);

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = (u128::from(self.0), u128::from(self.1));
        let hundredths = if b == 0 { 0 } else { (a * 200 + b) / (2 * b) };
        write!(f, "{}.{:02}", hundredths / 100, hundredths % 100)
    }
}

/// `a / b` as a percentage with one decimal, right-aligned in five columns, then `%`.
struct Percent(u64, u64);

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = (u128::from(self.0), u128::from(self.1));
        let tenths = if b == 0 { 0 } else { (a * 2000 + b) / (2 * b) };
        let mut text: heapless::String<24> = heapless::String::new();
        fmt::write(&mut text, format_args!("{}.{}", tenths / 10, tenths % 10))?;
        write!(f, "{text:>5}%")
    }
}
