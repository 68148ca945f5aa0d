//! The DMA race checker on puts the race kernels leave out: a `putl` element's local store and
//! two SPUs putting to overlapping main memory, in both modes. Each expected race is the rule (quoted below, with its source) applied to the
//! program by hand; the PCs are the programs' labels and their `dma` macros' `wrch $MFC_Cmd`
//! (the 13th instruction, at +0x30).

mod spu_dma_check_support;

use pmprobe::spu::dma_check::{DmaRace, LaterAccess, RaceKind, Span, TransferInfo};
use pmprobe::spu::mfc::Command;
use spu_dma_check_support::*;

fn span(start: u64, end: u64) -> Span {
    Span { start, end }
}

/// The address of `label` in `text`.
fn label(text: &str, label: &str) -> u32 {
    assembled_text(text).1.symbol(label).unwrap()
}

/// A put family transfer of SPU `spu` (cycles left 0, as `timeless` leaves them).
fn transfer(spu: u8, opcode: u32, tag: u8, ls: Span, ea: Span, pc: u32) -> TransferInfo {
    TransferInfo {
        spu,
        command: Command::decode(opcode).unwrap(),
        tag: Some(tag),
        ls,
        ea,
        element: None,
        pc,
        cycle: 0,
    }
}

/// Runs `text` with variant `variant` on `threads` SPUs in both modes; both must find
/// `expected` (cycles aside) and nothing more.
fn check(text: &str, variant: u64, threads: u8, expected: &[DmaRace]) {
    for mode in MODES {
        let checked = run_text(text, variant, mode, threads);
        assert_eq!(
            timeless_all(&checked.races),
            expected,
            "variant {variant} in {mode:?} mode"
        );
        assert!(!checked.stats.incomplete(), "{:?}", checked.stats);
    }
}

/// Rule "store to LS a pending put reads": a `putl` reads each element's local store any time
/// before its tag group is seen complete [CBEA via the SDK tutorial: "DMA-command tag
/// groups"; a list's elements are transfers of their own, CBEA 7.4]. Two elements of 16 bytes,
/// LS 0x5000 and 0x5010 to EA 0x20000 and 0x20010; variant 0 stores to the second element's
/// bytes before the tag wait (a race with element 1 only), variant 1 after it (none).
#[test]
fn a_store_to_the_bytes_a_pending_putl_element_reads_races_with_that_element() {
    let text = with_macros(
        "        .data
        .balign 16
list:   .long 16, 0x20000
        .long 16, 0x20010
        .text
_start:
        rotqbyi $3, $3, 4
issue:
        dma 0x24, 0x5000, list, 16, 2
        brnz $3, waited
racy_store:
        stqa $0, 0x5010
waited:
        wait 4
        stqa $0, 0x5010
        stop 0x2000",
    );
    let element_1 = TransferInfo {
        element: Some(1),
        ..transfer(
            0,
            0x24,
            2,
            span(0x5010, 0x5020),
            span(0x20010, 0x20020),
            label(&text, "issue") + 0x30,
        )
    };
    check(
        &text,
        0,
        1,
        &[DmaRace {
            kind: RaceKind::StoreToPut,
            spu: 0,
            cycle: 0,
            pc: label(&text, "racy_store"),
            later: LaterAccess::Store(span(0x5010, 0x5020)),
            earlier: element_1,
        }],
    );
    check(&text, 1, 1, &[]);
}

/// Two SPUs put 256 bytes each to main memory that overlaps (EA 0x40000 and 0x40080).
/// Variant 0: nothing orders them, a race ("a put and another SPU's get or put of
/// overlapping main memory with nothing ordering them": SPUs run concurrently, so only the
/// first SPU's tag wait, made known to the second before it issues, orders the two [the
/// SDK tutorial, "DMA-command tag groups"; docs/dma-races.md, "Across SPUs"]). Variant 1:
/// SPU 0 waits for its put, then signals SPU 1 (`sndsig` to its signal-notification register
/// 1), which reads the signal before its put: ordered, no race. SPU 0 runs its first turn
/// first, so its put is the earlier.
#[test]
fn two_spus_putting_to_overlapping_main_memory_race_unless_a_signal_orders_them() {
    let text = with_macros(
        "        SIGNAL1_OF_SPU1 = 0xf015400c
        .data
        .balign 16
one:    .long 0, 0, 0, 1
        .text
_start:
        rotqbyi $3, $3, 4
        rotqbyi $4, $4, 4
        brnz $4, thread1
put0:
        dma 0x20, 0x3000, 0x40000, 256, 1
        wait 2
        brz $3, done
        dma 0xa0, one+12, SIGNAL1_OF_SPU1, 4, 1
        wait 2
done:
        stop 0x2000
thread1:
        brz $3, put1
        rdch $6, $SPU_RdSigNotify1
put1:
        dma 0x20, 0x3000, 0x40080, 256, 1
        wait 2
        stop 0x2000",
    );
    let put0 = label(&text, "put0") + 0x30;
    let put1 = label(&text, "put1") + 0x30;
    let ls = span(0x3000, 0x3100);
    check(
        &text,
        0,
        2,
        &[DmaRace {
            kind: RaceKind::AcrossSpus,
            spu: 1,
            cycle: 0,
            pc: put1,
            later: LaterAccess::Transfer(transfer(1, 0x20, 1, ls, span(0x40080, 0x40180), put1)),
            earlier: transfer(0, 0x20, 1, ls, span(0x40000, 0x40100), put0),
        }],
    );
    check(&text, 1, 2, &[]);
}
