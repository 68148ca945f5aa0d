//! Finding the cores and starting each one once, to give it a number.

use core::sync::atomic::Ordering;

use super::jobs::{JobRef, start, wait_until_off};
use super::power::AFFINITY;
use super::start_error::StartError;
use crate::rt::core_id::{CoreId, MAX_CORES, MPIDRS, ONLINE, mpidr, online, this_core};
use crate::rt::platform::core_candidates;
use crate::rt::psci::{Psci, PsciError};

/// Failures [`bring_up`] keeps (more are counted in [`BringUp::more_failures`]).
pub const KEPT_FAILURES: usize = 8;

/// What [`bring_up`] did.
#[derive(Debug, Default)]
pub struct BringUp {
    /// Cores started and numbered (besides the boot core).
    pub started: usize,
    /// Cores asked for that did not start, each named.
    pub failures: heapless::Vec<StartError, KEPT_FAILURES>,
    /// Failures beyond [`KEPT_FAILURES`].
    pub more_failures: usize,
    /// Cores found after every number was taken; left off.
    pub left_off: usize,
    /// Set when no PSCI firmware answers: the machine then runs on the boot core alone.
    pub no_psci: Option<PsciError>,
}

impl BringUp {
    fn failed(&mut self, error: StartError) {
        if self.failures.push(error).is_err() {
            self.more_failures += 1;
        }
    }
}

/// A core's first run: [`init_secondary_core`](super::power::init_secondary_core) has recorded its
/// MPIDR by the time this runs; nothing else to do.
fn first_run(_core: CoreId) {}

/// Whether a numbered core other than this one has the affinity of `target`.
fn numbered(target: u64) -> bool {
    let me = this_core().index();
    (0..online())
        .filter(|&index| index != me)
        .filter_map(|index| MPIDRS.get(index))
        .any(|slot| slot.load(Ordering::Acquire) & AFFINITY == target & AFFINITY)
}

/// Finds the cores that PSCI knows (`AFFINITY_INFO` for each MPIDR the board may have, see
/// [`core_candidates`]) and starts each one once, in that order, to give it the next number;
/// then tries `extra` MPIDRs the same way, without asking `AFFINITY_INFO` first (a way to check
/// how a core that does not exist, or one already on, is reported). Every core started is
/// powered off again before this returns; [`on_each_core`](super::on_each_core) starts them for
/// work. Run once, on the boot core, before other cores are used.
pub fn bring_up(extra: &[u64]) -> BringUp {
    let mut report = BringUp::default();
    let psci = Psci::default();
    if let Err(e) = psci.version() {
        report.no_psci = Some(e);
        return report;
    }
    let boot = mpidr(this_core()).unwrap_or(0) & AFFINITY;
    let found = core_candidates().filter(|&candidate| {
        candidate != boot
            && psci.affinity_info(candidate)
                != Err(PsciError::Call(smccc::psci::Error::InvalidParameters))
    });
    for target in found.chain(extra.iter().copied()) {
        if numbered(target) {
            continue;
        }
        let index = online();
        if index >= MAX_CORES {
            report.left_off += 1;
            continue;
        }
        let core = CoreId(index as u8);
        // SAFETY: the job is a function item, alive for the whole program.
        let hello = unsafe { JobRef::new(&first_run) };
        if let Err(e) = start(core, target, hello) {
            // The number was only lent for the attempt: the next core gets it.
            report.failed(StartError { core: None, ..e });
            continue;
        }
        // It ran: it has its number now, even if it then fails to power off (it stays marked
        // as on, and later rounds report it instead of reusing its stack).
        ONLINE.store(index + 1, Ordering::Release);
        report.started += 1;
        if let Err(e) = wait_until_off(core, target) {
            report.failed(e);
        }
    }
    report
}
