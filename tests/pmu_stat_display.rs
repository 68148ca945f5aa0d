//! The perf stat layout, checked against lines written out by hand from perf's format
//! (`tools/perf/util/stat-display.c`, Linux 6.x): `print_counter_value_std` prints the count
//! with `"%'*.0f "` in `COUNTS_LEN` = 18 columns (thousands grouped) or `"%*s "` of
//! `"<not counted>"`, then the unit with `"%-*s "` in `unit_width` = 4 (perf 6.1 gives every
//! event a unit, `""` for PMU events: `perf stat -e instructions` prints
//! `"   <not supported>      instructions"` here, six spaces), then the name with `"%-*s"` in
//! `EVNAME_LEN` = 32; `print_metric_std`
//! prints `" # "`, the value with the metric's format, then `" %-*s"` of the unit in
//! `METRIC_LEN - n - 1` with `METRIC_LEN` = 38 (38 spaces when there is no metric);
//! `print_running_std` prints `"  (%.2f%%)"` of `100 × run / ena` when `run != ena`. The
//! metric formats are `stat-shadow.c`'s: `"%7.2f "` "insn per cycle", `"%7.2f%%"` "of all
//! branches", "frontend cycles idle" (only when not 0). Interval mode prefixes
//! `"%6lu.%09lu "` and, per CPU, `"CPU%-*d "` with 3 digits; its header is
//! `"#%*s"` (15, "time"), `" %-*s"` (6, "cpu"), `" %*s %*s events"` (18, "counts", 4, "unit").

use pmprobe::pmu::{
    Event, EventReading, GroupId, PerUnit, render_stat, write_elapsed, write_interval,
    write_interval_header, write_stat_line,
};

fn spaces(n: usize) -> String {
    " ".repeat(n)
}

fn reading(event: Event, group: u8, raw: u64, enabled: u64, running: u64) -> EventReading {
    EventReading {
        event,
        group: GroupId::new(group),
        raw,
        enabled,
        running,
    }
}

fn line(reading: &EventReading, all: &[EventReading]) -> String {
    let mut out = String::new();
    write_stat_line(&mut out, reading, all).unwrap();
    out
}

#[test]
fn a_count_that_ran_all_the_time_has_no_percentage() {
    let cycles = reading(Event::CPU_CYCLES, 0, 66_895, 66_895, 66_895);
    // 18 columns: "66,895" is 6 wide; the name pads to 32; no metric: 38 spaces.
    let expected = format!(
        "{}66,895      CPU_CYCLES{}{}",
        spaces(12),
        spaces(22),
        spaces(38)
    );
    assert_eq!(line(&cycles, &[cycles]), expected);
}

#[test]
fn instructions_show_insn_per_cycle() {
    let cycles = reading(Event::CPU_CYCLES, 0, 66_895, 66_895, 66_895);
    let insts = reading(Event::INST_RETIRED, 0, 33_996, 66_895, 66_895);
    // 33996 / 66895 = 0.508 -> "%7.2f " = "   0.51 "; n = 3 + 8 = 11; unit in 38 - 12 = 26.
    let expected = format!(
        "{}33,996      INST_RETIRED{} #    0.51  insn per cycle{}",
        spaces(12),
        spaces(20),
        spaces(12)
    );
    assert_eq!(line(&insts, &[cycles, insts]), expected);
}

#[test]
fn a_scaled_count_shows_its_estimate_and_the_share_it_ran() {
    // Ran 22,000 of 66,895: 191 x 66895 / 22000 = 580.79 -> 580 (rounded down), and
    // 100 x 22000 / 66895 = 32.887 -> (32.89%). The mispredicts divide the branches of their
    // own group: 191 / 4256 = 4.488 % -> "   4.49%".
    let branches = reading(Event::BR_RETIRED, 2, 4_256, 66_895, 22_000);
    let misses = reading(Event::BR_MIS_PRED, 2, 191, 66_895, 22_000);
    let expected = format!(
        "{}580      BR_MIS_PRED{} #    4.49% of all branches{}  (32.89%)",
        spaces(15),
        spaces(21),
        spaces(11)
    );
    assert_eq!(line(&misses, &[branches, misses]), expected);
    // BR_RETIRED: 4256 x 66895 / 22000 = 12941.2 -> 12,941.
    let expected = format!(
        "{}12,941      BR_RETIRED{}{}  (32.89%)",
        spaces(12),
        spaces(22),
        spaces(38)
    );
    assert_eq!(line(&branches, &[branches, misses]), expected);
}

#[test]
fn an_event_that_never_ran_is_not_counted() {
    let never = reading(Event::STALL_BACKEND, 3, 0, 1_000, 0);
    // "<not counted>" is 13 wide in 18; no metric; run 0 != ena 1000: (0.00%).
    let expected = format!(
        "     <not counted>      STALL_BACKEND{}{}  (0.00%)",
        spaces(19),
        spaces(38)
    );
    assert_eq!(line(&never, &[never]), expected);
}

#[test]
fn stall_shares_are_printed_only_when_not_zero() {
    let cycles = reading(Event::CPU_CYCLES, 0, 1_000, 1_000, 1_000);
    let idle = reading(Event::STALL_FRONTEND, 0, 250, 1_000, 1_000);
    let busy = reading(Event::STALL_BACKEND, 0, 0, 1_000, 1_000);
    let all = [cycles, idle, busy];
    assert_eq!(
        line(&idle, &all),
        format!(
            "{}250      STALL_FRONTEND{} #   25.00% frontend cycles idle{}",
            spaces(15),
            spaces(18),
            spaces(6)
        )
    );
    assert_eq!(
        line(&busy, &all),
        format!(
            "{}0      STALL_BACKEND{}{}",
            spaces(17),
            spaces(19),
            spaces(38)
        )
    );
}

#[test]
fn the_table_has_perfs_header() {
    let cycles = reading(Event::CPU_CYCLES, 0, 1_234_567, 10, 10);
    let mut out = String::new();
    render_stat(&mut out, "SPU0 demo_saxpy.s", &[cycles]).unwrap();
    let expected = format!(
        "\n Performance counter stats for 'SPU0 demo_saxpy.s':\n\n{}1,234,567      CPU_CYCLES{}{}\n",
        spaces(9),
        spaces(22),
        spaces(38)
    );
    assert_eq!(out, expected);
    let mut footer = String::new();
    write_elapsed(&mut footer, 1_500_000_123).unwrap();
    // " %17.9f seconds time elapsed" between empty lines.
    assert_eq!(footer, "\n       1.500000123 seconds time elapsed\n\n");
}

#[test]
fn interval_lines_are_prefixed_with_the_time_and_the_unit() {
    let mut header = String::new();
    write_interval_header(&mut header, Some("spu")).unwrap();
    // "#" + "time" in 15, " " + "spu" in 6, " " + "counts" in 18, " unit events".
    assert_eq!(
        header,
        format!("#{}time spu{}counts unit events\n", spaces(11), spaces(16))
    );
    let insts = reading(Event::INST_RETIRED, 0, 5_000, 100, 100);
    let mut out = String::new();
    write_interval(
        &mut out,
        1_500_000_000,
        Some(PerUnit {
            kind: "SPU",
            number: 2,
        }),
        &[insts],
    )
    .unwrap();
    // "%6lu.%09lu " then "SPU%-3d ", then the stat line.
    let expected = format!(
        "     1.500000000 SPU2   {}5,000      INST_RETIRED{}{}\n",
        spaces(13),
        spaces(20),
        spaces(38)
    );
    assert_eq!(out, expected);
}
