//! `--check-dma` and `--profile...`: the DMA race checker and the per-function profiles of a
//! run, the observer that feeds them each SPU's notifications, and what they print.
//!
//! Races are printed as they are found, one line each on standard error
//! (`spusim: DMA race (...): ...`, the PCs named by the program's symbols); a summary follows
//! the run. The profile's table goes with spusim's other reports, its files where the options
//! say.

use std::cell::RefCell;
use std::io::{self, Write};
use std::path::Path;

use pmprobe::probe::Listener;
use pmprobe::spu::dma_check::{DmaRace, DmaRaceChecker, SpuDmaCheck};
use pmprobe::spu::exec::{CompletedBatch, Executed};
use pmprobe::spu::isa::{Instruction, SymbolLookup};
use pmprobe::spu::probes::{ChannelEvent, IssueEvent, SpuObserver, StallReason};

use crate::analysis_options::AnalysisOptions;
use crate::exit::Failure;
use crate::function_profile::FunctionProfile;
use crate::options::Mode;
use crate::profile_output::{self, SpuProfile};
use crate::profile_perf_data;
use crate::program::Loaded;

/// The program's symbols, naming only addresses inside the program (a PC in a buffer the
/// program loaded at run time is no label's).
pub struct ProgramSymbols<'p> {
    program: &'p Loaded<'p>,
}

impl<'p> ProgramSymbols<'p> {
    pub fn new(program: &'p Loaded<'p>) -> Self {
        ProgramSymbols { program }
    }
}

impl SymbolLookup for ProgramSymbols<'_> {
    fn symbol_at(&self, address: u32) -> Option<&str> {
        self.program.symbol_at(address)
    }

    fn symbol_before(&self, address: u32) -> Option<(&str, u32)> {
        let inside = self
            .program
            .regions
            .iter()
            .any(|region| region.range.contains(&(address as usize)));
        if inside {
            self.program.symbol_before(address)
        } else {
            None
        }
    }
}

/// Prints each race on the report stream as it is found.
pub struct RaceReporter<'a, 'w> {
    err: &'a RefCell<&'w mut dyn Write>,
    symbols: &'a dyn SymbolLookup,
    /// The first line that could not be written.
    failed: RefCell<Option<io::Error>>,
}

impl<'a, 'w> RaceReporter<'a, 'w> {
    pub fn new(err: &'a RefCell<&'w mut dyn Write>, symbols: &'a dyn SymbolLookup) -> Self {
        RaceReporter {
            err,
            symbols,
            failed: RefCell::new(None),
        }
    }
}

impl Listener<DmaRace> for RaceReporter<'_, '_> {
    fn notify(&self, race: &DmaRace) {
        let written = match self.err.try_borrow_mut() {
            Ok(mut err) => writeln!(err, "spusim: {}", race.display_with(self.symbols)),
            Err(_) => Err(io::Error::other("the report stream was busy")),
        };
        if let Err(error) = written {
            self.failed.borrow_mut().get_or_insert(error);
        }
    }
}

/// What is analysed in a run of `threads` SPUs.
pub struct Analysis<'l> {
    checker: Option<Box<DmaRaceChecker<'l>>>,
    profiles: Vec<FunctionProfile>,
    options: AnalysisOptions,
}

impl<'l> Analysis<'l> {
    /// The analyses `options` ask for, races reported to `reporter`.
    pub fn new(
        options: &AnalysisOptions,
        mode: Mode,
        threads: usize,
        reporter: &'l RaceReporter<'_, '_>,
    ) -> Result<Self, Failure> {
        let checker = if options.check_dma {
            let checker = Box::new(DmaRaceChecker::new());
            let model = |error: &dyn std::fmt::Display| {
                Failure::Model(format!("cannot attach the checker: {error}"))
            };
            checker
                .races()
                .add_object(reporter)
                .map_err(|e| model(&e))?;
            // Every SPU of the group is checked against the others from the start, before
            // it first runs.
            for spu in 0..threads {
                checker.observer(spu as u8).map_err(|e| model(&e))?;
            }
            Some(checker)
        } else {
            None
        };
        let profiles = if options.profiling() {
            (0..threads)
                .map(|_| FunctionProfile::new(mode == Mode::Pipeline))
                .collect()
        } else {
            Vec::new()
        };
        Ok(Analysis {
            checker,
            profiles,
            options: options.clone(),
        })
    }

    /// The observer of SPU `spu`.
    pub fn observer(&self, spu: u8) -> Result<AnalysisObserver<'_, 'l>, Failure> {
        let check = match &self.checker {
            Some(checker) => Some(
                checker
                    .observer(spu)
                    .map_err(|error| Failure::Model(error.to_string()))?,
            ),
            None => None,
        };
        Ok(AnalysisObserver {
            check,
            profile: self.profiles.get(usize::from(spu)),
        })
    }

    /// Races found so far.
    pub fn races(&self) -> u64 {
        self.checker.as_ref().map_or(0, |c| c.stats().races)
    }

    /// After the run: the checker's summary on `err`, the profile's table on `out` and its
    /// files (`binary`: the program's ELF file, for perf.data).
    pub fn finish(
        &self,
        reporter: &RaceReporter<'_, '_>,
        symbols: &dyn SymbolLookup,
        program: &Path,
        binary: Option<&Path>,
        out: &mut dyn Write,
    ) -> Result<(), Failure> {
        if let Some(error) = reporter.failed.borrow_mut().take() {
            return Err(Failure::Io(format!(
                "cannot write to standard error: {error}"
            )));
        }
        if let Some(checker) = &self.checker {
            let stats = checker.stats();
            let mut line = format!(
                "spusim: DMA check: {} commands, {} races",
                stats.commands, stats.races
            );
            if stats.repeated > 0 {
                line += &format!(" (and {} repeats of them in loops)", stats.repeated);
            }
            if stats.unreported > 0 {
                line += &format!(", {} not printed", stats.unreported);
            }
            if stats.incomplete() {
                line += &format!(
                    "; incomplete: {} commands and {} list elements not tracked, {} transfers \
                     forgotten across SPUs, {} lock lines merged",
                    stats.commands_forgotten,
                    stats.transfers_unchecked,
                    stats.history_forgotten,
                    stats.lines_merged
                );
            }
            let written = reporter
                .err
                .try_borrow_mut()
                .map_err(|_| io::Error::other("the report stream was busy"))
                .and_then(|mut err| writeln!(err, "{line}"));
            written.map_err(|e| Failure::Io(format!("cannot write to standard error: {e}")))?;
        }
        if self.profiles.is_empty() {
            return Ok(());
        }
        let profiles: Vec<SpuProfile> = self
            .profiles
            .iter()
            .enumerate()
            .map(|(spu, profile)| SpuProfile {
                spu: spu as u8,
                tree: profile.finish(),
                timed: profile.timed(),
            })
            .collect();
        if self.options.profile {
            for profile in &profiles {
                out.write_all(profile_output::table(profile, symbols).as_bytes())
                    .map_err(Failure::stdout)?;
            }
        }
        if let Some(path) = &self.options.profile_folded {
            profile_output::write_folded(path, &profiles, symbols)?;
        }
        if let Some(path) = &self.options.profile_firefox {
            profile_output::write_firefox(path, &profiles, symbols, program)?;
        }
        if let (Some(path), Some(binary)) = (&self.options.profile_perf_data, binary) {
            let elf = std::fs::read(binary)
                .map_err(|e| Failure::Io(format!("cannot read `{}`: {e}", binary.display())))?;
            let command_line: Vec<String> = std::env::args().collect();
            profile_perf_data::write(path, &profiles, binary, &elf, &command_line)?;
        }
        Ok(())
    }
}

/// One SPU's notifications to the analyses asked for (none: it does not listen, and the
/// model runs as without an observer).
pub struct AnalysisObserver<'a, 'l> {
    check: Option<SpuDmaCheck<'a, 'l>>,
    profile: Option<&'a FunctionProfile>,
}

impl SpuObserver for AnalysisObserver<'_, '_> {
    fn is_listening(&self) -> bool {
        self.check.is_some() || self.profile.is_some()
    }

    fn retired(&self, instruction: &Instruction, executed: &Executed, cycle: u64) {
        if let Some(check) = &self.check {
            check.retired(instruction, executed, cycle);
        }
        if let Some(profile) = self.profile {
            profile.retired(instruction, executed, cycle);
        }
    }

    fn completed(&self, batch: &CompletedBatch<'_>) {
        if let Some(check) = &self.check {
            check.completed(batch);
        }
        if let Some(profile) = self.profile {
            profile.completed(batch);
        }
    }

    fn needs_records(&self) -> bool {
        self.profile.is_some() || self.check.as_ref().is_some_and(|c| c.needs_records())
    }

    fn issue(&self, event: IssueEvent) {
        if let Some(profile) = self.profile {
            profile.issue(event);
        }
    }

    fn issue_stall(&self, reason: StallReason) {
        if let Some(profile) = self.profile {
            profile.issue_stall(reason);
        }
    }

    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        if let Some(profile) = self.profile {
            profile.stalled_cycles(reason, n);
        }
    }

    fn channel(&self, event: &ChannelEvent<'_>) {
        if let Some(check) = &self.check {
            check.channel(event);
        }
    }
}
