//! `--interval-ms N`: interval mode (`perf stat -I N`) on the SPU phase. While an SPU runs,
//! its core takes a reading of the SPU's multiplexer every N ms of the generic timer (between
//! two slices of the counted run) into a fixed ring that counts what it drops, and prints the
//! ring's readings as perf stat -I lines straight to the console, tagged with the SPU as
//! `perf stat -I -A` tags a CPU: the lines come while the phase runs, not in the SPU's
//! section. Counts, time enabled and time running are the interval's own (SPU cycles); the
//! timestamp is the generic timer's time since the phase started.

use core::sync::atomic::{AtomicU64, Ordering};

use pmprobe::pmu::{
    IntervalDeltas, IntervalReading, IntervalRing, IntervalTimer, MuxError, PerUnit, Readings,
    ticks_to_nanos, write_interval, write_interval_header,
};
use pmprobe::rt::console::Console;
use pmprobe::rt::timer;

use super::spu_pmu::{EVENTS, SpuMux};
use crate::demo::shared::checks::Checks;
use crate::demo::shared::output::outln;

/// Readings the ring holds.
pub const RING: usize = 8;

/// The generic-timer count at the start of the SPU phase: time 0 of every interval line.
static PHASE_START: AtomicU64 = AtomicU64::new(0);

/// Marks the start of the phase and prints the header of the interval lines.
pub fn start_phase(interval_ms: u32) {
    PHASE_START.store(timer::now(), Ordering::Relaxed);
    pmprobe::println!();
    pmprobe::println!(
        "== Interval mode: every {interval_ms} ms of the generic timer, each SPU's multiplexed PMU (perf stat -I {interval_ms} -A)"
    );
    let _ = write_interval_header(&mut Console, Some("spu"));
}

/// One SPU's interval mode.
pub struct IntervalMode {
    spu: u32,
    interval_ms: u32,
    timer: IntervalTimer,
    ring: IntervalRing<RING, EVENTS>,
    deltas: IntervalDeltas<EVENTS>,
    /// Per event, the raw counts of the intervals printed, added up.
    sums: [u64; EVENTS],
    printed: u64,
}

impl IntervalMode {
    /// Readings every `interval_ms` from the start of the phase.
    pub fn new(spu: usize, interval_ms: u32) -> Option<Self> {
        let start = PHASE_START.load(Ordering::Relaxed);
        let ticks = u64::from(interval_ms) * timer::frequency() / 1000;
        Some(Self {
            spu: spu as u32,
            interval_ms,
            timer: IntervalTimer::new(start, ticks).ok()?,
            ring: IntervalRing::new(),
            deltas: IntervalDeltas::new(start),
            sums: [0; EVENTS],
            printed: 0,
        })
    }

    /// Takes a reading if one is due (`cycles`: the SPU's clock now), and prints the ring.
    pub fn poll(&mut self, mux: &mut SpuMux<'_, '_>, cycles: u64) -> Result<(), MuxError> {
        let now = timer::now();
        if self.timer.poll(now) {
            self.take(mux, cycles, now)?;
        }
        Ok(())
    }

    /// The last, partial interval when the SPU stopped (perf prints one when the workload
    /// exits); `readings` are the multiplexer's final ones.
    pub fn finish(&mut self, readings: &Readings<EVENTS>) {
        self.ring.push(IntervalReading {
            time: timer::now(),
            readings: readings.clone(),
        });
        self.print();
    }

    fn take(&mut self, mux: &mut SpuMux<'_, '_>, cycles: u64, now: u64) -> Result<(), MuxError> {
        let readings = mux.read(cycles)?;
        self.ring.push(IntervalReading {
            time: now,
            readings,
        });
        self.print();
        Ok(())
    }

    /// Prints every reading the ring holds, oldest first, as the interval since the previous.
    fn print(&mut self) {
        while let Some(reading) = self.ring.pop() {
            let (since_start, interval) = self.deltas.next(&reading);
            let nanos = ticks_to_nanos(since_start, timer::frequency());
            let per = PerUnit {
                kind: "SPU",
                number: self.spu,
            };
            let _ = write_interval(&mut Console, nanos, Some(per), interval.as_slice());
            for (sum, reading) in self.sums.iter_mut().zip(interval.iter()) {
                *sum += reading.raw;
            }
            self.printed += 1;
        }
    }

    /// Says what interval mode printed and checks that the intervals add up to the totals.
    pub fn report(&self, totals: &Readings<EVENTS>, checks: &mut Checks) {
        outln!(
            "  interval mode: {} readings printed, every {} ms ({} generic-timer ticks) and at the stop; {} dropped (ring of {RING})",
            self.printed,
            self.interval_ms,
            self.timer.period(),
            self.ring.dropped()
        );
        let add_up = totals
            .iter()
            .zip(self.sums.iter())
            .all(|(total, sum)| total.raw == *sum);
        checks.check(
            format_args!("spu{}_intervals_add_up", self.spu),
            add_up && self.printed > 0,
            format_args!(
                "each event's interval counts add up to its total ({} intervals)",
                self.printed
            ),
        );
    }
}
