//! 64-bit event counts on 32-bit event counters through CHAIN: Linux arm_pmuv3's `long`
//! (64-bit) events. The event counts on an even counter 2n and the odd counter 2n+1 counts
//! CHAIN, one increment per 32-bit overflow of 2n, so the pair holds the count's bits \[63:32\]
//! in the odd counter and \[31:0\] in the even one. On PMUv3p5 the driver sets PMCR.LP and
//! every event counter is 64 bits wide, so no pair is needed.
//!
//! The pair behaves as one counter, named by its even counter: [`Pmu::read`] reads the odd
//! counter, the even one and the odd one again (a carry between the first two shows as a
//! changed upper half, and the even counter is read again); [`Pmu::preload`],
//! [`Pmu::set_period`] and [`Pmu::release`] act on both; the overflow that matters is the odd
//! counter's (the pair wrapping past 2^64), so that is the one whose interrupt is enabled.
#![forbid(unsafe_code)]

use super::backend::{PmuBackend, PmuRegister};
use super::counter::Counter;
use super::driver::Pmu;
use super::error::Error;
use super::event::Event;
use super::regs::COUNTER_32_MAX;

impl<B: PmuBackend> Pmu<B> {
    /// Programs `event` for a 64-bit count: CPU_CYCLES on PMCCNTR while it is free (64 bits
    /// with PMCR.LC), on PMUv3p5 any free event counter (64 bits with PMCR.LP), otherwise the
    /// lowest free even/odd pair of event counters chained with CHAIN. The count starts at 0.
    ///
    /// Errors: [`Error::EventNotImplemented`] for `event`, or for CHAIN when a pair is needed
    /// and the PMU does not announce it in PMCEID0 (QEMU 7.2 does not); [`Error::NoFreeCounter`]
    /// on PMUv3p5; [`Error::NoFreeCounterPair`] when no pair is free.
    ///
    /// ```
    /// use pmprobe::pmu::{Counter, EmulatedConfig, EmulatedPmu, Event, Pmu};
    /// // A 32-bit PMUv3 core that implements CHAIN (0x1E) and L1D_CACHE (0x04).
    /// let cpu = EmulatedPmu::new(EmulatedConfig {
    ///     ceid0: 1 << 0x1E | 1 << 0x04 | 1 << 0x11,
    ///     ..EmulatedConfig::qemu_cortex_a57()
    /// });
    /// let mut pmu = Pmu::new(&cpu)?;
    /// let accesses = pmu.program_long(Event::L1D_CACHE)?;
    /// assert_eq!(accesses, Counter::Event(0));
    /// assert!(pmu.is_chained(accesses));
    /// pmu.start()?;
    /// cpu.count(Event::L1D_CACHE.number(), 5 << 32);
    /// assert_eq!(pmu.read(accesses)?, 5 << 32);
    /// # Ok::<(), pmprobe::pmu::Error>(())
    /// ```
    pub fn program_long(&mut self, event: Event) -> Result<Counter, Error> {
        self.check_implemented(event)?;
        if (event == Event::CPU_CYCLES && self.slot(Counter::Cycle).is_none())
            || self.info().long_event_counters
        {
            return self.program(event);
        }
        self.check_chain_implemented()?;
        let pair = (0..self.info().counters / 2)
            .map(|n| Counter::Event(2 * n))
            .find(|&even| self.pair_is_free(even))
            .ok_or(Error::NoFreeCounterPair)?;
        self.enable_pair(pair, event, false)?;
        Ok(pair)
    }

    /// Programs `event` for a 64-bit count on the given counter: on PMUv3p5 (or for
    /// PMCCNTR) that counter alone, otherwise the pair of the even event counter `counter`
    /// and the odd one above it. `interrupt` enables the overflow interrupt of the 64-bit
    /// count: PMINTENSET of the odd counter for a pair.
    ///
    /// Errors: those of [`program_on`](Self::program_on), [`Error::EventNotImplemented`] for
    /// CHAIN when the PMU does not announce it, [`Error::NoFreeCounterPair`] when `counter` is
    /// odd or the highest counter (no partner above it), [`Error::CounterBusy`] when either
    /// counter of the pair is programmed.
    pub fn program_long_on(
        &mut self,
        counter: Counter,
        event: Event,
        interrupt: bool,
    ) -> Result<(), Error> {
        if counter == Counter::Cycle || self.info().long_event_counters {
            return self.program_on(counter, event, interrupt);
        }
        self.check_counter(counter)?;
        self.check_implemented(event)?;
        self.check_chain_implemented()?;
        let Counter::Event(even) = counter else {
            return Err(Error::NoFreeCounterPair);
        };
        if even % 2 != 0 || even + 1 >= self.info().counters {
            return Err(Error::NoFreeCounterPair);
        }
        for half in [counter, Counter::Event(even + 1)] {
            if self.slot(half).is_some() {
                return Err(Error::CounterBusy(half));
            }
        }
        self.enable_pair(counter, event, interrupt)
    }

    /// Whether `counter` is the even counter of a chained pair.
    pub fn is_chained(&self, counter: Counter) -> bool {
        match counter {
            Counter::Event(n) => n < 32 && self.pairs & 1 << n != 0,
            Counter::Cycle => false,
        }
    }

    /// The PMOVSSET/PMINTENSET bit that reports the overflow of `counter`'s count: the odd
    /// counter's bit for a chained pair (the 64-bit count wrapping), the counter's own bit
    /// otherwise. A sampling interrupt handler tests the flags [`service_overflow`] returns
    /// against it.
    ///
    /// [`service_overflow`]: Self::service_overflow
    pub fn overflow_bit(&self, counter: Counter) -> u64 {
        match counter {
            Counter::Event(n) if self.is_chained(counter) => Counter::Event(n + 1).bit(),
            _ => counter.bit(),
        }
    }

    /// Makes `counter`'s count overflow (and raise its interrupt, when enabled) after
    /// `period` more events: it is preloaded with 2^64 - `period`, which a sampling handler
    /// writes again after each overflow. A chained pair or a 64-bit counter takes any period
    /// from 1; a 32-bit counter overflows after at most 2^32 events.
    ///
    /// Errors: [`Error::PeriodOutOfRange`], and those of [`preload`](Self::preload).
    pub fn set_period(&mut self, counter: Counter, period: u64) -> Result<(), Error> {
        let narrow = self.is_narrow(counter);
        if period == 0 || (narrow && period > COUNTER_32_MAX + 1) {
            return Err(Error::PeriodOutOfRange { counter, period });
        }
        self.preload(counter, period.wrapping_neg())
    }

    /// Counters of chained pairs, both halves.
    pub(super) fn pair_bits(&self) -> u32 {
        self.pairs | self.pairs << 1
    }

    /// The odd counter of a pair is reached only through the even one.
    pub(super) fn check_not_upper_half(&self, counter: Counter) -> Result<(), Error> {
        match counter {
            Counter::Event(n) if n > 0 && n < 32 && self.pairs & 1 << (n - 1) != 0 => {
                Err(Error::ChainedPair(counter))
            }
            _ => Ok(()),
        }
    }

    /// The 64-bit count of the pair headed by `even`: upper half, lower half, upper half
    /// again. When the upper half changed in between, the lower one wrapped after it was
    /// read and is read again (it cannot wrap twice within two reads).
    pub(super) fn read_pair(&self, even: Counter) -> Result<u64, Error> {
        let (low, high) = pair_registers(even);
        let b = self.backend();
        let high_before = b.read(high)? & COUNTER_32_MAX;
        let mut low_value = b.read(low)? & COUNTER_32_MAX;
        let high_after = b.read(high)? & COUNTER_32_MAX;
        if high_after != high_before {
            low_value = b.read(low)? & COUNTER_32_MAX;
        }
        Ok(high_after << 32 | low_value)
    }

    /// Writes a pair's 64-bit value with the even counter stopped, so that no carry falls
    /// between the two writes, and clears both overflow flags.
    pub(super) fn preload_pair(&mut self, even: Counter, value: u64) -> Result<(), Error> {
        let (low, high) = pair_registers(even);
        let b = self.backend();
        let running = b.read(PmuRegister::CntenSet)? & even.bit();
        b.write(PmuRegister::CntenClr, even.bit())?;
        b.isb();
        b.write(low, value & COUNTER_32_MAX)?;
        b.write(high, value >> 32)?;
        b.write(PmuRegister::OvsClr, pair_mask(even))?;
        b.isb();
        if running != 0 {
            b.write(PmuRegister::CntenSet, even.bit())?;
            b.isb();
        }
        Ok(())
    }

    /// Frees both counters of a pair: the even one stops first, so the odd one sees no
    /// overflow while it is being stopped (kvm-unit-tests' `disable_chain_counter` order).
    pub(super) fn release_pair(&mut self, even: Counter) -> Result<(), Error> {
        let odd = upper_half(even);
        let b = self.backend();
        b.write(PmuRegister::CntenClr, even.bit())?;
        b.isb();
        b.write(PmuRegister::CntenClr, odd.bit())?;
        b.isb();
        b.write(PmuRegister::IntenClr, pair_mask(even))?;
        b.isb();
        b.write(PmuRegister::OvsClr, pair_mask(even))?;
        b.isb();
        self.set_slot(even, None);
        self.set_slot(odd, None);
        self.set_pair(even, false);
        Ok(())
    }

    fn check_chain_implemented(&self) -> Result<(), Error> {
        if self.info().events.contains(Event::CHAIN) {
            Ok(())
        } else {
            Err(Error::EventNotImplemented(Event::CHAIN))
        }
    }

    fn pair_is_free(&self, even: Counter) -> bool {
        self.slot(even).is_none() && self.slot(upper_half(even)).is_none()
    }

    /// Programs a pair in Linux's order for one counter, applied to both: disabled, event
    /// types written (the odd counter's CHAIN first), flags cleared, counts zeroed, the odd
    /// counter's interrupt enabled if asked; then the odd counter is enabled before the even
    /// one, so it is counting before the first overflow can reach it.
    fn enable_pair(&mut self, even: Counter, event: Event, interrupt: bool) -> Result<(), Error> {
        let odd = upper_half(even);
        let (low, high) = pair_registers(even);
        let (Counter::Event(e), Counter::Event(o)) = (even, odd) else {
            return Err(Error::NoFreeCounterPair);
        };
        let filter = self.filter;
        let b = self.backend();
        b.write(PmuRegister::CntenClr, pair_mask(even))?;
        b.isb();
        b.write(
            PmuRegister::EvTyper(o),
            filter | u64::from(Event::CHAIN.number()),
        )?;
        b.write(PmuRegister::EvTyper(e), filter | u64::from(event.number()))?;
        b.write(PmuRegister::OvsClr, pair_mask(even))?;
        b.write(high, 0)?;
        b.write(low, 0)?;
        if interrupt {
            b.write(PmuRegister::IntenSet, odd.bit())?;
        }
        b.isb();
        b.write(PmuRegister::CntenSet, odd.bit())?;
        b.isb();
        b.write(PmuRegister::CntenSet, even.bit())?;
        self.set_slot(even, Some(event));
        self.set_slot(odd, Some(Event::CHAIN));
        self.set_high(even, 0);
        self.set_high(odd, 0);
        self.set_pair(even, true);
        Ok(())
    }

    fn set_pair(&mut self, even: Counter, chained: bool) {
        let bit = even.bit() as u32;
        self.pairs = if chained {
            self.pairs | bit
        } else {
            self.pairs & !bit
        };
    }
}

/// The odd counter above an even event counter.
fn upper_half(even: Counter) -> Counter {
    match even {
        Counter::Event(n) => Counter::Event(n + 1),
        Counter::Cycle => Counter::Cycle,
    }
}

/// The PMEVCNTR registers of a pair: (lower half, upper half).
fn pair_registers(even: Counter) -> (PmuRegister, PmuRegister) {
    (even.register(), upper_half(even).register())
}

/// Both counters' bits in PMCNTEN/PMOVS/PMINTEN.
fn pair_mask(even: Counter) -> u64 {
    even.bit() | upper_half(even).bit()
}
