//! MFC transfers as the Cell Broadband Engine Architecture defines them: `get` and `put`, the
//! size and alignment rules, DMA lists with stall-and-notify, and the typed errors that stop an
//! SPU. Expected values come from the architecture's rules, written out here (the opcodes are
//! `spu_mfcio.h`'s: get 0x40, put 0x20, getl 0x44, putl 0x24; tag bit n is `1 << n`).

mod spu_mfc_support;

use pmprobe::spu::exec::{FaultKind, RunEnd, StopReason};
use pmprobe::spu::mfc::{DmaErrorKind, DmaFault};
use pmprobe::spu::unit::Mode;
use spu_mfc_support::*;

#[test]
fn get_and_put_move_bytes_and_complete_their_tag_group() {
    for mode in MODES {
        let memory = memory(1 << 16);
        host_write(memory, 0x1000, &pattern(7, 256));
        let (unit, outcome, events) = run_program(
            "_start:
                dma 0x40, 0x400, 0x1000, 256, 5
                wait 1<<5
                ori $4, $2, 0
                dma 0x20, 0x400, 0x3000, 256, 9
                wait 1<<9
                stop",
            memory,
            mode,
        );
        assert!(stopped(&outcome), "{mode:?}: {outcome:?}");
        assert_eq!(ls_bytes(&unit, 0x400, 256), pattern(7, 256), "{mode:?}");
        assert_eq!(host_read(memory, 0x3000, 256), pattern(7, 256), "{mode:?}");
        // MFC_RdTagStat: the masked groups that completed.
        assert_eq!(word(&unit, 4), 1 << 5, "{mode:?}");
        assert_eq!(word(&unit, 2), 1 << 9, "{mode:?}");
        let summary: Vec<_> = events
            .iter()
            .map(|e| (e.command.name(), e.tag, e.lsa, e.ea, e.size))
            .collect();
        assert_eq!(
            summary,
            [
                ("get", 5, 0x400, 0x1000, 256),
                ("put", 9, 0x400, 0x3000, 256)
            ]
        );
        let stats = unit.arch().dma_stats();
        assert_eq!(
            (stats.commands, stats.bytes_in, stats.bytes_out),
            (2, 256, 256)
        );
    }
}

/// Runs one `get` of `size` bytes from `ea` to `lsa` and returns how the SPU ended.
fn one_get(lsa: u32, ea: u32, size: u32, tag: u32, opcode: u32) -> (RunEnd, Option<DmaFault>) {
    let memory = memory(1 << 16);
    let (unit, outcome, _) = run_program(
        &format!("_start: dma {opcode:#x}, {lsa:#x}, {ea:#x}, {size}, {tag}\n wait 1\n stop"),
        memory,
        Mode::Instruction,
    );
    (outcome.end, unit.arch().dma_fault())
}

fn refused(end: RunEnd) -> Option<DmaErrorKind> {
    match end {
        RunEnd::Stopped(StopReason::Fault(fault)) => match fault.kind {
            FaultKind::Dma(kind) => Some(kind),
            _ => None,
        },
        _ => None,
    }
}

#[test]
fn sizes_are_1_2_4_8_or_multiples_of_16_up_to_16_kib() {
    // CBEA: a transfer is 1, 2, 4, 8 bytes, or a multiple of 16 up to 16 KiB.
    for size in [1, 2, 4, 8, 16, 32, 48, 4096, 16384] {
        let (end, fault) = one_get(0x400, 0x1000, size, 0, 0x40);
        assert!(
            matches!(end, RunEnd::Stopped(StopReason::Stop { .. })),
            "{size}: {end:?} {fault:?}"
        );
    }
    for size in [3, 5, 6, 7, 9, 12, 15, 24, 40, 16400, 32768] {
        let (end, _) = one_get(0x400, 0x1000, size, 0, 0x40);
        assert_eq!(refused(end), Some(DmaErrorKind::Size), "{size}");
    }
}

#[test]
fn alignment_is_natural_below_16_and_lsa_ea_share_their_low_four_bits() {
    let cases = [
        // (lsa, ea, size, allowed): natural alignment under 16 bytes...
        (0x402, 0x1002, 2, true),
        (0x404, 0x1004, 4, true),
        (0x408, 0x1008, 8, true),
        (0x402, 0x1002, 4, false),
        (0x404, 0x1004, 8, false),
        // ...the same low 4 bits of LSA and EA...
        (0x400, 0x1004, 4, false),
        (0x40c, 0x1008, 4, false),
        // ...and 16-byte alignment from 16 bytes on.
        (0x400, 0x1010, 32, true),
        (0x408, 0x1008, 32, false),
    ];
    for (lsa, ea, size, allowed) in cases {
        let (end, _) = one_get(lsa, ea, size, 0, 0x40);
        let expected = if allowed {
            None
        } else {
            Some(DmaErrorKind::Alignment)
        };
        assert_eq!(
            refused(end),
            expected,
            "lsa {lsa:#x} ea {ea:#x} size {size}"
        );
    }
}

/// CBEA: `MFC_TagID`'s tag is its five low bits; the reserved bits above are ignored, so tag 32
/// is group 0 (the `wait 1` below waits for group 0) and 0x3f is group 31.
#[test]
fn a_tag_above_31_is_its_five_low_bits() {
    for tag in [32, 0x3f | 0x40] {
        let (end, fault) = one_get(0x400, 0x1000, 16, tag, 0x40);
        let expected_group = tag & 31;
        let memory = memory(1 << 16);
        let (_, waited, _) = run_program(
            &format!(
                "_start: dma 0x40, 0x400, 0x1000, 16, {tag}\n wait 1<<{expected_group}\n stop"
            ),
            memory,
            Mode::Instruction,
        );
        assert!(
            matches!(end, RunEnd::Stopped(StopReason::Stop { .. })) && fault.is_none(),
            "tag {tag:#x}: {end:?} {fault:?}"
        );
        assert!(
            matches!(waited.end, RunEnd::Stopped(StopReason::Stop { .. })),
            "tag {tag:#x} completes in group {expected_group}: {:?}",
            waited.end
        );
    }
}

#[test]
fn a_refused_command_stops_its_spu_with_everything_it_named() {
    // EA past the 64 KiB memory; LS past 256 KiB; opcodes the SPU's queue refuses
    // (0x60 none, 0x28 `puts` is the PPE proxy's, 0x43 sets both fence and barrier bits).
    let cases = [
        (0x400, 0xfff0, 32, 0, 0x40, DmaErrorKind::EaOutOfRange),
        (0x3fff0, 0x1000, 32, 0, 0x40, DmaErrorKind::LocalStoreRange),
        (0x400, 0x1000, 16, 0, 0x60, DmaErrorKind::UnknownCommand),
        (0x400, 0x1000, 16, 0, 0x28, DmaErrorKind::UnknownCommand),
        (0x400, 0x1000, 16, 0, 0x43, DmaErrorKind::UnknownCommand),
    ];
    for (lsa, ea, size, tag, opcode, kind) in cases {
        let (end, fault) = one_get(lsa, ea, size, tag, opcode);
        assert_eq!(refused(end), Some(kind), "{opcode:#x}");
        assert_eq!(
            fault,
            Some(DmaFault {
                kind,
                opcode: opcode as u16,
                tag,
                lsa,
                ea: u64::from(ea),
                size,
                element: None,
            })
        );
        // The fault is at the `wrch MFC_Cmd` that issued it: the dma macro's 13th word.
        let RunEnd::Stopped(reason) = end else {
            unreachable!()
        };
        assert_eq!(reason.pc(), 12 * 4);
    }
}

#[test]
fn a_faulting_spu_corrupts_nothing_and_its_neighbour_goes_on() {
    let memory = memory(1 << 16);
    host_write(memory, 0x1000, &pattern(1, 64));
    let mut bad = load(
        "_start: dma 0x20, 0x400, 0x1000, 24, 0\n stop",
        memory,
        Mode::Pipeline,
        0,
    );
    let mut good = load(
        "_start: dma 0x40, 0x800, 0x1000, 64, 3\n wait 8\n stop",
        memory,
        Mode::Pipeline,
        1,
    );
    let recorder = Recorder::default();
    assert_eq!(
        refused(run(&mut bad, 10_000, &recorder).end),
        Some(DmaErrorKind::Size)
    );
    assert!(stopped(&run(&mut good, 10_000, &recorder)));
    assert_eq!(host_read(memory, 0x1000, 64), pattern(1, 64));
    assert_eq!(ls_bytes(&good, 0x800, 64), pattern(1, 64));
    assert_eq!(ls_bytes(&bad, 0x400, 24), vec![0; 24]);
}

/// A list of (stall, size, EA) elements at LS 0x2000, as `.word` pairs.
fn list_words(elements: &[(bool, u32, u32)]) -> String {
    elements
        .iter()
        .map(|&(stall, size, ea)| {
            format!(" .word {:#x}, {ea:#x}\n", (u32::from(stall) << 31) | size)
        })
        .collect()
}

#[test]
fn list_elements_pack_their_data_on_16_byte_boundaries() {
    // CBEA 7.4: each element's data goes to the next 16-byte boundary after the previous
    // one's; an element under 16 bytes takes its EA's low 4 bits. From LSA 0x800: 16 bytes
    // at 0x800, 8 bytes (EA ...108) at 0x818, 32 bytes at 0x820.
    for mode in MODES {
        let memory = memory(1 << 16);
        host_write(memory, 0x2000, &pattern(0x10, 16));
        host_write(memory, 0x2108, &pattern(0x40, 8));
        host_write(memory, 0x2200, &pattern(0x80, 32));
        let source = format!(
            "_start:
                dma 0x44, 0x800, list, 24, 2
                wait 4
                stop
            .balign 16
            list:
            {}",
            list_words(&[(false, 16, 0x2000), (false, 8, 0x2108), (false, 32, 0x2200)])
        );
        let (unit, outcome, events) = run_program(&source, memory, mode);
        assert!(stopped(&outcome), "{mode:?}: {outcome:?}");
        assert_eq!(ls_bytes(&unit, 0x800, 16), pattern(0x10, 16));
        assert_eq!(ls_bytes(&unit, 0x818, 8), pattern(0x40, 8));
        assert_eq!(ls_bytes(&unit, 0x820, 32), pattern(0x80, 32));
        let elements: Vec<_> = events
            .iter()
            .map(|e| (e.element, e.lsa, e.ea, e.size))
            .collect();
        assert_eq!(
            elements,
            [
                (Some(0), 0x800, 0x2000, 16),
                (Some(1), 0x818, 0x2108, 8),
                (Some(2), 0x820, 0x2200, 32)
            ],
            "{mode:?}"
        );
    }
}

#[test]
fn a_stalled_list_waits_for_its_acknowledgement_and_reads_later_elements_then() {
    // Element 0 has stall-and-notify: the MFC stops after it, MFC_RdListStallStat names the
    // tag group, the group is not complete; the program points element 1 elsewhere, then
    // acknowledges with MFC_WrListStallAck, and element 1 moves from the new EA.
    for mode in MODES {
        let memory = memory(1 << 16);
        host_write(memory, 0x2000, &pattern(0x10, 16));
        host_write(memory, 0x3000, &pattern(0x60, 16));
        // The new list is prepared beside it; the quadword copy rewrites element 0 as it was.
        let source = format!(
            "_start:
                dma 0x44, 0x800, list, 16, 6
            1:  rchcnt $5, $MFC_RdListStallStat
                brz $5, 1b
                rdch $6, $MFC_RdListStallStat
                il $2, 1 << 6
                wrch $MFC_WrTagMask, $2
                il $2, 0
                wrch $MFC_WrTagUpdate, $2
                rdch $7, $MFC_RdTagStat
                lqa $3, newlist
                stqa $3, list
                il $2, 6
                wrch $MFC_WrListStallAck, $2
                wait 1<<6
                ori $8, $2, 0
                stop
            .balign 16
            list:
            {}
            newlist:
            {}",
            list_words(&[(true, 16, 0x2000), (false, 16, 0x2000)]),
            list_words(&[(true, 16, 0x2000), (false, 16, 0x3000)])
        );
        let (unit, outcome, _) = run_program(&source, memory, mode);
        assert!(stopped(&outcome), "{mode:?}: {outcome:?}");
        assert_eq!(word(&unit, 5), 1, "{mode:?}: the stall count");
        assert_eq!(word(&unit, 6), 1 << 6, "{mode:?}: the stalled groups");
        assert_eq!(
            word(&unit, 7),
            0,
            "{mode:?}: group 6 not complete while stalled"
        );
        assert_eq!(word(&unit, 8), 1 << 6, "{mode:?}");
        assert_eq!(ls_bytes(&unit, 0x800, 16), pattern(0x10, 16));
        assert_eq!(ls_bytes(&unit, 0x810, 16), pattern(0x60, 16), "{mode:?}");
    }
}

#[test]
fn bad_lists_are_refused() {
    let memory = memory(1 << 16);
    let list = |lsa: u32, at: u32, size: u32, element_size: u32| {
        format!(
            "_start: dma 0x44, {lsa:#x}, {at:#x}, {size}, 0\n wait 1\n stop\n .org 0x2000\n{}",
            list_words(&[(false, element_size, 0x1000)])
        )
    };
    // A list size not a multiple of 8; a list not 8-byte aligned in LS; an element whose
    // data would run past the end of the local store; an element of an invalid size.
    let cases = [
        (list(0x800, 0x2000, 12, 16), DmaErrorKind::Size),
        (list(0x800, 0x2004, 8, 16), DmaErrorKind::Alignment),
        (
            list(0x3fff0, 0x2000, 8, 32),
            DmaErrorKind::ListOutsideLocalStore,
        ),
        (list(0x800, 0x2000, 8, 24), DmaErrorKind::Size),
    ];
    for (source, kind) in cases {
        let (unit, outcome, _) = run_program(&source, memory, Mode::Instruction);
        assert_eq!(refused(outcome.end), Some(kind), "{source}");
        if kind == DmaErrorKind::ListOutsideLocalStore {
            assert_eq!(unit.arch().dma_fault().and_then(|f| f.element), Some(0));
        }
    }
}
