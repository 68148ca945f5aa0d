//! Top-down level 1 with Arm's published formulas (Arm Telemetry Solution,
//! `data/pmu/cpu/neoverse/neoverse-{n1,n2,v1}.json`), computed by hand below from the formulas
//! as written there, and "not available on this core" elsewhere.

use pmprobe::pmu::topdown::{Category, Method, Unavailable};
use pmprobe::pmu::{
    EmulatedConfig, EmulatedPmu, Event, GroupKind, MetricValue, Multiplexer, Pmu, detect,
};

fn info(midr: u64, ceid1: u64) -> pmprobe::pmu::PmuInfo {
    let config = EmulatedConfig {
        midr,
        ceid1,
        ..EmulatedConfig::neoverse_v1_like()
    };
    detect(&EmulatedPmu::new(config)).unwrap()
}

fn value(v: MetricValue) -> f64 {
    v.value().unwrap_or_else(|| panic!("{v:?}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn cores_without_published_formulas_are_not_available() {
    let a57 = detect(&EmulatedPmu::qemu_cortex_a57()).unwrap();
    let unavailable = Method::for_core(&a57).unwrap_err();
    assert_eq!(
        unavailable,
        Unavailable::NoFormulas {
            implementer: 0x41,
            part: 0xD07
        }
    );
    assert!(
        unavailable
            .to_string()
            .starts_with("not available on this core")
    );
    // A V1 whose PMCEID1 lacks STALL_SLOT (0x3F, bit 31).
    let lacking = info(0x410F_D402, 0xFEF2_AE7F & !(1 << 31));
    assert_eq!(
        Method::for_core(&lacking),
        Err(Unavailable::EventMissing(Event::STALL_SLOT))
    );
}

#[test]
fn neoverse_cores_are_recognised_by_midr() {
    let all = 0xFEF2_AE7F;
    assert_eq!(
        Method::for_core(&info(0x410F_D402, all)),
        Ok(Method::NeoverseV1)
    );
    assert_eq!(
        Method::for_core(&info(0x410F_D490, all)),
        Ok(Method::NeoverseN2)
    );
    assert_eq!(
        Method::for_core(&info(0x414F_D0C1, all)),
        Ok(Method::NeoverseN1)
    );
    // The emulated Neoverse-V1-like preset is a V1 by its MIDR and announces every event.
    let preset = detect(&EmulatedPmu::neoverse_v1_like()).unwrap();
    assert_eq!(Method::for_core(&preset), Ok(Method::NeoverseV1));
}

/// Counts for V1 and N2, chosen so that STALL_SLOT = STALL_SLOT_FRONTEND + STALL_SLOT_BACKEND
/// (after N2's one slot per cycle): the four shares then add up to 100.
fn counts(event: Event, frontend_slots: u64, backend_slots: u64, stall_slots: u64) -> Option<u64> {
    Some(match event {
        Event::CPU_CYCLES => 1000,
        Event::STALL_SLOT_FRONTEND => frontend_slots,
        Event::STALL_SLOT_BACKEND => backend_slots,
        Event::STALL_SLOT => stall_slots,
        Event::OP_RETIRED => 3000,
        Event::OP_SPEC => 4000,
        Event::BR_MIS_PRED => 10,
        _ => return None,
    })
}

#[test]
fn neoverse_v1_slot_formulas() {
    // 8 x CPU_CYCLES = 8000 slots; 1 - STALL_SLOT / 8000 = 0.5; OP_RETIRED / OP_SPEC = 0.75;
    // 4 x BR_MIS_PRED / CPU_CYCLES = 0.04.
    let l1 = Method::NeoverseV1.compute(|e| counts(e, 2400, 1600, 4000));
    assert!(close(value(l1.retiring), 37.5)); // 100 x 0.5 x 0.75
    assert!(close(value(l1.bad_speculation), 16.5)); // 100 x (0.25 x 0.5 + 0.04)
    assert!(close(value(l1.frontend_bound), 26.0)); // 100 x (2400 / 8000 - 0.04)
    assert!(close(value(l1.backend_bound), 20.0)); // 100 x 1600 / 8000
    let sum: f64 = Category::ALL.iter().map(|c| value(l1.get(*c))).sum();
    assert!(close(sum, 100.0));
}

#[test]
fn neoverse_n2_slot_formulas() {
    // 5 x CPU_CYCLES = 5000; 1 - (STALL_SLOT - CPU_CYCLES) / 5000 = 0.5.
    let l1 = Method::NeoverseN2.compute(|e| counts(e, 2000, 1500, 3500));
    assert!(close(value(l1.retiring), 37.5));
    assert!(close(value(l1.bad_speculation), 16.5));
    assert!(close(value(l1.frontend_bound), 19.0)); // 100 x ((2000 - 1000) / 5000 - 0.01)
    assert!(close(value(l1.backend_bound), 27.0)); // 100 x (1500 / 5000 - 0.03)
}

#[test]
fn neoverse_n1_has_cycle_accounting_only() {
    let l1 = Method::NeoverseN1.compute(|e| match e {
        Event::CPU_CYCLES => Some(1000),
        Event::STALL_FRONTEND => Some(150),
        Event::STALL_BACKEND => Some(300),
        _ => None,
    });
    assert!(close(value(l1.frontend_bound), 15.0));
    assert!(close(value(l1.backend_bound), 30.0));
    assert_eq!(l1.retiring, MetricValue::NotAvailable);
    assert_eq!(l1.bad_speculation, MetricValue::NotAvailable);
    let text = l1.to_string();
    assert!(text.contains("TopdownL1"), "{text}");
    assert!(text.contains("frontend_stalled_cycles"), "{text}");
    assert!(
        text.contains("retiring: not available on this core"),
        "{text}"
    );
}

#[test]
fn zero_cycles_make_every_share_undefined() {
    let l1 = Method::NeoverseV1
        .compute(|e| counts(e, 0, 0, 0).map(|n| if e == Event::CPU_CYCLES { 0 } else { n }));
    assert_eq!(l1.retiring, MetricValue::Undefined);
    let missing = Method::NeoverseV1.compute(|_| None);
    assert_eq!(missing.frontend_bound, MetricValue::NotAvailable);
}

#[test]
fn the_formulas_events_fit_one_group_on_a_six_counter_pmu() {
    // Counted as one group, so every ratio comes from the same intervals; here beside a second
    // group that makes them share the counters half the time.
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 8, 2>::new(&mut pmu);
    let topdown = mux
        .add_group(Method::NeoverseV1.events(), GroupKind::Flexible)
        .unwrap();
    mux.add_event(Event::L1D_CACHE).unwrap();
    mux.start(0).unwrap();
    for (time, on) in [(10, true), (20, false), (30, true), (40, false)] {
        assert_eq!(mux.is_scheduled(topdown), on);
        for event in Method::NeoverseV1.events() {
            // A tenth of the counts above per turn: the same ratios.
            cpu.count(
                event.number(),
                counts(*event, 2400, 1600, 4000).unwrap() / 10,
            );
        }
        mux.rotate(time).unwrap();
    }
    let readings = mux.read(40).unwrap();
    let l1 = Method::NeoverseV1.compute(|e| readings.find(e)?.estimate());
    // The group counted two of the four turns; every event is scaled by the same 40 / 20, so
    // the shares are those of the counts fed, as in `neoverse_v1_slot_formulas`.
    assert!(close(value(l1.retiring), 37.5), "{l1:?}");
    assert!(close(value(l1.bad_speculation), 16.5), "{l1:?}");
    assert!(close(value(l1.frontend_bound), 26.0), "{l1:?}");
    assert!(close(value(l1.backend_bound), 20.0), "{l1:?}");
}
