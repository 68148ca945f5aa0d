//! The DMA race checker's fixed tables: what does not fit is forgotten and counted, never
//! lost silently ([`DmaCheckStats`] and its `incomplete`), and what does fit is still checked.
//! The counts follow from the tables' documented capacities (`PENDING_COMMANDS`,
//! `PENDING_TRANSFERS`, `HISTORY_TRANSFERS`) and the programs below.

mod spu_dma_check_support;

use pmprobe::spu::dma_check::{HISTORY_TRANSFERS, PENDING_COMMANDS, PENDING_TRANSFERS};
use spu_dma_check_support::*;

#[test]
fn more_pending_commands_than_the_table_holds_are_forgotten_and_counted() {
    // 60 gets of 16 bytes each into their own LS, one wait at the end.
    let text = with_macros(
        "_start:
        .set n, 0
        .rept 60
        dma 0x40, 0x1000+n*16, 0x10000+n*16, 16, 1
        .set n, n + 1
        .endr
        wait 2
        stop 0x2000",
    );
    for mode in MODES {
        let checked = run_text(&text, 0, mode, 1);
        let stats = checked.stats;
        assert_eq!(stats.commands, 60);
        assert_eq!(
            stats.commands_forgotten,
            60 - PENDING_COMMANDS as u64,
            "{mode:?}"
        );
        assert_eq!(stats.races, 0);
        assert!(stats.incomplete());
    }
}

#[test]
fn list_elements_past_the_transfer_pool_are_not_checked_and_counted() {
    // A getl of 300 elements of 16 bytes (2 400 bytes of list), then a load from the data of
    // element 0 before the wait: still a race, the element being in the pool.
    let text = with_macros(
        "        .data
        .balign 16
list:
        .set n, 0
        .rept 300
        .long 16, 0x10000 + n * 16
        .set n, n + 1
        .endr
        .text
_start:
        dma 0x44, 0x8000, list, 2400, 2
        lqa $10, 0x8000
        wait 4
        stop 0x2000",
    );
    for mode in MODES {
        let stats = run_text(&text, 0, mode, 1).stats;
        assert_eq!(
            stats.transfers_unchecked,
            300 - PENDING_TRANSFERS as u64,
            "{mode:?}"
        );
        assert_eq!(stats.races, 1, "{mode:?}");
    }
}

#[test]
fn main_memory_transfers_past_the_history_are_forgotten_and_counted() {
    // Thread 0 puts 300 blocks of 16 bytes, waiting for each; thread 1 stops at once and so
    // never learns of any: none can be dropped as known, the oldest go.
    let text = with_macros(
        "_start:
        rotqbyi $4, $4, 4
        brnz $4, idle
        .set n, 0
        .rept 300
        dma 0x20, 0x1000, 0x10000+n*16, 16, 1
        wait 2
        .set n, n + 1
        .endr
idle:
        stop 0x2000",
    );
    for mode in MODES {
        let stats = run_text(&text, 0, mode, 2).stats;
        assert_eq!(
            stats.history_forgotten,
            300 - HISTORY_TRANSFERS as u64,
            "{mode:?}"
        );
        assert_eq!(stats.races, 0);
    }
}
