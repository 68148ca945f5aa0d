//! DMA timing in pipeline mode, against the model `docs/spu-mfc.md` documents: a command
//! starts `issue_cycles` (12) after it may, sends one 128-byte request every
//! `128 / bytes_per_cycle` (16) cycles back to back with the commands before it, and completes
//! `latency_cycles` (288) after its last request; the CBEA's ordering rules decide when it
//! may start. The expected figures are worked out here from those parameters.

mod spu_mfc_support;

use pmprobe::spu::mfc::{DmaEvent, DmaTiming};
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::unit::Mode;
use spu_mfc_support::*;

const ISSUE: u64 = 12;
const SPACING: u64 = 16;
const LATENCY: u64 = 288;

fn timed(source: &str) -> Vec<DmaEvent> {
    assert_eq!(
        DmaTiming::cell(),
        DmaTiming {
            issue_cycles: ISSUE as u32,
            latency_cycles: LATENCY as u32,
            bytes_per_cycle: 8,
        }
    );
    let (_, outcome, events) = run_program(source, memory(1 << 20), Mode::Pipeline);
    assert!(stopped(&outcome), "{outcome:?}");
    events
}

#[test]
fn one_transfer_takes_issue_plus_its_requests_plus_latency() {
    for (bytes, lines) in [(128u64, 1u64), (256, 2), (16384, 128), (16, 1), (4, 1)] {
        let events = timed(&format!(
            "_start: dma 0x40, 0x1000, 0x10000, {bytes}, 0\n wait 1\n stop"
        ));
        let taken = events[0].completed - events[0].issued;
        assert_eq!(
            taken,
            ISSUE + (lines - 1) * SPACING + LATENCY,
            "{bytes} bytes"
        );
    }
    // A transfer that straddles a 128-byte line boundary needs one request more.
    let events = timed("_start: dma 0x40, 0x1040, 0x10040, 128, 0\n wait 1\n stop");
    assert_eq!(
        events[0].completed - events[0].issued,
        ISSUE + SPACING + LATENCY
    );
}

/// Two commands issued back to back (14 instructions apart); returns the second's
/// completion minus the first's.
fn gap(first: &str, second: &str) -> u64 {
    let events = timed(&format!(
        "_start:\n dma {first}\n dma {second}\n wait 0xffffffff\n stop"
    ));
    assert_eq!(events.len(), 2, "{events:?}");
    events[1].completed - events[0].completed
}

#[test]
fn requests_of_queued_commands_go_out_back_to_back() {
    // Unordered: the second's 32 requests follow the first's, its data arrives 32 x 16 later.
    assert_eq!(
        gap(
            "0x40, 0x1000, 0x10000, 4096, 1",
            "0x40, 0x2000, 0x20000, 4096, 1"
        ),
        32 * SPACING
    );
    assert_eq!(
        gap(
            "0x40, 0x1000, 0x10000, 4096, 1",
            "0x20, 0x2000, 0x20000, 4096, 2"
        ),
        32 * SPACING
    );
}

#[test]
fn a_fence_or_barrier_waits_for_the_earlier_commands_of_its_group() {
    // After a 4 KiB get of tag 1 (32 requests), a one-line get: unordered, its request
    // follows the 32 at once and its data arrives 16 cycles after theirs; fenced (0x42) or
    // barriered (0x41) in tag 1, it starts only once the first completed.
    let first = "0x40, 0x1000, 0x10000, 4096, 1";
    let ordered = ISSUE + LATENCY;
    assert_eq!(gap(first, "0x42, 0x2000, 0x20000, 128, 1"), ordered);
    assert_eq!(gap(first, "0x41, 0x2000, 0x20000, 128, 1"), ordered);
    assert_eq!(gap(first, "0x40, 0x2000, 0x20000, 128, 1"), SPACING);
    // Another group is not held by a fence.
    assert_eq!(gap(first, "0x42, 0x2000, 0x20000, 128, 2"), SPACING);
}

#[test]
fn a_barriered_command_also_holds_the_later_commands_of_its_group() {
    let events = timed(
        "_start:
            dma 0x40, 0x1000, 0x10000, 128, 1
            dma 0x41, 0x2000, 0x20000, 128, 1
            dma 0x40, 0x3000, 0x30000, 128, 1
            dma 0x40, 0x4000, 0x40000, 128, 2
            wait 0xffffffff
            stop",
    );
    let done: Vec<(u32, u64)> = events.iter().map(|e| (e.lsa, e.completed)).collect();
    let at = |lsa| done.iter().find(|(l, _)| *l == lsa).unwrap().1;
    assert_eq!(at(0x2000) - at(0x1000), ISSUE + LATENCY, "getb after get");
    assert_eq!(
        at(0x3000) - at(0x2000),
        ISSUE + LATENCY,
        "get after getb, same group"
    );
    assert!(at(0x4000) < at(0x2000), "group 2 is not held");
}

#[test]
fn the_barrier_command_orders_every_group() {
    let events = timed(
        "_start:
            dma 0x40, 0x1000, 0x10000, 128, 1
            dma 0xC0, 0, 0, 0, 5
            dma 0x40, 0x3000, 0x30000, 128, 2
            wait 0xffffffff
            stop",
    );
    assert_eq!(events.len(), 2, "the barrier moves nothing");
    assert_eq!(events[1].completed - events[0].completed, ISSUE + LATENCY);
}

#[test]
fn a_full_queue_holds_the_command_write() {
    // 16 transfers of 16 KiB fill the MFC's queue (the first takes 2332 cycles, far longer
    // than issuing the rest): MFC_Cmd's count is 0 and the 17th write waits until the first
    // completes.
    let sixteen: String = (0..16)
        .map(|i| {
            format!(
                " dma 0x40, {:#x}, 0x10000, 16384, 0\n",
                0x10000 + 0x4000 * (i % 4)
            )
        })
        .collect();
    let (unit, outcome, events) = run_program(
        &format!(
            "_start:\n{sixteen} rchcnt $5, $MFC_Cmd\n dma 0x40, 0x20000, 0x10000, 16384, 0\n \
             wait 1\n stop"
        ),
        memory(1 << 20),
        Mode::Pipeline,
    );
    assert!(stopped(&outcome));
    assert_eq!(word(&unit, 5), 0);
    assert_eq!(events.len(), 17);
    assert!(events[16].issued >= events[0].completed);
}

#[test]
fn waiting_on_a_channel_is_its_own_stall_class_and_the_figures_add_up() {
    for fetch in [FetchKind::Ideal, FetchKind::Real] {
        let memory = memory(1 << 20);
        let mut unit = load(
            "_start: dma 0x40, 0x1000, 0x10000, 16384, 0\n wait 1\n stop",
            memory,
            Mode::Pipeline,
            0,
        );
        unit.set_fetch(fetch).unwrap();
        let recorder = Recorder::default();
        assert!(stopped(&run(&mut unit, 100_000, &recorder)));
        let stats = unit.stats();
        stats.check_identities().unwrap();
        // The program needs a few dozen cycles; the transfer 12 + 127 x 16 + 288 = 2332.
        assert!(stats.channel_wait_stalls > 2000, "{fetch:?}: {stats:?}");
        assert_eq!(*recorder.channel_wait.borrow(), stats.channel_wait_stalls);
        assert!(stats.cycles >= 2332, "{fetch:?}");
        assert_eq!(
            unit.arch().dma_stats().wait_cycles,
            stats.channel_wait_stalls
        );
    }
}

#[test]
fn dma_data_takes_the_local_store_port_from_loads_and_stores() {
    // A loop of loads while a 16 KiB get moves 128 lines into the local store: DMA has the
    // port's first claim, so some loads wait a cycle (none would without the transfer).
    let source = |with_dma: bool| {
        format!(
            "_start:
                {}
                il $5, 4000
            1:  lqd $6, 0x100($0)
                lqd $7, 0x110($0)
                ai $5, $5, -1
                brnz $5, 1b
                stop",
            if with_dma {
                "dma 0x40, 0x10000, 0x10000, 16384, 0"
            } else {
                ""
            }
        )
    };
    for fetch in [FetchKind::Ideal, FetchKind::Real] {
        let mut stalls = Vec::new();
        for with_dma in [false, true] {
            let mut unit = load(&source(with_dma), memory(1 << 20), Mode::Pipeline, 0);
            unit.set_fetch(fetch).unwrap();
            let recorder = Recorder::default();
            assert!(stopped(&run(&mut unit, 1_000_000, &recorder)));
            unit.stats().check_identities().unwrap();
            stalls.push(unit.stats().dma_local_store_stalls);
        }
        assert_eq!(stalls[0], 0, "{fetch:?}");
        assert!(stalls[1] > 0 && stalls[1] <= 128, "{fetch:?}: {stalls:?}");
    }
}

#[test]
fn instruction_and_pipeline_mode_compute_the_same_results() {
    // A copy through the local store in 4 KiB blocks with two buffers, then a sum: correct
    // DMA code, whose results cannot depend on the timing.
    let source = "
        _start:
            il $10, 0
            il $11, 0
            dma 0x40, 0x8000, 0x10000, 4096, 0
        next:
            ai $12, $10, 1
            cgti $13, $12, 7
            brnz $13, last
            shli $14, $12, 12
            ila $15, 0x10000
            a $15, $15, $14
            andi $16, $12, 1
            shli $24, $16, 12
            ila $17, 0x8000
            a $17, $17, $24
            wrch $MFC_LSA, $17
            il $2, 0
            wrch $MFC_EAH, $2
            wrch $MFC_EAL, $15
            ila $2, 4096
            wrch $MFC_Size, $2
            wrch $MFC_TagID, $16
            il $2, 0x40
            wrch $MFC_Cmd, $2
        last:
            andi $18, $10, 1
            il $2, 1
            shl $2, $2, $18
            wrch $MFC_WrTagMask, $2
            il $2, 2
            wrch $MFC_WrTagUpdate, $2
            rdch $2, $MFC_RdTagStat
            shli $19, $18, 12
            ila $20, 0x8000
            a $20, $20, $19
            il $21, 256
        sum:
            lqx $22, $20, $0
            a $11, $11, $22
            ai $20, $20, 16
            ai $21, $21, -1
            brnz $21, sum
            ai $10, $10, 1
            cgti $13, $10, 7
            brz $13, next
            stop";
    let mut results = Vec::new();
    for mode in MODES {
        let memory = memory(1 << 20);
        let data: Vec<u8> = (0..8 * 4096).map(|i| (i * 7 % 251) as u8).collect();
        host_write(memory, 0x10000, &data);
        let (unit, outcome, events) = run_program(source, memory, mode);
        assert!(stopped(&outcome), "{mode:?}: {outcome:?}");
        assert_eq!(events.len(), 8, "{mode:?}");
        results.push((
            unit.arch().registers().to_vec(),
            ls_bytes(&unit, 0x8000, 8192),
        ));
    }
    assert_eq!(results[0], results[1]);
}

#[test]
fn a_command_issued_in_a_skipped_stall_is_serviced_before_its_status_is_read() {
    // With the real fetch unit the `wrch MFC_Cmd` of this getllar completes while the stall
    // skip runs stage o alone; the service must still start the command before the next
    // cycle, or the `rdch MFC_RdAtomicStat` after it finds nothing in flight and the run ends
    // as if only the host could help (it did, before the fix). Both ways must agree.
    let source = "_start:
            ila $9, 0x8000
            il $4, 64
            il $5, 0
            wrch $MFC_LSA, $9
            wrch $MFC_EAH, $5
            wrch $MFC_EAL, $5
            il $2, 0xD0
            wrch $MFC_Cmd, $2
            rdch $2, $MFC_RdAtomicStat
            lqd $11, 0($9)
            clgt $12, $4, $11
            brz $12, finished
            stop
        finished:
            stop";
    let mut ends = Vec::new();
    for skip in [true, false] {
        let mut unit = load(source, memory(1 << 16), Mode::Pipeline, 0);
        unit.set_fetch(FetchKind::Real).unwrap();
        unit.set_stall_skip(skip);
        let outcome = run(&mut unit, 100_000, &Recorder::default());
        assert!(stopped(&outcome), "stall skip {skip}: {outcome:?}");
        assert_eq!(word(&unit, 2), 4, "G: the getllar completed");
        ends.push((outcome.cycles, outcome.instructions));
    }
    assert_eq!(ends[0], ends[1]);
}
