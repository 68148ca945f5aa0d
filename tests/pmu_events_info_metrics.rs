//! Event names (Arm ARM), EventSet from PMCEID, MIDR/PMUVer decoding, derived metrics and the
//! perf-stat rendering.

use pmprobe::pmu::EmulatedPmu;
use pmprobe::pmu::{Counter, Pmu, Snapshot};
use pmprobe::pmu::{Event, EventSet};
use pmprobe::pmu::{MetricValue, Metrics, render_perf_stat};
use pmprobe::pmu::{PmuVersion, decode_midr};

#[test]
fn common_event_numbers_follow_the_arm_arm_not_the_seed_table() {
    // The seed's table is off by one from 0x05; these are the Arm ARM numbers.
    let expected = [
        (0x00, "SW_INCR"),
        (0x04, "L1D_CACHE"),
        (0x05, "L1D_TLB_REFILL"),
        (0x06, "LD_RETIRED"),
        (0x07, "ST_RETIRED"),
        (0x08, "INST_RETIRED"),
        (0x10, "BR_MIS_PRED"),
        (0x11, "CPU_CYCLES"),
        (0x13, "MEM_ACCESS"),
        (0x1E, "CHAIN"),
        (0x21, "BR_RETIRED"),
        (0x22, "BR_MIS_PRED_RETIRED"),
        (0x3A, "OP_RETIRED"),
        (0x3F, "STALL_SLOT"),
    ];
    for (n, name) in expected {
        let e = Event::raw(n);
        assert_eq!(e.name(), Some(name));
        assert_eq!(e.to_string(), name);
        assert_eq!(name.parse::<Event>(), Ok(e));
    }
    assert_eq!(Event::MEM_ACCESS.number(), 0x13);
    assert_eq!(Event::common().count(), 64);
    assert!(Event::common().all(|e| e.name().is_some()));
    // All 64 names are distinct and parse back to their number.
    for e in Event::common() {
        assert_eq!(e.name().unwrap().parse::<Event>(), Ok(e));
    }
}

#[test]
fn raw_and_implementation_defined_events() {
    // Arm's common table (common_armv9.json) names the recommended event 0x40.
    assert_eq!(Event::raw(0x40).name(), Some("L1D_CACHE_RD"));
    assert_eq!(Event::raw(0x40).to_string(), "L1D_CACHE_RD");
    assert_eq!(Event::raw(0xC0).to_string(), "0x00C0");
    assert_eq!(
        format!("{:>8}", Event::INST_RETIRED.to_string()),
        "INST_RETIRED"
    );
    assert_eq!("0x4005".parse::<Event>(), Ok(Event::raw(0x4005)));
    assert_eq!("r11".parse::<Event>(), Ok(Event::CPU_CYCLES));
    assert_eq!("17".parse::<Event>(), Ok(Event::CPU_CYCLES));
    assert_eq!("inst_retired".parse::<Event>(), Ok(Event::INST_RETIRED));
    assert!("L9_CACHE".parse::<Event>().is_err());
    assert!("0x10000".parse::<Event>().is_err());
}

#[test]
fn event_set_follows_pmceid_bits() {
    let set = EventSet::from_pmceid(0x2_0101, 0);
    assert_eq!(set.len(), 3);
    assert!(
        set.contains(Event::SW_INCR)
            && set.contains(Event::INST_RETIRED)
            && set.contains(Event::CPU_CYCLES)
    );
    assert!(!set.contains(Event::L1D_CACHE));
    // PMCEID1 bit 1 = event 0x21; upper halves = 0x4000.. events.
    let set = EventSet::from_pmceid(1 << 32 | 1 << 37, 1 << 1 | 1 << 63);
    let all: Vec<u16> = set.iter().map(Event::number).collect();
    assert_eq!(all, [0x21, 0x4000, 0x4005, 0x403F]);
    assert!(!set.contains(Event::raw(0x0100)));
}

#[test]
fn pmuver_decoding() {
    let cases = [
        (0x0, PmuVersion::None, "none"),
        (0x1, PmuVersion::V3, "PMUv3"),
        (0x4, PmuVersion::V3p1, "PMUv3p1"),
        (0x5, PmuVersion::V3p4, "PMUv3p4"),
        (0x6, PmuVersion::V3p5, "PMUv3p5"),
        (0x7, PmuVersion::V3p7, "PMUv3p7"),
        (0x8, PmuVersion::V3p8, "PMUv3p8"),
        (0x9, PmuVersion::V3p9, "PMUv3p9"),
        (0xF, PmuVersion::ImpDef, "IMPLEMENTATION DEFINED"),
        (0x3, PmuVersion::Unknown(3), "unknown (0x3)"),
    ];
    for (field, v, text) in cases {
        assert_eq!(PmuVersion::from_id_aa64dfr0(field << 8 | 0x6), v);
        assert_eq!(v.to_string(), text);
    }
    assert!(PmuVersion::V3p7.at_least(PmuVersion::V3p5));
    assert!(!PmuVersion::V3.at_least(PmuVersion::V3p5));
    assert!(!PmuVersion::ImpDef.at_least(PmuVersion::V3));
}

#[test]
fn midr_decoding() {
    let a57 = decode_midr(0x411F_D071);
    assert_eq!(
        (a57.implementer, a57.variant, a57.part, a57.revision),
        (0x41, 1, 0xD07, 1)
    );
    assert_eq!(a57.to_string(), "Arm Cortex-A57 r1p1");
    for (midr, name) in [
        (0x410F_D034, "Arm Cortex-A53 r0p4"),
        (0x410F_D083, "Arm Cortex-A72 r0p3"),
        (0x414F_D0B1, "Arm Cortex-A76 r4p1"),
        (0x413F_D0C1, "Arm Neoverse-N1 r3p1"),
        (0x411F_D401, "Arm Neoverse-V1 r1p1"),
    ] {
        assert_eq!(decode_midr(midr).to_string(), name);
    }
    assert_eq!(
        decode_midr(0x410F_D990).to_string(),
        "Arm unknown (0xd99) r0p0"
    );
    assert_eq!(
        decode_midr(0x1200_0010).to_string(),
        "unknown (0x12) unknown (0x001) r0p0"
    );
}

fn snap(entries: &[(Counter, Event, u64)]) -> Snapshot {
    let mut s = Snapshot::new();
    for &(c, e, n) in entries {
        s.insert(c, e, n);
    }
    s
}

#[test]
fn derived_metrics_from_a_snapshot_pair() {
    let before = snap(&[
        (Counter::Cycle, Event::CPU_CYCLES, 1000),
        (Counter::Event(0), Event::INST_RETIRED, 500),
        (Counter::Event(1), Event::L1D_CACHE, 100),
        (Counter::Event(2), Event::L1D_CACHE_REFILL, 10),
        (Counter::Event(3), Event::BR_RETIRED, 0),
        (Counter::Event(4), Event::BR_MIS_PRED_RETIRED, 0),
    ]);
    let after = snap(&[
        (Counter::Cycle, Event::CPU_CYCLES, 5000),
        (Counter::Event(0), Event::INST_RETIRED, 2500),
        (Counter::Event(1), Event::L1D_CACHE, 500),
        (Counter::Event(2), Event::L1D_CACHE_REFILL, 30),
        (Counter::Event(3), Event::BR_RETIRED, 200),
        (Counter::Event(4), Event::BR_MIS_PRED_RETIRED, 5),
    ]);
    let m = Metrics::between(&before, &after);
    assert_eq!(m.ipc, MetricValue::Value(0.5));
    assert_eq!(m.cpi, MetricValue::Value(2.0));
    assert_eq!(m.l1d_miss_rate, MetricValue::Value(0.05));
    assert_eq!(m.l1d_hit_rate, MetricValue::Value(0.95));
    assert_eq!(m.branch_mispredict_rate, MetricValue::Value(0.025));
    assert_eq!(m.l2d_miss_rate, MetricValue::NotAvailable);
    assert_eq!(m.ll_miss_rate, MetricValue::NotAvailable);
}

#[test]
fn metrics_are_not_available_not_zero_without_their_events() {
    let d = snap(&[(Counter::Event(0), Event::INST_RETIRED, 100)]);
    let m = Metrics::of_delta(&d);
    assert_eq!(m.ipc, MetricValue::NotAvailable);
    assert_eq!(m.l1d_miss_rate, MetricValue::NotAvailable);
    assert_eq!(m.branch_mispredict_rate, MetricValue::NotAvailable);
    assert_eq!(m.ipc.to_string(), "not available");
    // Counted but zero denominator: undefined, also not a number.
    let d = snap(&[
        (Counter::Event(0), Event::INST_RETIRED, 100),
        (Counter::Cycle, Event::CPU_CYCLES, 0),
    ]);
    assert_eq!(Metrics::of_delta(&d).ipc, MetricValue::Undefined);
    // Older branch events are the fallback.
    let d = snap(&[
        (Counter::Event(0), Event::BR_PRED, 50),
        (Counter::Event(1), Event::BR_MIS_PRED, 5),
    ]);
    assert_eq!(
        Metrics::of_delta(&d).branch_mispredict_rate,
        MetricValue::Value(0.1)
    );
}

#[test]
fn perf_stat_rendering_of_a_driver_delta() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    for e in [
        Event::CPU_CYCLES,
        Event::INST_RETIRED,
        Event::L1D_CACHE,
        Event::L1D_CACHE_REFILL,
    ] {
        pmu.program(e).unwrap();
    }
    pmu.start().unwrap();
    let before = pmu.snapshot().unwrap();
    cpu.tick_cycles(2_000_000);
    cpu.count(Event::INST_RETIRED.number(), 1_234_567);
    cpu.count(Event::L1D_CACHE.number(), 400_000);
    cpu.count(Event::L1D_CACHE_REFILL.number(), 10_000);
    let delta = pmu.snapshot().unwrap().delta(&before);
    let mut out = String::new();
    render_perf_stat(&mut out, &delta).unwrap();
    println!("{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.contains(&"           2,000,000      CPU_CYCLES"));
    let inst = lines.iter().find(|l| l.contains("INST_RETIRED")).unwrap();
    assert!(inst.starts_with("           1,234,567      INST_RETIRED"));
    assert!(inst.ends_with("#    0.62  insn per cycle"), "{inst}");
    let refill = lines
        .iter()
        .find(|l| l.contains("L1D_CACHE_REFILL"))
        .unwrap();
    assert!(
        refill.ends_with("#    2.50  % of all L1D_CACHE accesses"),
        "{refill}"
    );
    let l2 = lines.iter().find(|l| l.contains("L2D miss rate")).unwrap();
    assert!(l2.ends_with("not available"), "{l2}");
    let cpi = lines.iter().find(|l| l.contains("CPI")).unwrap();
    assert!(cpi.ends_with("1.620"), "{cpi}");
}

#[test]
fn exception_levels_print_as_the_arm_arm_writes_them() {
    use pmprobe::pmu::ExceptionLevel;
    for (bits, text) in [(0, "EL0"), (1, "EL1"), (2, "EL2"), (3, "EL3"), (5, "EL1")] {
        assert_eq!(
            ExceptionLevel::from_bits(bits).to_string(),
            text,
            "CurrentEL.EL = {bits}"
        );
    }
}
