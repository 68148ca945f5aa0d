//! Stacks, top-N shares, folded lines and the SVG, from samples resolved by a stand-in table
//! (no ELF): the aggregation is checked against counts worked out by hand.
mod common;

use std::collections::HashMap;

use common::Table;
use pmprobe::sampling::{ProfileHeader, Sample, SampleSource, WalkEnd};
use pmprofile::{Frame, Profile, Resolve, report};

fn table() -> Table {
    Table(HashMap::from([
        (0x100, vec!["hot_loop"]),
        (0x104, vec!["inlined_helper", "hot_loop"]),
        (0x200, vec!["cold"]),
        // Return addresses are looked up one byte earlier.
        (0x2ff, vec!["main"]),
        (0x3ff, vec!["driver"]),
        (0x4ff, vec!["recursive"]),
    ]))
}

fn samples() -> Vec<Sample> {
    let mut samples = Vec::new();
    // 6 in hot_loop itself, 2 in a helper inlined into it; both called from driver <- main.
    for _ in 0..6 {
        samples.push(Sample::with_frames(
            0x100,
            0,
            &[0x400, 0x300],
            WalkEnd::Complete,
        ));
    }
    for _ in 0..2 {
        samples.push(Sample::with_frames(
            0x104,
            0,
            &[0x400, 0x300],
            WalkEnd::Complete,
        ));
    }
    // 1 in cold, called from main directly.
    samples.push(Sample::with_frames(0x200, 0, &[0x300], WalkEnd::Complete));
    // 1 in recursive <- recursive <- main: counts once toward recursive's total.
    samples.push(Sample::with_frames(
        0x4ff,
        0,
        &[0x500, 0x300],
        WalkEnd::Complete,
    ));
    samples
}

#[test]
fn stacks_are_root_first_with_inlined_frames_expanded() {
    let profile = Profile::build(&samples(), &table());
    assert_eq!(profile.samples, 10);
    let stack = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(profile.stacks[&stack(&["main", "driver", "hot_loop"])], 6);
    assert_eq!(
        profile.stacks[&stack(&["main", "driver", "hot_loop", "inlined_helper"])],
        2
    );
    assert_eq!(profile.stacks[&stack(&["main", "cold"])], 1);
}

#[test]
fn self_and_total_shares() {
    let profile = Profile::build(&samples(), &table());
    let top = profile.top(10);
    let row = |name: &str| {
        let r = top.iter().find(|r| r.function == name).unwrap();
        (r.self_samples, r.total_samples)
    };
    assert_eq!(row("main"), (0, 10));
    assert_eq!(row("driver"), (0, 8));
    assert_eq!(row("hot_loop"), (6, 8));
    assert_eq!(row("inlined_helper"), (2, 2));
    assert_eq!(row("cold"), (1, 1));
    assert_eq!(
        row("recursive"),
        (1, 1),
        "a recursive function counts once per sample"
    );
    assert_eq!(top[0].function, "main", "sorted by total");
    assert_eq!(profile.top(2).len(), 2);
}

#[test]
fn the_table_names_the_sample_count_and_percentages() {
    let profile = Profile::build(&samples(), &table());
    let header = ProfileHeader {
        source: SampleSource::PmuOverflow,
        event: 0x08,
        period: 10_000,
        dropped: 3,
    };
    let text = report::top_table(&profile, &header, 3);
    assert!(
        text.starts_with(
            "# 10 samples of INST_RETIRED (event 0x0008) every 10000 events, 3 dropped by the firmware\n"
        ),
        "{text}"
    );
    let hot = text.lines().find(|l| l.ends_with(" hot_loop")).unwrap();
    assert_eq!(
        hot.split_whitespace().collect::<Vec<_>>(),
        ["60.00%", "80.00%", "8", "hot_loop"]
    );
    assert_eq!(text.lines().count(), 2 + 3);
}

#[test]
fn folded_lines_and_flamegraph() {
    let mut samples = samples();
    samples.push(Sample::new(0x900, 0));
    let profile = Profile::build(&samples, &table());
    let folded = profile.folded();
    assert!(folded.contains(&"main;driver;hot_loop 6".to_string()));
    assert!(folded.contains(&"main;driver;hot_loop;inlined_helper 2".to_string()));
    assert!(folded.contains(&"main;cold 1".to_string()));
    assert!(folded.contains(&"[unknown] 1".to_string()));
    let total: u64 = folded
        .iter()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 11);

    let mut svg = Vec::new();
    report::flamegraph(&profile, "test profile", &mut svg).unwrap();
    let svg = String::from_utf8(svg).unwrap();
    assert!(svg.contains("<svg"));
    assert!(svg.contains("hot_loop"));
    assert!(svg.contains("test profile"));
    assert!(svg.contains("samples"));
}

#[test]
fn semicolons_in_names_cannot_split_frames() {
    let table = Table(HashMap::from([(0x10, vec!["<[u8; 4] as Foo>::bar"])]));
    let profile = Profile::build(&[Sample::new(0x10, 0)], &table);
    assert_eq!(profile.folded(), ["<[u8, 4] as Foo>::bar 1"]);
}

#[test]
fn samples_of_several_cores_get_a_core_root_frame() {
    let mut samples = samples();
    for sample in samples.iter_mut().take(4) {
        *sample = sample.on_core(2);
    }
    let profile = Profile::build(&samples, &table());
    assert_eq!(
        profile
            .per_core
            .iter()
            .map(|(c, n)| (*c, *n))
            .collect::<Vec<_>>(),
        [(0, 6), (2, 4)]
    );
    let stack = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        profile.stacks[&stack(&["core 2", "main", "driver", "hot_loop"])],
        4
    );
    assert_eq!(
        profile.stacks[&stack(&["core 0", "main", "driver", "hot_loop"])],
        2
    );
    assert_eq!(
        report::core_summary(&profile).as_deref(),
        Some("samples per core: core 0: 6, core 2: 4")
    );
    let one_core = Profile::build(&self::samples(), &table());
    assert_eq!(report::core_summary(&one_core), None);
    assert!(one_core.stacks.keys().all(|s| !s[0].starts_with("core ")));
}

#[test]
fn walk_summary_names_why_stacks_were_cut() {
    let mut samples = samples();
    samples[0].walk_end = WalkEnd::Misaligned;
    samples[1].walk_end = WalkEnd::Misaligned;
    samples[2].walk_end = WalkEnd::OutOfBounds;
    assert_eq!(
        report::walk_summary(&samples).as_deref(),
        Some("stacks: 70.00% complete; cut short: 2 misaligned, 1 out of bounds")
    );
    assert_eq!(report::walk_summary(&[]), None);
}

#[test]
fn expected_shares_are_checked_against_the_stacks() {
    use pmprofile::expect;
    let profile = Profile::build(&samples(), &table());
    let expectations = expect::parse(
        "# label pattern percent tolerance\n\
         driven driver 80 0.5   # 8 of 10 samples pass through driver\n\
         \n\
         cold cold 25.0 5\n",
    )
    .unwrap();
    let checks = expect::check(&profile, &expectations);
    assert_eq!(checks.len(), 2);
    assert_eq!((checks[0].samples, checks[0].holds()), (8, true));
    assert_eq!(
        (checks[1].samples, checks[1].holds()),
        (1, false),
        "10% vs 25 +- 5"
    );
    let report = expect::report(&checks);
    assert!(
        report.starts_with("check share_driven ... ok (80.00% of samples (8) through driver"),
        "{report}"
    );
    assert!(
        report.contains("check share_cold ... FAILED (10.00%"),
        "{report}"
    );
}

#[test]
fn malformed_expectations_name_their_line() {
    use pmprofile::expect;
    let error = expect::parse("a b 1 1\na b c\n").unwrap_err();
    assert_eq!(error.line, 2);
    assert!(error.reason.contains("expected 4 fields"), "{error}");
    let error = expect::parse("\n\na b -3 1\n").unwrap_err();
    assert_eq!(error.line, 3);
    assert!(error.to_string().contains("percent `-3`"), "{error}");
    let error = expect::parse("a b 3 NaN\n").unwrap_err();
    assert!(error.to_string().contains("tolerance `NaN`"), "{error}");
}

#[test]
fn the_link_register_supplies_a_caller_the_chain_skipped() {
    /// `table()`, where 0x200 (`cold`) is sampled before its frame record exists.
    struct Prologue(Table);
    impl Resolve for Prologue {
        fn frames(&self, address: u64) -> Vec<Frame> {
            self.0.frames(address)
        }
        fn caller_in_lr(&self, pc: u64) -> bool {
            pc == 0x200
        }
    }
    let resolve = Prologue(table());
    // In cold's prologue, called from driver (lr 0x400), the chain starts at main's record.
    let early = Sample::with_frames(0x200, 0, &[0x300], WalkEnd::Complete).with_lr(0x400);
    assert_eq!(
        pmprofile::stack_of(&early, &resolve),
        ["main", "driver", "cold"]
    );
    // In hot_loop, past its prologue, the chain is complete and the lr is not used.
    let later = Sample::with_frames(0x100, 0, &[0x400, 0x300], WalkEnd::Complete).with_lr(0x500);
    assert_eq!(
        pmprofile::stack_of(&later, &resolve),
        ["main", "driver", "hot_loop"]
    );
    // An lr of 0 (unknown) adds nothing.
    let unknown = Sample::with_frames(0x200, 0, &[0x300], WalkEnd::Complete);
    assert_eq!(pmprofile::stack_of(&unknown, &resolve), ["main", "cold"]);
}
