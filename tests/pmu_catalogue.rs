//! The event catalogue against Arm's machine-readable PMU descriptions (ARM-software/data,
//! `pmu/*.json`): the expected names below are written out from those files, and the count
//! checks read the committed copies in tools/gen-pmu-events/data/ directly.

use std::path::Path;
use std::process::Command;

use pmprobe::pmu::catalogue::{ParseEventError, common_only, for_midr, parse_event, suggest};
use pmprobe::pmu::{Event, EventSet};

const A57_MIDR: u64 = 0x411f_d070; // QEMU's cortex-a57, r1p0
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/gen-pmu-events/data");

#[test]
fn midr_chooses_the_core_table() {
    let cases = [
        (0x410f_d034, "Cortex-A53"),
        (A57_MIDR, "Cortex-A57"),
        (0x410f_d083, "Cortex-A72"),
        (0x414f_d0b1, "Cortex-A76"),
        (0x413f_d0c1, "Neoverse N1"),
        (0x410f_d490, "Neoverse N2"),
        (0x411f_d401, "Neoverse V1"),
    ];
    for (midr, name) in cases {
        let core = for_midr(midr);
        assert_eq!(core.name(), name, "MIDR {midr:#x}");
        assert!(core.has_core_table());
    }
    // QEMU's `max` (implementer 0x00, part 0x051): no table of its own, the common one only.
    let unknown = for_midr(0x000f_0510);
    assert!(!unknown.has_core_table());
    assert_eq!(unknown, common_only());
    assert_eq!(unknown.lookup(0x11).map(|e| e.name()), Some("CPU_CYCLES"));
}

#[test]
fn names_from_arms_tables() {
    let a57 = for_midr(A57_MIDR);
    // cortex-a57.json: 0x40 L1D_CACHE_RD, 0x60 BUS_ACCESS_RD, 0x91 RC_ST_SPEC.
    for (number, name) in [
        (0x40, "L1D_CACHE_RD"),
        (0x60, "BUS_ACCESS_RD"),
        (0x91, "RC_ST_SPEC"),
    ] {
        assert_eq!(a57.lookup(number).map(|e| e.name()), Some(name));
        assert_eq!(a57.find(name).map(|e| e.number()), Some(number));
    }
    assert_eq!(
        a57.lookup(0x08).map(|e| e.description()),
        Some("Instruction architecturally executed")
    );
    // neoverse-n1.json: the statistical profiling events 0x4000..=0x4003.
    let n1 = for_midr(0x413f_d0c1);
    assert_eq!(n1.lookup(0x4000).map(|e| e.name()), Some("SAMPLE_POP"));
    assert_eq!(
        n1.lookup(0x4003).map(|e| e.name()),
        Some("SAMPLE_COLLISION")
    );
    // common_armv9.json: 0x8000 SIMD_INST_RETIRED, a number no core table here lists.
    assert_eq!(
        a57.lookup(0x8000).map(|e| e.name()),
        Some("SIMD_INST_RETIRED")
    );
    assert_eq!(Event::raw(0x8000).to_string(), "SIMD_INST_RETIRED");
    assert_eq!(a57.lookup(0xC0), None);
}

/// (code, name) of every named event in a committed JSON file, read with a small scanner so
/// the test needs no JSON crate: Arm's files put one `"code": N` before each event's name.
fn named_events(file: &str) -> Vec<(u16, String)> {
    let text = std::fs::read_to_string(Path::new(DATA).join(file)).expect("committed data");
    let mut out = Vec::new();
    for event in text.split("\"code\": ").skip(1) {
        let code: u16 = event[..event.find(',').unwrap()].trim().parse().unwrap();
        let body = &event[..event.find('}').unwrap()];
        if let Some(at) = body.find("\"name\": \"") {
            let rest = &body[at + 9..];
            out.push((code, rest[..rest.find('"').unwrap()].to_string()));
        }
    }
    out
}

#[test]
fn every_named_event_of_the_committed_data_is_nameable() {
    let cores = [
        ("cortex-a53.json", 0x410f_d034, 34),
        ("cortex-a57.json", A57_MIDR, 84),
        ("cortex-a72.json", 0x410f_d083, 84),
        ("cortex-a76.json", 0x414f_d0b1, 107),
        ("neoverse-n1.json", 0x413f_d0c1, 110),
        ("neoverse-n2.json", 0x410f_d490, 155),
        ("neoverse-v1.json", 0x411f_d401, 132),
    ];
    for (file, midr, count) in cores {
        let events = named_events(file);
        assert_eq!(events.len(), count, "{file}");
        let core = for_midr(midr);
        assert_eq!(core.core_events().len(), count, "{file}");
        for (code, name) in events {
            assert_eq!(
                core.lookup(code).map(|e| e.name()),
                Some(name.as_str()),
                "{file}"
            );
            let lower = name.to_ascii_lowercase();
            assert_eq!(parse_event(&lower, core), Ok(Event::raw(code)), "{file}");
        }
    }
    let common = named_events("common_armv9.json");
    assert_eq!(common.len(), 476);
    for (code, name) in common {
        assert_eq!(Event::raw(code).name(), Some(name.as_str()));
    }
    // cortex-a53.json leaves 25 IMPLEMENTATION DEFINED events (0xC0..=0xE8) without a name.
    assert_eq!(for_midr(0x410f_d034).left_unnamed(), 25);
}

#[test]
fn parsing_as_perf_does() {
    let a57 = for_midr(A57_MIDR);
    assert_eq!(parse_event("INST_RETIRED", a57), Ok(Event::INST_RETIRED));
    assert_eq!(parse_event(" cpu_Cycles ", a57), Ok(Event::CPU_CYCLES));
    assert_eq!(parse_event("r1b", a57), Ok(Event::INST_SPEC));
    assert_eq!(parse_event("0x1b", a57), Ok(Event::INST_SPEC));
    assert_eq!(parse_event("0X1B", a57), Ok(Event::INST_SPEC));
    assert_eq!(parse_event("r4005", a57), Ok(Event::raw(0x4005)));
    assert_eq!(parse_event("", a57), Err(ParseEventError::Empty));
    assert_eq!(
        parse_event("0x10000", a57),
        Err(ParseEventError::BadRawNumber)
    );
    assert_eq!(parse_event("0xZZ", a57), Err(ParseEventError::BadRawNumber));
    assert_eq!(parse_event("r", a57), Err(ParseEventError::BadRawNumber));
    // 0x91 is a recommended event (common_armv9.json), so any core names it.
    assert_eq!(parse_event("rc_st_spec", a57), Ok(Event::raw(0x91)));
    assert_eq!(
        parse_event("RC_ST_SPEC", common_only()),
        Ok(Event::raw(0x91))
    );
}

#[test]
fn unknown_names_come_with_the_closest_known_one() {
    let a57 = for_midr(A57_MIDR);
    let unknown = |text| parse_event(text, a57);
    assert_eq!(
        unknown("INST_RETIRD"),
        Err(ParseEventError::UnknownName {
            suggestion: Some("INST_RETIRED")
        })
    );
    assert_eq!(
        unknown("cpu_cycle"),
        Err(ParseEventError::UnknownName {
            suggestion: Some("CPU_CYCLES")
        })
    );
    assert_eq!(
        unknown("remote_acess"),
        Err(ParseEventError::UnknownName {
            suggestion: Some("REMOTE_ACCESS")
        })
    );
    assert_eq!(
        unknown("bananas"),
        Err(ParseEventError::UnknownName { suggestion: None })
    );
    assert_eq!(suggest(&"X".repeat(200), a57), None);
    assert_eq!(
        unknown("INST_RETIRD").unwrap_err().to_string(),
        "unknown PMU event name (did you mean INST_RETIRED?)"
    );
}

#[test]
fn pmceid_selects_the_announced_common_events() {
    // QEMU 7.2's cortex-a57 under -icount: PMCEID0 = 0x20101.
    let a57 = for_midr(A57_MIDR);
    let announced: Vec<&str> = a57
        .announced(EventSet::from_pmceid(0x2_0101, 0))
        .map(|e| e.name())
        .collect();
    assert_eq!(announced, ["SW_INCR", "INST_RETIRED", "CPU_CYCLES"]);
    // PMCEID cannot describe 0x40 and up: those come from the core's table.
    assert!(a57.beyond_pmceid().any(|e| e.name() == "L1D_CACHE_RD"));
    assert!(
        a57.beyond_pmceid()
            .all(|e| !Event::raw(e.number()).is_common())
    );
    assert_eq!(common_only().beyond_pmceid().count(), 0);
}

#[test]
fn generated_tables_are_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 is not on PATH: the generated tables are not re-checked");
        return;
    }
    let out = std::env::temp_dir().join(format!("pmprobe-gen-pmu-events-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new("python3")
        .arg(root.join("tools/gen-pmu-events/gen_pmu_events.py"))
        .arg(&out)
        .status()
        .expect("run the generator");
    assert!(status.success());
    let mut compared = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        let fresh = std::fs::read_to_string(&path).unwrap();
        let committed =
            std::fs::read_to_string(root.join("src/pmu/catalogue").join(name)).unwrap_or_default();
        assert!(
            fresh == committed,
            "src/pmu/catalogue/{} differs from the generator's output: run tools/gen-pmu-events/gen_pmu_events.py",
            name.to_string_lossy()
        );
        compared += 1;
    }
    assert_eq!(compared, 9);
    let _ = std::fs::remove_dir_all(&out);
}
