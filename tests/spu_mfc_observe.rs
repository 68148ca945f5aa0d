//! What observers of the MFC get: the `Dma` probe point's transfers, the `DmaLines` point's
//! main-memory accesses in 128-byte lines (which the memory trace writes as Dinero IV din
//! lines and the stack-distance calculator takes as it takes local-store accesses), and
//! BUS_ACCESS on the emulated PMU, one per line.

mod spu_mfc_support;

use pmprobe::pmu::{EmulatedPmu, Event, Pmu};
use pmprobe::probe::listeners::{MemTrace, OverflowPolicy, StackDistance};
use pmprobe::probe::{Listener, MutListener};
use pmprobe::spu::mfc::DmaEvent;
use pmprobe::spu::probes::{SpuPmuFeed, SpuProbes};
use pmprobe::spu::unit::Discard;
use spu_mfc_support::*;

/// A 256-byte get from 0x10000 (two lines), a 128-byte put to 0x20040 (half of two lines),
/// and the get's first line again.
const PROGRAM: &str = "_start:
    dma 0x40, 0x1000, 0x10000, 256, 0
    wait 1
    dma 0x20, 0x1000, 0x20040, 128, 0
    wait 1
    dma 0x40, 0x2000, 0x10000, 128, 0
    wait 1
    stop";

#[test]
fn main_memory_traffic_reaches_the_trace_and_stack_distance_listeners() {
    for mode in MODES {
        let probes = SpuProbes::new();
        let trace: MutListener<MemTrace<16>> =
            MutListener::new(MemTrace::new(OverflowPolicy::DropNewest));
        let distance: MutListener<StackDistance<16, 8>> =
            MutListener::new(StackDistance::new(128).unwrap());
        probes.dma_lines.add_object(&trace).unwrap();
        probes.dma_lines.add_object(&distance).unwrap();
        let mut unit = load(PROGRAM, memory(1 << 20), mode, 0);
        let outcome = unit.run(100_000, &probes, &mut Discard).unwrap();
        assert!(stopped(&outcome), "{mode:?}: {outcome:?}");
        // din: `0 <hex address>` for a read of main memory (a get), `1` for a write (a put).
        let din = trace
            .with(|t| {
                let mut text = String::new();
                t.write_din(&mut text).unwrap();
                text
            })
            .unwrap();
        assert_eq!(
            din, "0 10000\n0 10080\n1 20040\n1 20080\n0 10000\n",
            "{mode:?}"
        );
        let sizes: Vec<u32> = trace.with(|t| t.iter().map(|a| a.size).collect()).unwrap();
        assert_eq!(sizes, [128, 128, 64, 64, 128], "{mode:?}");
        // Four lines touched first (infinite distance), then 0x10000 again after three other
        // lines (distance 3): reads inf, inf, 3; writes inf, inf.
        let (reads, writes) = distance
            .with(|d| (d.reads().clone(), d.writes().clone()))
            .unwrap();
        assert_eq!((reads.infinite, reads.linear[3]), (2, 1), "{mode:?}");
        assert_eq!((writes.infinite, writes.total()), (2, 2), "{mode:?}");
    }
}

#[test]
fn dma_transfers_reach_the_dma_point_and_bus_access_counts_their_lines() {
    for mode in MODES {
        let cpu = EmulatedPmu::neoverse_v1_like();
        let mut pmu = Pmu::new(&cpu).unwrap();
        let bus = pmu.program(Event::BUS_ACCESS).unwrap();
        let backend = pmu.program(Event::STALL_BACKEND).unwrap();
        pmu.start().unwrap();
        let feed = SpuPmuFeed::new(&cpu).unwrap();
        let recorder = Recorder::default();
        let keep = Keep(&recorder);
        let probes = SpuProbes::new();
        probes.dma.add_object(&keep).unwrap();
        let mut unit = load(PROGRAM, memory(1 << 20), mode, 0);
        let outcome = unit.run(100_000, &(feed, &probes), &mut Discard).unwrap();
        assert!(stopped(&outcome));
        // 2 + 2 + 1 lines.
        assert_eq!(pmu.read(bus).unwrap(), 5, "{mode:?}");
        let events = recorder.dma.take();
        assert_eq!(events.len(), 3, "{mode:?}");
        assert!(events.iter().all(|e| e.completed >= e.issued));
        if mode == pmprobe::spu::unit::Mode::Pipeline {
            // The waits on the tag groups are back-end stalls: each transfer takes at least
            // 300 cycles, of which the instructions between its wrch and the wait take some.
            let waits = unit.stats().channel_wait_stalls;
            assert!(waits > 3 * 250, "{waits}");
            assert!(pmu.read(backend).unwrap() >= waits);
        }
    }
}

/// A `Dma` point listener that keeps what it hears in its recorder.
struct Keep<'r>(&'r Recorder);

impl Listener<DmaEvent> for Keep<'_> {
    fn notify(&self, event: &DmaEvent) {
        self.0.dma.borrow_mut().push(*event);
    }
}
