//! Differential test: one scenario (program counters, run a fixed instruction block with SW
//! increments, overflow, reset, read everything through the driver) runs on QEMU's real PMU and
//! on the emulated PMUv3 with the QEMU cortex-a57 preset fed the same event counts; every value
//! read through the driver must be equal.
//!
//! On the real PMU all counting happens inside `gated_block` (PMCR.E is set and cleared inside
//! the asm), so the counts are exactly those of the block: GATED_BLOCK_INSTRUCTIONS instructions
//! and cycles (1 per instruction with `-icount shift=0`) and 2 PMSWINC writes. The emulated
//! block makes the same register writes and feeds those counts.
#![no_std]
#![no_main]

#[path = "../pmu_blocks.rs"]
mod pmu_blocks;

use pmprobe::pmu::EmulatedPmu;
use pmprobe::pmu::Event;
use pmprobe::pmu::SysRegPmu;
use pmprobe::pmu::{Counter, Pmu};
use pmprobe::pmu::{PmuBackend, PmuRegister};
use pmu_blocks::*;

pmprobe::entry!(main);

const MAX_VALUES: usize = 80;

/// Everything the scenario read, in order, with a label.
struct Record {
    labels: [&'static str; MAX_VALUES],
    values: [u64; MAX_VALUES],
    len: usize,
}

impl Record {
    fn new() -> Self {
        Self {
            labels: [""; MAX_VALUES],
            values: [0; MAX_VALUES],
            len: 0,
        }
    }
    fn put(&mut self, label: &'static str, value: u64) {
        if let (Some(l), Some(v)) = (self.labels.get_mut(self.len), self.values.get_mut(self.len)) {
            *l = label;
            *v = value;
            self.len += 1;
        }
    }
    /// A driver result: the value, or a marker with the error's discriminant-ish text hash.
    fn put_result(&mut self, label: &'static str, r: Result<u64, pmprobe::pmu::Error>) {
        match r {
            Ok(v) => self.put(label, v),
            Err(e) => self.put(label, 0xE000_0000_0000_0000 | error_code(&e)),
        }
    }
}

fn error_code(e: &pmprobe::pmu::Error) -> u64 {
    use pmprobe::pmu::Error::*;
    match e {
        NoPmu(_) => 1,
        EventNotImplemented(ev) => 2 << 16 | u64::from(ev.number()),
        NoFreeCounter => 3,
        CounterOutOfRange(n) => 4 << 16 | u64::from(*n),
        NotProgrammed(_) => 5,
        CounterBusy(_) => 6,
        Access(_) => 7,
        EventTooWide { event, bits } => {
            8 << 16 | u64::from(*bits) << 20 | u64::from(event.number())
        }
        NoFreeCounterPair => 9,
        ChainedPair(c) => 10 << 16 | u64::from(c.index()),
        PeriodOutOfRange { counter, .. } => 11 << 16 | u64::from(counter.index()),
    }
}

const SW_MASK: u64 = 0b1010; // counters 1 and 3 count SW_INCR

fn scenario<B: PmuBackend>(backend: B, run_block: impl Fn(&B), rec: &mut Record) {
    let mut pmu = match Pmu::new(backend) {
        Ok(p) => p,
        Err(e) => {
            rec.put("detect_error", error_code(&e));
            return;
        }
    };
    let info = *pmu.info();
    rec.put("pmuver", u64::from(info.version.pmuver()));
    rec.put("counters", u64::from(info.counters));
    rec.put("pmceid0", info.events.pmceid0());
    rec.put("pmceid1", info.events.pmceid1());
    rec.put("imp", u64::from(info.implementer));
    rec.put("idcode", u64::from(info.idcode));
    rec.put("midr_part", u64::from(info.cpu.part));

    let programmed = [
        pmu.program(Event::CPU_CYCLES),
        pmu.program(Event::INST_RETIRED),
        pmu.program(Event::SW_INCR),
        pmu.program(Event::INST_RETIRED),
        pmu.program(Event::SW_INCR),
    ];
    for (i, p) in programmed.iter().enumerate() {
        const LABELS: [&str; 5] = [
            "prog_cycles",
            "prog_inst0",
            "prog_sw1",
            "prog_inst2",
            "prog_sw3",
        ];
        rec.put(
            LABELS[i],
            p.map(|c| u64::from(c.index())).unwrap_or(u64::MAX),
        );
    }
    rec.put_result(
        "prog_l1d_cache",
        pmu.program(Event::L1D_CACHE).map(|c| u64::from(c.index())),
    );
    rec.put_result(
        "prog_counter6",
        pmu.program_on(Counter::Event(6), Event::INST_RETIRED, false)
            .map(|_| 0),
    );
    rec.put_result(
        "preload_inst2",
        pmu.preload(Counter::Event(2), 0xFFFF_FFF8).map(|_| 0),
    );
    rec.put_result(
        "preload_sw3",
        pmu.preload(Counter::Event(3), 0xFFFF_FFFF).map(|_| 0),
    );
    rec.put_result(
        "pmcntenset",
        pmu.backend()
            .read(PmuRegister::CntenSet)
            .map_err(Into::into),
    );
    rec.put_result(
        "pmcr_before",
        pmu.backend().read(PmuRegister::Pmcr).map_err(Into::into),
    );

    // Block 1: counts, SW increments, two overflows (INST on counter 2, SW_INCR on counter 3).
    run_block(pmu.backend());
    rec.put_result("ovs_after_block1", pmu.overflow_flags());
    rec.put_result(
        "raw_cnt2",
        pmu.backend()
            .read(PmuRegister::EvCntr(2))
            .map_err(Into::into),
    );
    rec.put_result(
        "raw_cnt3",
        pmu.backend()
            .read(PmuRegister::EvCntr(3))
            .map_err(Into::into),
    );
    rec.put_result(
        "raw_ccntr",
        pmu.backend().read(PmuRegister::Ccntr).map_err(Into::into),
    );
    let snap1 = pmu.snapshot();
    rec.put(
        "snap1_len",
        snap1.map(|s| u64::from(s.len())).unwrap_or(u64::MAX),
    );
    for c in [
        Counter::Cycle,
        Counter::Event(0),
        Counter::Event(1),
        Counter::Event(2),
        Counter::Event(3),
    ] {
        rec.put(
            "snap1",
            snap1.ok().and_then(|s| s.get(c)).unwrap_or(u64::MAX),
        );
    }
    rec.put_result("ovs_after_snapshot", pmu.overflow_flags());

    // Block 2 and the delta between snapshots.
    run_block(pmu.backend());
    let snap2 = pmu.snapshot();
    for c in [
        Counter::Cycle,
        Counter::Event(0),
        Counter::Event(1),
        Counter::Event(2),
        Counter::Event(3),
    ] {
        rec.put_result("read2", pmu.read(c));
    }
    if let (Ok(a), Ok(b)) = (snap1, snap2) {
        for (_, _, n) in b.delta(&a).iter() {
            rec.put("delta", n);
        }
    } else {
        rec.put("snapshot_error", 1);
    }

    // Reset: everything reads 0, PMCR P/C read as 0.
    rec.put_result("reset_counts", pmu.reset_counts().map(|_| 0));
    rec.put_result(
        "pmcr_after_reset",
        pmu.backend().read(PmuRegister::Pmcr).map_err(Into::into),
    );
    rec.put_result("ovs_after_reset", pmu.overflow_flags());
    for c in [
        Counter::Cycle,
        Counter::Event(0),
        Counter::Event(1),
        Counter::Event(2),
        Counter::Event(3),
    ] {
        rec.put_result("read_after_reset", pmu.read(c));
    }
    // Block 3 after reset, then release one counter and run again.
    run_block(pmu.backend());
    for c in [
        Counter::Cycle,
        Counter::Event(0),
        Counter::Event(1),
        Counter::Event(2),
        Counter::Event(3),
    ] {
        rec.put_result("read3", pmu.read(c));
    }
    rec.put_result("release_inst0", pmu.release(Counter::Event(0)).map(|_| 0));
    run_block(pmu.backend());
    rec.put_result("read4_inst0_released", pmu.read(Counter::Event(0)));
    rec.put_result("read4_inst2", pmu.read(Counter::Event(2)));
    rec.put_result(
        "raw4_cnt0",
        pmu.backend()
            .read(PmuRegister::EvCntr(0))
            .map_err(Into::into),
    );
    rec.put_result(
        "pmcntenset_end",
        pmu.backend()
            .read(PmuRegister::CntenSet)
            .map_err(Into::into),
    );
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("pmu_diff");
    let mut real = Record::new();
    scenario(
        SysRegPmu::new(),
        |_| gated_block(PMCR_LC, SW_MASK),
        &mut real,
    );

    let model = EmulatedPmu::qemu_cortex_a57();
    let mut emulated = Record::new();
    scenario(
        &model,
        |b: &&EmulatedPmu| {
            // The same register writes as gated_block, and the events it makes QEMU count.
            let _ = b.write(PmuRegister::Pmcr, PMCR_LC | PMCR_E);
            let _ = b.write(PmuRegister::Swinc, SW_MASK);
            let _ = b.write(PmuRegister::Swinc, SW_MASK);
            b.count(Event::INST_RETIRED.number(), GATED_BLOCK_INSTRUCTIONS);
            b.tick_cycles(GATED_BLOCK_INSTRUCTIONS);
            let _ = b.write(PmuRegister::Pmcr, PMCR_LC);
        },
        &mut emulated,
    );

    t.check_eq("same_number_of_values", real.len, emulated.len);
    t.check("scenario_recorded_values", real.len > 50);
    let mut mismatches = 0;
    for i in 0..real.len.min(emulated.len) {
        let (label, r, e) = (real.labels[i], real.values[i], emulated.values[i]);
        if r == e {
            pmprobe::println!("value {i:2} {label}: {r:#x} on both");
        } else {
            mismatches += 1;
            pmprobe::println!("value {i:2} {label}: real {r:#x}, emulated {e:#x}  <-- differs");
        }
    }
    pmprobe::println!("compared {} values", real.len);
    t.check_eq("every_value_equal", mismatches, 0);
    // Spot checks that the scenario exercised what it claims (against the block's counts).
    let find = |label: &str| {
        real.labels
            .iter()
            .position(|l| *l == label)
            .map(|i| real.values[i])
    };
    t.check_eq(
        "real_overflowed_counters_2_and_3",
        find("ovs_after_block1"),
        Some(0b1100),
    );
    t.check_eq(
        "real_inst2_wrapped",
        find("raw_cnt2"),
        Some((0xFFFF_FFF8 + GATED_BLOCK_INSTRUCTIONS) & 0xFFFF_FFFF),
    );
    t.check_eq(
        "real_pmcr_after_reset",
        find("pmcr_after_reset"),
        Some(0x4101_3000 | PMCR_LC),
    );
    t.finish()
}
