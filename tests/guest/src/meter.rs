//! What the instruction-count benchmarks (`probe_bench`, `observer_bench`) share: the core's
//! INST_RETIRED counter around a piece of code, and figures in hundredths.

use pmprobe::pmu::SysRegPmu;
use pmprobe::pmu::{Counter, Event, Pmu};

use crate::Checks;

/// Instructions the core retires, counted with the PMU driver (INST_RETIRED, exact under
/// `-icount shift=0`).
pub struct InstructionMeter {
    pmu: Pmu<SysRegPmu>,
    counter: Counter,
}

impl InstructionMeter {
    /// Programs INST_RETIRED and starts the PMU, recording the set-up as checks in `t`;
    /// `None` when it failed (the failed check says where).
    pub fn start(t: &mut Checks) -> Option<Self> {
        let Ok(mut pmu) = Pmu::new(SysRegPmu::new()) else {
            t.check("pmu_detected", false);
            return None;
        };
        let Ok(counter) = pmu.program(Event::INST_RETIRED) else {
            t.check("inst_retired_programmed", false);
            return None;
        };
        t.check("pmu_started", pmu.start().is_ok());
        Some(Self { pmu, counter })
    }

    /// Instructions retired by `f` (and the two counter reads around it); `None` when a read
    /// failed.
    pub fn count(&mut self, f: impl FnOnce()) -> Option<u64> {
        let before = self.pmu.read(self.counter).ok()?;
        f();
        let after = self.pmu.read(self.counter).ok()?;
        Some(after.wrapping_sub(before))
    }
}

/// A figure in hundredths, shown as `whole.hundredths`, right-aligned to the requested width
/// like a number.
pub struct Hundredths(pub u64);

impl core::fmt::Display for Hundredths {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (whole, fraction) = (self.0 / 100, self.0 % 100);
        let digits = whole.checked_ilog10().unwrap_or(0) as usize + 1;
        let padding = f.width().unwrap_or(0).saturating_sub(digits + 3);
        write!(f, "{:padding$}{whole}.{fraction:02}", "")
    }
}
