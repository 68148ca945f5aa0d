//! `ctf::SpuTrace` on a real SPU run, in both modes: babeltrace2 (the reference reader) reads
//! the trace back, and what it read is checked against what the probe framework's own points
//! reported in the same run (`DataAccess`, `Dma`, `Issue`) and against the pipeline's
//! statistics: every access and transfer with its values, the stalled cycles reason by reason,
//! the PC events once per pass over their instruction at that instruction's cycle. Attached to
//! the probe points as listeners instead of composed as an observer, it writes the same bytes.
mod common;
mod spu_mfc_support;

use std::cell::RefCell;
use std::path::PathBuf;

use common::babeltrace::{BtEvent, BtRead, read_trace};
use pmprobe::ctf::{
    ClockDescription, PacketStore, SPU_CLOCK_HZ, SpuStreams, SpuTrace, SpuTraceListeners,
    StreamConfig, StreamWriter, TraceDescription, TracePcEvent, write_metadata,
};
use pmprobe::probe::Listener;
use pmprobe::probe::listeners::{AccessKind, MemAccess};
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::mfc::DmaEvent;
use pmprobe::spu::probes::{IssueEvent, SpuProbes, StallReason};
use pmprobe::spu::unit::{Discard, Mode};
use spu_mfc_support::{MACROS, MODES, host_write, load, memory, pattern, stopped};

const UUID: [u8; 16] = *b"pmprobe-ctf-test";

/// Two gets (one a list of two elements), a loop of 24 passes loading, adding and storing, a
/// put of the result.
const PROGRAM: &str = "_start:
    dma 0x40, 0x1000, 0x10000, 256, 1
    dma 0x44, 0x1400, list, 16, 2
    wait 6
    ila $3, 0x1000
    il $4, 24
loop:
    lqd $5, 0($3)
    a $6, $6, $5
    stqd $6, 0x800($3)
    ai $3, $3, 16
    ai $4, $4, -1
    brnz $4, loop
    dma 0x20, 0x1800, 0x20000, 384, 3
    wait 8
    stop
.balign 16
list:
    .word 64, 0x11000
    .word 64, 0x12000
";

struct Recorder<T>(RefCell<Vec<T>>);

impl<T: Copy> Listener<T> for Recorder<T> {
    fn notify(&self, arg: &T) {
        self.0.borrow_mut().push(*arg);
    }
}

fn recorder<T>() -> Recorder<T> {
    Recorder(RefCell::new(Vec::new()))
}

/// The address of `label` in [`PROGRAM`].
fn label_address(label: &str) -> u32 {
    let mut image = vec![0u8; 64 * 1024];
    let program = assemble::<256>(&format!("{MACROS}\n{PROGRAM}"), &mut image).unwrap();
    program.symbol(label).unwrap()
}

/// What one traced run gave: babeltrace2's reading and the probe points' records.
struct Run {
    read: BtRead,
    accesses: Vec<MemAccess>,
    transfers: Vec<DmaEvent>,
    issues: Vec<IssueEvent>,
    stats: pmprobe::spu::pipeline::Statistics,
    cycles: u64,
}

/// A trace of the four streams on CPU 2, stream `i` writing packets of `packets[i]` into
/// `files[i]`.
fn spu_trace<'q, 'b, const P: usize, const F: usize>(
    packets: &'b mut [[u8; P]; 4],
    files: &'b mut [[u8; F]; 4],
) -> SpuTrace<'q, 'b, PacketStore<'b>> {
    let [p0, p1, p2, p3] = packets;
    let [f0, f1, f2, f3] = files;
    let config = StreamConfig {
        uuid: UUID,
        cpu_id: 2,
    };
    let writer = |packet: &'b mut [u8], file: &'b mut [u8]| {
        StreamWriter::new(packet, PacketStore::new(file), config).unwrap()
    };
    SpuTrace::new(SpuStreams {
        memory: writer(p0, f0),
        dma: writer(p1, f1),
        stalls: writer(p2, f2),
        pc_events: writer(p3, f3),
    })
}

/// Runs [`PROGRAM`] in `mode` under the trace, into a directory of test `test`'s own.
fn traced_run(test: &str, mode: Mode) -> Run {
    let memory = memory(1 << 20);
    host_write(memory, 0x10000, &pattern(1, 256));
    host_write(memory, 0x11000, &pattern(2, 64));
    host_write(memory, 0x12000, &pattern(3, 64));
    let mut unit = load(PROGRAM, memory, mode, 2);

    let mut packets = [[0u8; 1024]; 4];
    let mut files = [[0u8; 64 * 1024]; 4];
    let trace = spu_trace(&mut packets, &mut files);
    let at_loop = TracePcEvent::new(u64::from(label_address("loop")), 0, "loop head");
    trace.schedule_pc_event(&at_loop).unwrap();

    let probes = SpuProbes::new();
    let (accesses, transfers, issues) = (recorder(), recorder(), recorder());
    probes.data_access.add_object(&accesses).unwrap();
    probes.dma.add_object(&transfers).unwrap();
    probes.issue.add_object(&issues).unwrap();
    let outcome = unit
        .run(1_000_000, &(&probes, &trace), &mut Discard)
        .unwrap();
    assert!(stopped(&outcome), "{mode:?}: {outcome:?}");
    assert_eq!(trace.clock(), outcome.cycles, "{mode:?}: the trace's clock");
    assert_eq!(trace.lost_notifications(), 0);

    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("ctf-tests")
        .join(format!("spu-{test}-{mode:?}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let streams = trace.finish();
    for (name, (store, stats)) in streams.named() {
        assert_eq!(stats.discarded, 0, "{mode:?} {name}");
        std::fs::write(dir.join(format!("spu2-{name}")), store.bytes()).unwrap();
    }
    let mut metadata = String::new();
    let description = TraceDescription {
        uuid: UUID,
        clock: ClockDescription {
            name: "spu_cycles",
            description: "SPU cycles",
            frequency: SPU_CLOCK_HZ,
        },
        pc_events: &["loop head"],
        env: &[],
    };
    write_metadata(&mut metadata, &description).unwrap();
    std::fs::write(dir.join("metadata"), metadata).unwrap();

    Run {
        read: read_trace(&dir),
        accesses: accesses.0.take(),
        transfers: transfers.0.take(),
        issues: issues.0.take(),
        stats: *unit.stats(),
        cycles: outcome.cycles,
    }
}

fn memory_events(read: &BtRead) -> Vec<&BtEvent> {
    read.events
        .iter()
        .filter(|e| e.name.starts_with("mem_"))
        .collect()
}

#[test]
fn every_access_and_transfer_is_in_the_trace_with_its_values() {
    for mode in MODES {
        let run = traced_run("values", mode);
        assert!(run.read.warnings.is_empty(), "{:?}", run.read.warnings);
        assert!(run.read.events.iter().all(|e| e.cpu_id == 2));

        let traced = memory_events(&run.read);
        assert_eq!(
            run.accesses.len(),
            24 * 2,
            "{mode:?}: a load and a store a pass"
        );
        assert_eq!(traced.len(), run.accesses.len(), "{mode:?}");
        for (event, access) in traced.iter().zip(&run.accesses) {
            let name = match access.kind {
                AccessKind::Read => "mem_read",
                AccessKind::Write => "mem_write",
                AccessKind::InstructionFetch => "mem_fetch",
            };
            assert_eq!(event.name, name);
            assert_eq!(event.cycle, access.tick, "{mode:?} {access:?}");
            assert_eq!(event.number("pc"), access.pc);
            assert_eq!(event.number("address"), access.address);
            assert_eq!(event.number("size"), u64::from(access.size));
        }

        let traced: Vec<&BtEvent> = run
            .read
            .events
            .iter()
            .filter(|e| e.name.starts_with("dma"))
            .collect();
        // The get, the list's two elements, the put.
        assert_eq!(run.transfers.len(), 4, "{mode:?}");
        assert_eq!(traced.len(), 4, "{mode:?}");
        for (event, transfer) in traced.iter().zip(&run.transfers) {
            assert_eq!(event.cycle, transfer.completed, "{mode:?} {transfer}");
            assert_eq!(event.number("command"), u64::from(transfer.command.opcode));
            assert_eq!(event.number("tag"), u64::from(transfer.tag));
            assert_eq!(event.number("size"), u64::from(transfer.size));
            assert_eq!(event.number("lsa"), u64::from(transfer.lsa));
            assert_eq!(event.number("ea"), transfer.ea);
            assert_eq!(event.number("issued"), transfer.issued);
            match transfer.element {
                Some(element) => {
                    assert_eq!(event.name, "dma_list_element");
                    assert_eq!(event.number("element"), u64::from(element));
                }
                None => assert_eq!(event.name, "dma"),
            }
        }
        let commands: Vec<&str> = traced.iter().map(|e| e.label("command")).collect();
        assert_eq!(commands, ["get", "getl", "getl", "put"], "{mode:?}");
    }
}

#[test]
fn pc_events_fire_once_a_pass_at_their_instructions_cycle() {
    for mode in MODES {
        let run = traced_run("pc", mode);
        let head = u64::from(label_address("loop"));
        let fired: Vec<&BtEvent> = run.read.named("pc_event").collect();
        assert_eq!(fired.len(), 24, "{mode:?}: once a pass");
        // The loop's head is its load: the load's access happened in the same cycle.
        let loads: Vec<u64> = run
            .accesses
            .iter()
            .filter(|a| a.pc == head)
            .map(|a| a.tick)
            .collect();
        let cycles: Vec<u64> = fired.iter().map(|e| e.cycle).collect();
        assert_eq!(cycles, loads, "{mode:?}");
        for event in fired {
            assert_eq!(event.number("pc"), head);
            assert_eq!(event.label("name"), "loop head");
        }
    }
}

#[test]
fn stalled_cycles_match_the_statistics_and_no_issue_falls_inside_a_stall() {
    let run = traced_run("stalls", Mode::Pipeline);
    let stalls: Vec<(u64, u64, &str)> = run
        .read
        .named("stall")
        .map(|e| (e.cycle, e.number("cycles"), e.label("reason")))
        .collect();
    let sum = |label: &str| -> u64 { stalls.iter().filter(|s| s.2 == label).map(|s| s.1).sum() };
    let stats = &run.stats;
    let reasons = [
        ("initialisation", stats.initialisation_cycles),
        ("branch_miss", stats.branch_miss_stalls),
        ("prefetch_miss", stats.prefetch_miss_stalls),
        ("fp_resource", stats.fp_resource_stalls),
        ("hint_target", stats.hint_target_stalls),
        ("dp_pipeline", stats.dp_pipeline_stalls),
        ("channel", stats.channel_stalls),
        ("channel_wait", stats.channel_wait_stalls),
        ("dma_local_store", stats.dma_local_store_stalls),
    ];
    for (label, expected) in reasons {
        assert_eq!(sum(label), expected, "{label}");
    }
    let dependencies: u64 = stalls
        .iter()
        .filter(|s| s.2.starts_with("dependency_"))
        .map(|s| s.1)
        .sum();
    assert_eq!(dependencies, stats.dependency_stalls);
    assert!(sum("channel_wait") > 0 && dependencies > 0, "{stalls:?}");
    // Every cycle either issued something or stalled: the runs and the issue cycles together
    // are the run's cycles, and no instruction issued inside a run.
    let stalled: u64 = stalls.iter().map(|s| s.1).sum();
    let issue_cycles = stats.single_cycles + stats.dual_cycles + stats.nop_cycles;
    assert_eq!(stalled + issue_cycles, run.cycles);
    for issue in &run.issues {
        assert!(
            !stalls
                .iter()
                .any(|&(start, n, _)| (start..start + n).contains(&issue.cycle)),
            "{issue:?} inside a stall run"
        );
    }
    // Instruction mode reports no stalls here (its DMA completes at once, so no wait).
    let instruction = traced_run("stalls", Mode::Instruction);
    assert_eq!(instruction.read.count("stall"), 0);
}

#[test]
fn the_stall_run_of_a_reason_is_one_event_and_runs_split_on_a_new_reason() {
    let mut packet = [0u8; 512];
    let mut file = [0u8; 4096];
    let writer = |packet, file| {
        StreamWriter::new(
            packet,
            PacketStore::new(file),
            StreamConfig {
                uuid: UUID,
                cpu_id: 0,
            },
        )
        .unwrap()
    };
    let (mut p, mut f) = ([[0u8; 256]; 3], [[0u8; 256]; 3]);
    let [p1, p2, p3] = &mut p;
    let [f1, f2, f3] = &mut f;
    let trace = SpuTrace::new(SpuStreams {
        memory: writer(p1, f1),
        dma: writer(p2, f2),
        stalls: writer(&mut packet, &mut file),
        pc_events: writer(p3, f3),
    });
    use pmprobe::spu::probes::SpuObserver;
    // Cycles 1-3 stalled on a branch miss (one by one, then two at once), cycle 4 issued,
    // cycles 5-6 on a channel wait, 7 on a branch miss.
    trace.cycles(1);
    trace.issue_stall(StallReason::BranchMiss);
    trace.stalled_cycles(StallReason::BranchMiss, 2);
    trace.cycles(1);
    trace.stalled_cycles(StallReason::ChannelWait, 2);
    trace.cycles(1);
    trace.issue_stall(StallReason::BranchMiss);
    let streams = trace.finish();
    let (store, stats) = streams.stalls;
    assert_eq!(stats.events, 3);
    // Each event: 4-byte header (id 8, timestamp), reason code, cycles.
    let bytes = &store.bytes()[76..];
    let event = |at: usize| {
        let header = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let cycles = u32::from_le_bytes(bytes[at + 5..at + 9].try_into().unwrap());
        (header & 31, header >> 5, bytes[at + 4], cycles)
    };
    // Codes: branch_miss 1, channel_wait 7 (the metadata's enumeration).
    assert_eq!(event(0), (8, 1, 1, 3));
    assert_eq!(event(9), (8, 5, 7, 2));
    assert_eq!(event(18), (8, 7, 1, 1));
}

/// The bytes of the four streams of [`PROGRAM`]'s run in `mode`, the trace composed with the
/// probe points as an observer or attached to their points as listeners.
fn stream_bytes(mode: Mode, as_listeners: bool) -> Vec<Vec<u8>> {
    let memory = memory(1 << 20);
    host_write(memory, 0x10000, &pattern(1, 256));
    let mut unit = load(PROGRAM, memory, mode, 2);
    let mut packets = [[0u8; 512]; 4];
    let mut files = [[0u8; 64 * 1024]; 4];
    let trace = spu_trace(&mut packets, &mut files);
    let at_loop = TracePcEvent::new(u64::from(label_address("loop")), 0, "loop head");
    trace.schedule_pc_event(&at_loop).unwrap();
    let probes = SpuProbes::new();
    let listeners = SpuTraceListeners::new(&trace);
    let pcs = listeners.retired_pcs();
    let outcome = if as_listeners {
        listeners.attach(&pcs, &probes).unwrap();
        unit.run(1_000_000, &probes, &mut Discard).unwrap()
    } else {
        unit.run(1_000_000, &(&probes, &trace), &mut Discard)
            .unwrap()
    };
    assert!(stopped(&outcome), "{mode:?}: {outcome:?}");
    probes.clear();
    let streams = trace.finish();
    streams
        .named()
        .map(|(_, (store, _))| store.bytes().to_vec())
        .to_vec()
}

#[test]
fn attached_to_the_probe_points_the_trace_is_the_same_byte_for_byte() {
    for mode in MODES {
        let observed = stream_bytes(mode, false);
        let listened = stream_bytes(mode, true);
        // Every stream has events (the stall stream only where the SPU waits: pipeline mode).
        let with_events = observed.iter().filter(|bytes| bytes.len() > 76).count();
        assert_eq!(with_events, if mode == Mode::Pipeline { 4 } else { 3 });
        assert!(observed == listened, "{mode:?}");
    }
}
