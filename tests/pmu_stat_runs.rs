//! perf stat's `-r N` statistics and `-x SEP` layout.
//!
//! The statistics are worked out by hand from perf's `tools/perf/util/stat.c`
//! (`update_stats`, `stddev_stats` = sqrt(M2 / (n - 1) / n), `rel_stddev_stats` = 100 ×
//! stddev / mean). The layouts are checked two ways: lines spelled out from
//! `tools/perf/util/stat-display.c`'s format strings (`print_counter_value_csv`,
//! `print_noise_pct_csv` `"%s%.2f%%"`, `print_running_csv` `"%s%" PRIu64 "%s%.2f"`,
//! `print_metric_csv`, `print_noise_pct_std` `"  ( +-%6.2f%% )"`), and field by field against
//! what stock perf 6.1 prints here for a software event (`perf stat -x, -r 3 -e page-faults
//! true`): the same fields in the same places.
mod common;

use common::perf_tool::perf_output;
use pmprobe::pmu::{
    Event, Exclude, GroupId, RunStats, StatFormat, StatRow, StatValue, write_elapsed_runs,
    write_stat_header, write_stat_row,
};

fn row(name: &'static str, event: Event, value: StatValue, noise: Option<f64>) -> StatRow<'static> {
    StatRow {
        name,
        event,
        group: GroupId::new(0),
        value,
        enabled: 3_000_000,
        running: 3_000_000,
        noise,
        context: Exclude::PERF_DEFAULT,
    }
}

fn line(format: StatFormat<'_>, row: &StatRow<'_>, all: &[StatRow<'_>]) -> String {
    let mut out = String::new();
    write_stat_row(&mut out, format, row, all).unwrap();
    out
}

#[test]
fn the_noise_is_the_deviation_of_the_mean_in_percent() {
    let mut stats = RunStats::new();
    for value in [10.0, 12.0, 14.0] {
        stats.push(value);
    }
    // mean 12, M2 = 4 + 0 + 4 = 8, variance 8 / 2 = 4, of the mean 4 / 3: sd 1.1547.
    assert_eq!(stats.mean(), 12.0);
    assert!((stats.stddev_of_mean() - (4.0f64 / 3.0).sqrt()).abs() < 1e-12);
    assert!((stats.noise_percent() - 100.0 * 1.154_700_538 / 12.0).abs() < 1e-6);
    let mut one = RunStats::new();
    one.push(5.0);
    assert_eq!((one.stddev_of_mean(), one.noise_percent()), (0.0, 0.0));
    let mut same = RunStats::new();
    (0..3).for_each(|_| same.push(63_000_000.0));
    assert_eq!(same.noise_percent(), 0.0);
}

#[test]
fn standard_lines_show_the_mean_and_a_noise_that_is_not_zero() {
    let cycles = row(
        "cycles",
        Event::CPU_CYCLES,
        StatValue::Counted(2_000.5),
        Some(9.6225),
    );
    let insts = row(
        "instructions:u",
        Event::INST_RETIRED,
        StatValue::Counted(1_000.0),
        Some(0.0),
    );
    let all = [cycles, insts];
    let s = |n| " ".repeat(n);
    // "%'18.0f " of 2000.5: printf rounds half to even, 2,000; unit "%-4s "; name "%-32s";
    // no metric: 38 spaces; then "  ( +-%6.2f%% )".
    assert_eq!(
        line(StatFormat::Standard, &cycles, &all),
        format!(
            "{}2,000{}cycles{}{}  ( +-  9.62% )",
            s(13),
            s(6),
            s(26),
            s(38)
        )
    );
    // IPC 1000 / 2000.5 = 0.49988 -> "%7.2f " "   0.50 "; n = 3 + 8; unit in 38 - 12.
    // A noise of 0 is not printed.
    assert_eq!(
        line(StatFormat::Standard, &insts, &all),
        format!(
            "{}1,000{}instructions:u{} #    0.50  insn per cycle{}",
            s(13),
            s(6),
            s(18),
            s(12)
        )
    );
    let unsupported = row(
        "branches",
        Event::PC_WRITE_RETIRED,
        StatValue::NotSupported,
        None,
    );
    assert_eq!(
        line(StatFormat::Standard, &unsupported, &[unsupported]),
        format!("   <not supported>{}branches{}{}", s(6), s(24), s(38))
    );
    let mut header = String::new();
    write_stat_header(&mut header, "SPU3 demo_saxpy.s", 3).unwrap();
    assert_eq!(
        header,
        "\n Performance counter stats for 'SPU3 demo_saxpy.s' (3 runs):\n\n"
    );
    let mut elapsed = RunStats::new();
    (0..3).for_each(|_| elapsed.push(1_500_000_000.0));
    let mut footer = String::new();
    write_elapsed_runs(&mut footer, &elapsed).unwrap();
    // A deviation of 0: perf's get_precision(0) is undefined (lround of infinity); nine
    // decimals, as for one run; a noise of 0 is not printed.
    assert_eq!(
        footer,
        "\n       1.500000000 +- 0.000000000 seconds time elapsed\n\n"
    );
}

/// perf's shadow metrics divide only by a count of the same context (`evsel_context`):
/// `instructions:u` gets no IPC from an unfiltered `cycles`, `instructions` does.
#[test]
fn a_metric_needs_a_denominator_of_the_same_context() {
    let user = Exclude::PERF_DEFAULT.with_modifiers("u", false).unwrap();
    let cycles = row(
        "cycles",
        Event::CPU_CYCLES,
        StatValue::Counted(2_000.0),
        None,
    );
    let plain = row(
        "instructions",
        Event::INST_RETIRED,
        StatValue::Counted(1_000.0),
        None,
    );
    let filtered = StatRow {
        context: user,
        ..row(
            "instructions:u",
            Event::INST_RETIRED,
            StatValue::Counted(0.0),
            None,
        )
    };
    let all = [cycles, plain, filtered];
    assert!(line(StatFormat::Csv(","), &plain, &all).ends_with(",0.50,insn per cycle"));
    assert!(line(StatFormat::Csv(","), &filtered, &all).ends_with(",100.00,,"));
}

#[test]
fn csv_lines_follow_perfs_fields() {
    let cycles = row(
        "cycles",
        Event::CPU_CYCLES,
        StatValue::Counted(2_000.0),
        Some(1.5),
    );
    let insts = StatRow {
        running: 1_000_000,
        ..row(
            "instructions",
            Event::INST_RETIRED,
            StatValue::Counted(1_000.0),
            Some(0.0),
        )
    };
    let all = [cycles, insts];
    // value, unit (empty), name, noise, run, percent (100 × 1e6 / 3e6 in integers: 33), metric.
    assert_eq!(
        line(StatFormat::Csv(","), &cycles, &all),
        "2000,,cycles,1.50%,3000000,100.00,,"
    );
    assert_eq!(
        line(StatFormat::Csv(";"), &insts, &all),
        "1000;;instructions;0.00%;1000000;33.00;0.50;insn per cycle"
    );
    let once = row("cycles", Event::CPU_CYCLES, StatValue::NotCounted, None);
    assert_eq!(
        line(StatFormat::Csv(","), &once, &[once]),
        "<not counted>,,cycles,3000000,100.00,,"
    );
}

/// Our CSV fields against stock perf's for the same kind of line, with and without `-r`.
#[test]
fn csv_fields_match_stock_perf_stat() {
    for (runs, ours) in [
        // page-faults alone has no metric (its rate needs task-clock): empty metric fields.
        ("3", "46,,page-faults,1.45%,900021,100.00,,"),
        ("1", "46,,page-faults,900021,100.00,,"),
    ] {
        let (_, stderr) = perf_output(&["stat", "-x,", "-r", runs, "-e", "page-faults", "true"]);
        let theirs = stderr
            .lines()
            .find(|l| l.contains(",page-faults"))
            .unwrap_or_else(|| panic!("perf stat printed no page-faults line:\n{stderr}"));
        let theirs: Vec<&str> = theirs.split(',').collect();
        let mine: Vec<&str> = ours.split(',').collect();
        assert_eq!(theirs.len(), mine.len(), "{theirs:?}");
        let kind = |field: &str| {
            if field.is_empty() {
                "empty"
            } else if field.ends_with('%') {
                "percent"
            } else if field.parse::<u64>().is_ok() {
                "integer"
            } else if field.parse::<f64>().is_ok() {
                "decimal"
            } else {
                "text"
            }
        };
        let theirs: Vec<&str> = theirs.iter().map(|f| kind(f)).collect();
        let mine: Vec<&str> = mine.iter().map(|f| kind(f)).collect();
        assert_eq!(theirs, mine, "-r {runs}");
    }
    // And ours, generated, has the same shape as the line spelled out above.
    let faults = StatRow {
        noise: Some(1.45),
        ..row("page-faults", Event::raw(0), StatValue::Counted(46.0), None)
    };
    let ours = line(StatFormat::Csv(","), &faults, &[faults]);
    assert_eq!(ours, "46,,page-faults,1.45%,3000000,100.00,,");
}

/// perf's noise in the standard layout, `  ( +-%6.2f%% )` after the metric area (task-clock,
/// whose run times always differ), and the name's column (page-faults, no unit).
#[test]
fn the_standard_noise_matches_stock_perf_stat() {
    let (_, stderr) = perf_output(&["stat", "-r", "5", "-e", "task-clock,page-faults", "true"]);
    let line = |name: &str| {
        stderr
            .lines()
            .find(|l| l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("no {name} line:\n{stderr}"))
            .to_string()
    };
    let noise = |line: &str| -> Option<String> {
        let at = line.find("  ( +-")?;
        let tail = &line[at..];
        let close = tail.find(" )")?;
        Some(
            tail[..close + 2]
                .chars()
                .map(|c| if c.is_ascii_digit() { '9' } else { c })
                .collect(),
        )
    };
    let faults = row(
        "page-faults",
        Event::raw(0),
        StatValue::Counted(46.0),
        Some(1.45),
    );
    let ours = line_of(&faults);
    // Both "  ( +-  9.99% )": the percentage padded to 6.
    assert_eq!(noise(&line("task-clock")), noise(&ours), "{stderr}\n{ours}");
    assert_eq!(noise(&ours).as_deref(), Some("  ( +-  9.99% )"));
    // The count, the unit column and the name: 18 + 1 + 4 + 1 columns before the name.
    assert_eq!(
        line("page-faults").find("page-faults"),
        Some(24),
        "{stderr}"
    );
    assert_eq!(ours.find("page-faults"), Some(24), "{ours}");
}

fn line_of(row: &StatRow<'_>) -> String {
    line(StatFormat::Standard, row, &[*row])
}
