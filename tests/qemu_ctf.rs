//! CTF on QEMU: the instructions a CTF event costs (`tests/guest/src/bin/ctf_bench.rs`, a
//! benchmark that prints figures), and the demo's `--ctf DIR`: a CTF trace of one run of the streaming kernel, written
//! through semihosting, read by babeltrace2 (the CTF reference reader, `tests/common/
//! babeltrace.rs`) and checked against the figures the same run prints.
//!
//! Where the expected values come from:
//! - babeltrace2 reads the directory with no option but `--clock-cycles` and reports no
//!   warning (no discarded event or packet, no layout it cannot read);
//! - the kernel's source, `spu/programs/demo_stream.s`, and the mailbox the demo gives it
//!   (`src/demo/recordings/ctf_trace.rs`: two buffers, input at EA 0, output at EA 0x100000,
//!   8 blocks): each block of 16 KiB comes in by one `get`/`getf` and goes out by one `put`;
//!   the compute loop (at label `compute`, whose first instruction is an `lqd`) turns
//!   BLOCK/64 = 256 times a block, with 4 `lqd` and 4 `stqd` of 16 bytes a turn, in the
//!   buffers at LS 0x10000 and 0x14000;
//! - the run's own figures, printed by the firmware under the section's heading: the SPU's
//!   statistics (cycles, instructions, stalled cycles by reason), the MFC's (transfers, bytes),
//!   the PMU's readings and the trace's clock range.
//!
//! babeltrace2 merges the five streams by nanoseconds of the 3.2 GHz clock, so events of
//! different streams less than a nanosecond apart may print out of cycle order; each stream's
//! own events stay in order, which the test checks per stream.
mod common;

use common::babeltrace::{BtEvent, BtRead, read_trace};
use common::demo::run_demo_on;
use common::qemu::{Options, run_guest};

/// The blocks the demo streams, their bytes, and the compute loop's turns per block.
const BLOCKS: u64 = 8;
const BLOCK_BYTES: u64 = 16 * 1024;
const TURNS_PER_BLOCK: u64 = BLOCK_BYTES / 64;
/// The local-store buffers: two blocks from 0x10000.
const BUFFERS: std::ops::Range<u64> = 0x10000..0x10000 + 2 * BLOCK_BYTES;
/// SPU cycles between two PMU readings (the section says so in its `PMU readings` line).
const READING_CYCLES: u64 = 8192;

#[test]
fn instructions_per_ctf_event_benchmark() {
    let run = run_guest("ctf_bench", &Options::default());
    for line in run.stdout.lines().filter(|l| l.starts_with("ctf_bench:")) {
        println!("{line}");
    }
    run.assert_passed();
}

/// The line of `section` that starts (after its indentation) with `label`, without it.
fn line<'a>(section: &'a str, label: &str) -> &'a str {
    section
        .lines()
        .find_map(|line| line.trim_start().strip_prefix(label))
        .unwrap_or_else(|| panic!("no line {label:?} in\n{section}"))
}

/// The number after the word `word` in `text` (`cycles 51168` -> 51168), decimal or `0x` hex.
fn after(text: &str, word: &str) -> u64 {
    let mut words = text.split(|c: char| c.is_whitespace() || c == ',' || c == ';');
    while let Some(w) = words.next() {
        if w == word {
            let value = words.next().unwrap_or("");
            let parsed = match value.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => value.parse(),
            };
            return parsed.unwrap_or_else(|e| panic!("{word} {value:?} in {text:?}: {e}"));
        }
    }
    panic!("no {word:?} in {text:?}")
}

/// The events of the classes `names`, in the order babeltrace2 printed them.
fn of<'a>(trace: &'a BtRead, names: &[&str]) -> Vec<&'a BtEvent> {
    trace
        .events
        .iter()
        .filter(|event| names.contains(&event.name.as_str()))
        .collect()
}

fn assert_in_order(events: &[&BtEvent], stream: &str) {
    for pair in events.windows(2) {
        assert!(
            pair[0].cycle <= pair[1].cycle,
            "the {stream} stream goes back in time: {:?} then {:?}",
            pair[0],
            pair[1]
        );
    }
}

#[test]
fn the_demo_trace_opens_in_babeltrace2_and_holds_what_the_run_reports() {
    let run = run_demo_on("ctf", 1, &["--ctf", "trace"]);
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    let section = run.section("CTF trace");
    for check in ["ctf_written", "ctf_clock"] {
        assert!(
            section.contains(&format!("check {check} ... ok")),
            "{check}\n{section}"
        );
    }
    let trace = read_trace(&run.dir.join("trace"));
    assert!(trace.warnings.is_empty(), "{:?}", trace.warnings);
    assert!(trace.events.iter().all(|e| e.cpu_id == 6), "SPU6's trace");

    // The clock: the pipeline's cycles over the run, which the statistics count.
    let clock = line(section, "trace clock: SPU cycles ");
    let start: u64 = clock.split_whitespace().next().unwrap().parse().unwrap();
    let end = after(clock, "to");
    let spu = line(section, "SPU statistics:");
    assert_eq!(end - start, after(spu, "cycles"), "{section}");
    for event in &trace.events {
        assert!(
            (start..=end).contains(&event.cycle),
            "{event:?} outside {start}..={end}"
        );
    }

    // Every event the firmware counted, stream by stream, is in the trace.
    let counted = line(section, "events:");
    let memory = of(&trace, &["mem_read", "mem_write"]);
    let dma = of(&trace, &["dma"]);
    let stalls = of(&trace, &["stall"]);
    let pc_events = of(&trace, &["pc_event"]);
    let pmu = of(&trace, &["pmu_count"]);
    for (name, events) in [
        ("memory", &memory),
        ("dma", &dma),
        ("stalls", &stalls),
        ("pc_events", &pc_events),
        ("pmu", &pmu),
    ] {
        assert_eq!(
            events.len() as u64,
            after(counted, name),
            "{name}: {counted}"
        );
        assert_in_order(events, name);
    }
    assert_eq!(
        trace.events.len(),
        memory.len() + dma.len() + stalls.len() + pc_events.len() + pmu.len(),
        "no other event class"
    );
    assert_eq!(after(counted, "lost"), 0);

    // Loads and stores: 4 of each a turn of the compute loop, 16 bytes, in the buffers.
    let loads = trace.count("mem_read") as u64;
    let stores = trace.count("mem_write") as u64;
    assert_eq!(loads, BLOCKS * TURNS_PER_BLOCK * 4);
    assert_eq!(stores, BLOCKS * TURNS_PER_BLOCK * 4);
    for access in &memory {
        assert_eq!(access.number("size"), 16, "{access:?}");
        assert!(BUFFERS.contains(&access.number("address")), "{access:?}");
    }

    // DMA: one get (or fenced getf) and one put a block, as many and as large as the MFC's
    // statistics say, each issued before it completed.
    let mfc = line(section, "MFC statistics:");
    assert_eq!(dma.len() as u64, after(mfc, "transfers"));
    assert_eq!(dma.len() as u64, 2 * BLOCKS);
    let bytes = |commands: &[&str]| -> u64 {
        dma.iter()
            .filter(|t| commands.contains(&t.label("command")))
            .map(|t| t.number("size"))
            .sum()
    };
    assert_eq!(bytes(&["get", "getf"]), after(mfc, "in"), "{mfc}");
    assert_eq!(bytes(&["put"]), after(mfc, "out"), "{mfc}");
    assert_eq!(bytes(&["get", "getf"]), BLOCKS * BLOCK_BYTES);
    for transfer in &dma {
        assert_eq!(transfer.number("size"), BLOCK_BYTES, "{transfer:?}");
        let issued = transfer.number("issued");
        assert!(
            start <= issued && issued < transfer.cycle,
            "issued during the run, before it completed: {transfer:?}"
        );
        let ea = transfer.number("ea");
        let region = if transfer.label("command") == "put" {
            0x10_0000
        } else {
            0
        };
        assert!(
            (region..region + BLOCKS * BLOCK_BYTES).contains(&ea),
            "{transfer:?}"
        );
    }

    // Stalls: per reason, the cycles of the trace's runs add up to the statistics'.
    let statistics = line(section, "stalled cycles (statistics):");
    let words: Vec<&str> = statistics.split_whitespace().collect();
    assert_eq!(words.len(), 2 * 21, "{statistics}");
    let mut total = 0;
    for pair in words.chunks(2) {
        let (reason, cycles) = (pair[0], pair[1].parse::<u64>().unwrap());
        let traced: u64 = stalls
            .iter()
            .filter(|s| s.label("reason") == reason)
            .map(|s| s.number("cycles"))
            .sum();
        assert_eq!(traced, cycles, "stalled cycles for {reason}");
        total += cycles;
    }
    assert_eq!(
        stalls.iter().map(|s| s.number("cycles")).sum::<u64>(),
        total,
        "no stall of a reason the statistics do not name"
    );
    assert!(total > 0);

    // PMU readings: every 8192 cycles and at the stop, each counter's times enabled the
    // cycles since the start; the last reading is the one printed.
    check_pmu(section, &pmu, start, end);

    // PC events: `block start` once a block, `compute loop` once a turn, at the printed
    // addresses; the loop's first instruction is an lqd, traced at the same cycle.
    let pcs = line(section, "PC events:");
    let block_pc = after(pcs, "at");
    let compute_pc = after(pcs.split_once(", ").unwrap().1, "at");
    let named = |name: &str| -> Vec<&BtEvent> {
        pc_events
            .iter()
            .copied()
            .filter(|e| e.label("name") == name)
            .collect()
    };
    let blocks = named("block start");
    let turns = named("compute loop");
    assert_eq!(blocks.len() as u64, BLOCKS);
    assert_eq!(turns.len() as u64, BLOCKS * TURNS_PER_BLOCK);
    assert!(blocks.iter().all(|e| e.number("pc") == block_pc));
    assert!(turns.iter().all(|e| e.number("pc") == compute_pc));
    let first_loads: Vec<u64> = memory
        .iter()
        .filter(|a| a.name == "mem_read" && a.number("pc") == compute_pc)
        .map(|a| a.cycle)
        .collect();
    let turn_cycles: Vec<u64> = turns.iter().map(|e| e.cycle).collect();
    assert_eq!(turn_cycles, first_loads);
}

/// The `pmu_count` events against the section's `PMU readings` lines.
fn check_pmu(section: &str, pmu: &[&BtEvent], start: u64, end: u64) {
    let header = line(section, "PMU readings: ");
    let readings: u64 = header.split(',').next().unwrap().parse().unwrap();
    let cycles = end - start;
    assert_eq!(readings, cycles.div_ceil(READING_CYCLES), "{header}");
    // The last reading's lines: `NAME raw R enabled E running R`, one per counted event.
    let last: Vec<(&str, u64, u64, u64)> = section
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("PMU readings: "))
        .skip(1)
        .take_while(|l| l.split_whitespace().nth(1) == Some("raw"))
        .map(|l| {
            let name = l.split_whitespace().next().unwrap();
            (
                name,
                after(l, "raw"),
                after(l, "enabled"),
                after(l, "running"),
            )
        })
        .collect();
    assert!(!last.is_empty(), "{section}");
    let per_reading = last.len() as u64;
    assert_eq!(pmu.len() as u64, readings * per_reading);
    for event in pmu {
        let since_start = event.cycle - start;
        assert_eq!(event.number("enabled"), since_start, "{event:?}");
        assert!(event.number("running") <= since_start, "{event:?}");
        assert!(
            since_start.is_multiple_of(READING_CYCLES) || event.cycle == end,
            "a reading every {READING_CYCLES} cycles or at the stop: {event:?}"
        );
    }
    let traced_last = &pmu[pmu.len() - last.len()..];
    for (event, (name, raw, enabled, running)) in traced_last.iter().zip(&last) {
        assert_eq!(event.cycle, end);
        assert_eq!(event.label("counter"), *name);
        assert_eq!(
            (
                event.number("raw"),
                event.number("enabled"),
                event.number("running")
            ),
            (*raw, *enabled, *running),
            "{name}"
        );
    }
    // The pinned counters count the whole run: cycles and instructions as the statistics.
    let spu = line(section, "SPU statistics:");
    let pinned = |name: &str| {
        traced_last
            .iter()
            .find(|e| e.label("counter") == name && e.number("running") == cycles)
            .unwrap_or_else(|| panic!("no whole-run {name} in {traced_last:?}"))
            .number("raw")
    };
    assert_eq!(pinned("CPU_CYCLES"), after(spu, "cycles"));
    assert_eq!(pinned("INST_RETIRED"), after(spu, "instructions"));
    assert_eq!(pinned("LD_RETIRED"), BLOCKS * TURNS_PER_BLOCK * 4);
    assert_eq!(pinned("ST_RETIRED"), BLOCKS * TURNS_PER_BLOCK * 4);
}
