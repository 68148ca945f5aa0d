//! The host core (the Cortex-A57 QEMU emulates) measured with its real PMU: the meter every
//! room reads around the work it shows (the SPU runs, the MFC sections, the profile's windows).
//! Under `-icount shift=0` INST_RETIRED and CPU_CYCLES are exact.

use pmprobe::pmu::{Error, Event, EventSet};
use pmprobe::pmu::{Pmu, Snapshot};
use pmprobe::pmu::{SysRegPmu, detect};

/// The events the host tables count, in the order they are programmed.
pub const HOST_EVENTS: [Event; 2] = [Event::CPU_CYCLES, Event::INST_RETIRED];

/// An event of [`HOST_EVENTS`] this core's PMU lacks, with the register that says so: a fact
/// about the core (QEMU has INST_RETIRED only under `-icount`), not a failed check.
#[derive(Clone, Copy, Debug)]
pub struct Unsupported {
    pub event: Event,
    pub events: EventSet,
}

impl Unsupported {
    /// The first of [`HOST_EVENTS`] that this core's PMU does not implement, if any.
    pub fn on_this_core() -> Option<Unsupported> {
        let events = detect(&SysRegPmu::new()).ok()?.events;
        HOST_EVENTS
            .into_iter()
            .find(|event| !events.contains(*event))
            .map(|event| Unsupported { event, events })
    }
}

impl core::fmt::Display for Unsupported {
    /// `INST_RETIRED not supported by this PMU (PMCEID0_EL0 = 0x1, bit 8 clear)`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let number = self.event.number();
        let (register, value, bit) = if number < 0x20 {
            ("PMCEID0_EL0", self.events.pmceid0(), number)
        } else {
            ("PMCEID1_EL0", self.events.pmceid1(), number % 0x20)
        };
        write!(
            f,
            "{} not supported by this PMU ({register} = {value:#x}, bit {bit} clear)",
            self.event
        )
    }
}

/// Host counts over one measured interval.
#[derive(Clone, Copy, Debug, Default)]
pub struct HostDelta {
    /// INST_RETIRED.
    pub instructions: u64,
    /// CPU_CYCLES (PMCCNTR).
    pub cycles: u64,
}

impl HostDelta {
    /// The counts from `earlier` to `self` (two [`HostMeter::read`] readings).
    pub fn since(self, earlier: HostDelta) -> HostDelta {
        HostDelta {
            instructions: self.instructions.wrapping_sub(earlier.instructions),
            cycles: self.cycles.wrapping_sub(earlier.cycles),
        }
    }
}

/// The real PMU, counting INST_RETIRED and CPU_CYCLES.
pub struct HostMeter {
    pmu: Pmu<SysRegPmu>,
    before: Snapshot,
    after: Snapshot,
}

impl HostMeter {
    /// Programs the real PMU and starts it.
    pub fn new() -> Result<Self, Error> {
        let mut pmu = Pmu::new(SysRegPmu::new())?;
        pmu.program(Event::CPU_CYCLES)?;
        pmu.program(Event::INST_RETIRED)?;
        pmu.start()?;
        Ok(Self {
            pmu,
            before: Snapshot::new(),
            after: Snapshot::new(),
        })
    }

    /// Programs the real PMU for CPU_CYCLES alone (a PMU without INST_RETIRED, as QEMU's without
    /// `-icount`) and starts it; [`read`](Self::read) then reports 0 instructions.
    pub fn cycles_only() -> Result<Self, Error> {
        let mut pmu = Pmu::new(SysRegPmu::new())?;
        pmu.program(Event::CPU_CYCLES)?;
        pmu.start()?;
        Ok(Self {
            pmu,
            before: Snapshot::new(),
            after: Snapshot::new(),
        })
    }

    /// Whether the meter counts INST_RETIRED.
    pub fn counts_instructions(&self) -> bool {
        self.after.count_of(Event::INST_RETIRED).is_some()
    }

    /// The counts since [`new`](Self::new) (to subtract two readings).
    pub fn read(&mut self) -> Result<HostDelta, Error> {
        self.pmu.snapshot_into(&mut self.after)?;
        Ok(HostDelta {
            instructions: self.after.count_of(Event::INST_RETIRED).unwrap_or(0),
            cycles: self.after.count_of(Event::CPU_CYCLES).unwrap_or(0),
        })
    }

    /// Runs `f` between two snapshots and returns its result with the host counts.
    pub fn measure<R>(&mut self, f: impl FnOnce() -> R) -> Result<(R, HostDelta), Error> {
        self.pmu.snapshot_into(&mut self.before)?;
        let result = f();
        self.pmu.snapshot_into(&mut self.after)?;
        let delta = self.after.delta(&self.before);
        Ok((
            result,
            HostDelta {
                instructions: delta.count_of(Event::INST_RETIRED).unwrap_or(0),
                cycles: delta.count_of(Event::CPU_CYCLES).unwrap_or(0),
            },
        ))
    }
}

/// `a / b` with two decimals (for per-SPU-cycle figures), `-` for b = 0.
pub struct PerCycle(pub u64, pub u64);

impl core::fmt::Display for PerCycle {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.1 == 0 {
            return f.pad("-");
        }
        let hundredths = (u128::from(self.0) * 100 + u128::from(self.1) / 2) / u128::from(self.1);
        let mut s: heapless::String<32> = heapless::String::new();
        core::fmt::write(
            &mut s,
            format_args!("{}.{:02}", hundredths / 100, hundredths % 100),
        )?;
        f.pad(&s)
    }
}
