//! Counters prepared for reading together: every check once, at preparation; straight-line
//! reads afterwards.
#![forbid(unsafe_code)]

use super::backend::{ExceptionLevel, PmuBackend, PmuRegister, RegisterAccess, el0_access_check};
use super::counter::Counter;
use super::driver::Pmu;
use super::error::Error;

/// PMCCNTR_EL0 and the event counters PMEVCNTR0..`EVENTS`-1, prepared for reading together.
///
/// [`Pmu::snapshot_into`] decides per counter, on every call, which counters are programmed,
/// whether the Exception level may read them and how to widen them to 64 bits. A group makes
/// those decisions once, in [`Pmu::group`]: the counters must be programmed and exist, and at
/// EL0 PMUSERENR_EL0 must let every read through. [`read_into`](Self::read_into) then is an
/// `isb`, one `mrs` per counter, one `mrs` of PMOVSSET_EL0 and the copy of the software
/// extension; only when an overflow flag is set does it take the flags into the extension
/// (and read the wrapped counters again).
///
/// The group borrows the `Pmu` mutably, so no counter can be reprogrammed, released, reset or
/// preloaded while it exists: what the checks established stays true without any check per
/// read. [`start`](Self::start) and [`stop`](Self::stop) stay available through the group;
/// they change whether counters count, not what.
///
/// The cycle counter is always 64 bits wide (the driver sets PMCR.LC); event counters are 32
/// bits wide before PMUv3p5 and are widened to 64 bits by the same software extension as
/// [`Pmu::read`] uses, so the two agree.
///
/// ```
/// use pmprobe::pmu::{EmulatedPmu, Event, Pmu};
/// let cpu = EmulatedPmu::qemu_cortex_a57();
/// let mut pmu = Pmu::new(&cpu)?;
/// pmu.program(Event::CPU_CYCLES)?;
/// pmu.program(Event::INST_RETIRED)?;
/// pmu.start()?;
/// let mut group = pmu.group::<1>()?;
/// let before = *group.read()?;
/// cpu.tick_cycles(10);
/// cpu.count(Event::INST_RETIRED.number(), 4);
/// let after = group.read()?;
/// assert_eq!(after.cycles() - before.cycles(), 10);
/// assert_eq!(after.delta(&before).event(0), Some(4));
/// # Ok::<(), pmprobe::pmu::Error>(())
/// ```
///
/// Reprogramming while a group exists does not compile:
/// ```compile_fail
/// use pmprobe::pmu::{EmulatedPmu, Event, Pmu};
/// let cpu = EmulatedPmu::qemu_cortex_a57();
/// let mut pmu = Pmu::new(&cpu).unwrap();
/// pmu.program(Event::CPU_CYCLES).unwrap();
/// let mut group = pmu.group::<0>().unwrap();
/// pmu.program(Event::INST_RETIRED).unwrap();
/// group.read().unwrap();
/// ```
#[derive(Debug)]
pub struct CounterGroup<'p, B: PmuBackend, const EVENTS: usize> {
    pmu: &'p mut Pmu<B>,
    /// The last read. Its extension is the group's share of the driver's: only overflows taken
    /// through the group change it while the group exists (the group holds the only access to
    /// the driver), so [`read`](Self::read) leaves it alone unless a flag is set.
    latest: GroupSnapshot<EVENTS>,
}

/// The values a [`CounterGroup`] read at one moment.
///
/// Event counter values are kept as read together with the software extension that applied
/// at that moment (as a number of 2^32 wraps); [`event`](Self::event) puts them together.
/// Keeping both lets a read store what it has instead of widening every counter on the hot
/// path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// In this order, the read's stores pair up: the event counters, then the cycle counter next to
// the first wraps (both stored after the overflow check).
#[repr(C)]
pub struct GroupSnapshot<const EVENTS: usize> {
    /// Event counter values as the hardware holds them.
    raw: [u64; EVENTS],
    cycles: u64,
    /// Per event counter, the 2^32 wraps of the software extension (0 for 64-bit counters).
    wraps: [u32; EVENTS],
}

impl<const EVENTS: usize> Default for GroupSnapshot<EVENTS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const EVENTS: usize> GroupSnapshot<EVENTS> {
    /// All counts 0.
    pub const fn new() -> Self {
        Self {
            raw: [0; EVENTS],
            cycles: 0,
            wraps: [0; EVENTS],
        }
    }

    /// PMCCNTR_EL0.
    pub const fn cycles(&self) -> u64 {
        self.cycles
    }

    /// The 64-bit count of PMEVCNTR`index`, `None` past `EVENTS`.
    pub fn event(&self, index: usize) -> Option<u64> {
        let raw = self.raw.get(index)?;
        let wraps = self.wraps.get(index)?;
        Some((u64::from(*wraps) << 32).wrapping_add(*raw))
    }

    /// The 64-bit counts of PMEVCNTR0..`EVENTS`-1.
    pub fn events(&self) -> [u64; EVENTS] {
        core::array::from_fn(|index| self.event(index).unwrap_or(0))
    }

    /// `self - earlier`, counter by counter: modular, so a count that wrapped past 2^64 in
    /// between still gives the right difference.
    pub fn delta(&self, earlier: &Self) -> Self {
        Self {
            cycles: self.cycles.wrapping_sub(earlier.cycles),
            raw: core::array::from_fn(|index| {
                let later = self.event(index).unwrap_or(0);
                later.wrapping_sub(earlier.event(index).unwrap_or(0))
            }),
            wraps: [0; EVENTS],
        }
    }
}

impl<B: PmuBackend> Pmu<B> {
    /// Prepares PMCCNTR_EL0 and PMEVCNTR0..`EVENTS`-1 for reading together (see
    /// [`CounterGroup`]).
    ///
    /// Errors: [`Error::CounterOutOfRange`] when the PMU has fewer than `EVENTS` event
    /// counters, [`Error::NotProgrammed`] for the first counter of the group that is not
    /// programmed, [`Error::Access`] at EL0 when PMUSERENR_EL0 does not allow reading the
    /// counters and the overflow flags (PMUSERENR_EL0.EN), [`Error::ChainedPair`] for the first
    /// counter of the group that belongs to a chained pair ([`Pmu::program_long`]).
    pub fn group<const EVENTS: usize>(&mut self) -> Result<CounterGroup<'_, B, EVENTS>, Error> {
        let counters = usize::from(self.info().counters);
        if EVENTS > counters {
            // The first counter of the group that does not exist.
            return Err(Error::CounterOutOfRange(self.info().counters));
        }
        self.check_programmed(Counter::Cycle)?;
        for index in 0..EVENTS as u8 {
            self.check_programmed(Counter::Event(index))?;
            // A group reads each counter as one 32-bit value widened in software; the halves
            // of a chained pair are not that.
            if self.pair_bits() & 1 << index != 0 {
                return Err(Error::ChainedPair(Counter::Event(index)));
            }
        }
        let backend = self.backend();
        if backend.current_el() == ExceptionLevel::El0 {
            let userenr = backend.read(PmuRegister::Userenr)?;
            let reads = [PmuRegister::Ccntr, PmuRegister::OvsSet]
                .into_iter()
                .chain((0..EVENTS as u8).map(PmuRegister::EvCntr));
            for register in reads {
                el0_access_check(ExceptionLevel::El0, userenr, register, RegisterAccess::Read)?;
            }
            el0_access_check(
                ExceptionLevel::El0,
                userenr,
                PmuRegister::OvsClr,
                RegisterAccess::Write,
            )?;
        }
        let mut latest = GroupSnapshot::new();
        latest.wraps = core::array::from_fn(|index| self.wraps().get(index).copied().unwrap_or(0));
        Ok(CounterGroup { pmu: self, latest })
    }
}

/// Reads PMEVCNTR<n> into `raw[n]` for every listed n below `EVENTS`, written out per n rather
/// than as a loop: each register number is then a constant, and the system-register back end's
/// `match` on it folds to a single `mrs`.
macro_rules! read_event_counters {
    ($backend:expr, $raw:expr, $($index:literal)*) => {
        $(
            if $index < EVENTS
                && let Some(raw) = $raw.get_mut($index)
            {
                *raw = $backend.read_prepared(PmuRegister::EvCntr($index))?;
            }
        )*
    };
}

impl<B: PmuBackend, const EVENTS: usize> CounterGroup<'_, B, EVENTS> {
    /// Reads the group into its own snapshot and returns it: the cheapest read, since the
    /// extension kept there changes only when an overflow is taken. Copy the snapshot out
    /// (`*group.read()?`) to keep it past the next read, or use [`read_into`](Self::read_into).
    ///
    /// Errors only where the back end refuses a read after all (the emulated PMU can be
    /// switched to another Exception level behind the group's back); the system-register back
    /// end at the group's own level never fails.
    #[inline]
    pub fn read(&mut self) -> Result<&GroupSnapshot<EVENTS>, Error> {
        let (cycles, raw, flags) = self.read_counters()?;
        self.latest.raw = raw;
        self.latest.cycles = cycles;
        if flags != 0 {
            take_overflows(
                self.pmu,
                &mut self.latest.wraps,
                &mut self.latest.raw,
                flags,
            )?;
        }
        Ok(&self.latest)
    }

    /// Reads the group into `out` (replacing its contents), which also gets a copy of the
    /// extension. Errors as [`read`](Self::read); `out` is unchanged after an error.
    #[inline]
    pub fn read_into(&mut self, out: &mut GroupSnapshot<EVENTS>) -> Result<(), Error> {
        let (cycles, raw, flags) = self.read_counters()?;
        out.raw = raw;
        if flags != 0 {
            return self.read_into_after_overflow(out, cycles, flags);
        }
        out.cycles = cycles;
        out.wraps = self.latest.wraps;
        Ok(())
    }

    /// The snapshot of the last [`read`](Self::read) (all zero before the first).
    pub fn latest(&self) -> &GroupSnapshot<EVENTS> {
        &self.latest
    }

    /// Starts counting (see [`Pmu::start`]).
    pub fn start(&mut self) -> Result<(), Error> {
        self.pmu.start()
    }

    /// Stops counting (see [`Pmu::stop`]).
    pub fn stop(&mut self) -> Result<(), Error> {
        self.pmu.stop()
    }

    /// The driver, for anything that does not reprogram it.
    pub fn pmu(&self) -> &Pmu<B> {
        self.pmu
    }

    /// The straight-line part of a read: an `isb`, the cycle counter, the event counters and
    /// the overflow flags.
    #[inline(always)]
    fn read_counters(&self) -> Result<(u64, [u64; EVENTS], u64), Error> {
        let backend = self.pmu.backend();
        backend.isb();
        let cycles = backend.read_prepared(PmuRegister::Ccntr)?;
        let mut raw = [0; EVENTS];
        read_event_counters!(
            backend, raw, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26
            27 28 29 30
        );
        let flags = backend.read_prepared(PmuRegister::OvsSet)?;
        Ok((cycles, raw, flags))
    }

    /// The rare path of [`read_into`](Self::read_into): some overflow flag is set.
    #[cold]
    #[inline(never)]
    fn read_into_after_overflow(
        &mut self,
        out: &mut GroupSnapshot<EVENTS>,
        cycles: u64,
        flags: u64,
    ) -> Result<(), Error> {
        take_overflows(self.pmu, &mut self.latest.wraps, &mut out.raw, flags)?;
        out.cycles = cycles;
        out.wraps = self.latest.wraps;
        Ok(())
    }
}

/// The rare path of a read: some overflow flag is set. Flags of programmed counters go into
/// the driver's software extension, and the group's share of it into `wraps`; a 32-bit counter
/// of the group whose flag was set may have been read just before it wrapped, so it is read
/// again into `raw`.
#[cold]
#[inline(never)]
fn take_overflows<B: PmuBackend, const EVENTS: usize>(
    pmu: &mut Pmu<B>,
    wraps: &mut [u32; EVENTS],
    raw: &mut [u64; EVENTS],
    flags: u64,
) -> Result<(), Error> {
    let flags = flags & pmu.programmed_mask();
    if flags == 0 {
        return Ok(());
    }
    pmu.take_overflows(flags)?;
    for (index, (wraps, raw)) in wraps.iter_mut().zip(raw.iter_mut()).enumerate() {
        let counter = Counter::Event(index as u8);
        *wraps = pmu.wraps().get(index).copied().unwrap_or(0);
        if flags & counter.bit() != 0 && pmu.is_narrow(counter) {
            *raw = pmu.backend().read_prepared(counter.register())?;
        }
    }
    Ok(())
}
