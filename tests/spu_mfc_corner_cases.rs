//! MFC corner cases a PS3 recorded (the public tests of elad335/myps3tests, whose SPU programs
//! print what the console did), written here as this project's own programs: the expected
//! value of each is the recorded behaviour or the CBEA rule named beside it.

mod spu_mfc_support;

use pmprobe::spu::unit::Mode;
use spu_mfc_support::*;

/// A list of (stall, size, EA) elements as `.word` pairs.
fn list_words(elements: &[(bool, u32, u32)]) -> String {
    elements
        .iter()
        .map(|&(stall, size, ea)| {
            format!(" .word {:#x}, {ea:#x}\n", (u32::from(stall) << 31) | size)
        })
        .collect()
}

/// CBEA: a list element's transfer size (LTS) is 15 bits; bit 15 of its first word is not
/// part of it. "list transfer size (LTS) bits": an element of size 0x8000 completes at once
/// ("the mfc didnt stall!") and moves nothing.
#[test]
fn a_list_element_size_is_fifteen_bits() {
    for mode in MODES {
        let memory = memory(1 << 16);
        host_write(memory, 0x2000, &pattern(0x10, 64));
        let source = format!(
            "_start:
                dma 0x44, 0x800, list, 8, 0
                wait 1
                stop
            .balign 16
            list:
            {}",
            list_words(&[(false, 0x8000, 0x2000)])
        );
        let (unit, outcome, events) = run_program(&source, memory, mode);
        assert!(stopped(&outcome), "{mode:?}: {outcome:?}");
        assert_eq!(ls_bytes(&unit, 0x800, 64), vec![0; 64], "{mode:?}");
        assert!(
            events.iter().all(|event| event.size == 0),
            "{mode:?}: {events:?}"
        );
    }
}

/// "Lists execution when one list is stalled": two lists of one tag group, each stalling after
/// its first element; after the first stall the second list is queued, its stall is read too,
/// one acknowledgement of the group goes out, and the queue drains (the PS3 printed "sample
/// finished.": the `MFC_Cmd` count came back to 16).
#[test]
fn a_second_list_behind_a_stalled_one_drains_after_the_acknowledgement() {
    for mode in MODES {
        let memory = memory(1 << 16);
        let source = format!(
            "_start:
                dma 0x44, 0x800, list, 16, 0
                rdch $5, $MFC_RdListStallStat
                dma 0x44, 0x800, list, 16, 0
                rdch $6, $MFC_RdListStallStat
                il $2, 0
                wrch $MFC_WrListStallAck, $2
            1:  rchcnt $7, $MFC_Cmd
                ceqi $8, $7, 16
                brz $8, 1b
                stop
            .balign 16
            list:
            {}",
            list_words(&[(true, 0x80, 0x2000), (false, 0, 0x2000)])
        );
        let (unit, outcome, _) = run_program(&source, memory, mode);
        assert!(stopped(&outcome), "{mode:?}: the queue drains: {outcome:?}");
        assert_eq!(word(&unit, 5), 1, "{mode:?}: group 0 stalled");
        assert_eq!(word(&unit, 7), 16, "{mode:?}: every entry free again");
    }
}

/// "MFC_WrTagUpdate": with a list stalled in group 0 and an update for all groups requested,
/// the update's channel count stays 1 (the PS3 never saw it 0: "Tag Update operation result:
/// 0") and no status is available until the list completes.
#[test]
fn a_tag_update_waits_behind_a_stalled_list() {
    for mode in [Mode::Instruction, Mode::Pipeline] {
        let memory = memory(1 << 16);
        let source = format!(
            "_start:
                dma 0x44, 0x800, list, 16, 0
                rdch $5, $MFC_RdListStallStat
                il $2, -1
                wrch $MFC_WrTagMask, $2
                il $2, 2
                wrch $MFC_WrTagUpdate, $2
                rchcnt $6, $MFC_WrTagUpdate
                rchcnt $7, $MFC_RdTagStat
                il $2, 0
                wrch $MFC_WrListStallAck, $2
                rdch $8, $MFC_RdTagStat
                stop
            .balign 16
            list:
            {}",
            list_words(&[(true, 0, 0x2000), (false, 0, 0x2000)])
        );
        let (unit, outcome, _) = run_program(&source, memory, mode);
        assert!(stopped(&outcome), "{mode:?}: {outcome:?}");
        assert_eq!(word(&unit, 6), 1, "{mode:?}: MFC_WrTagUpdate's count");
        assert_eq!(word(&unit, 7), 0, "{mode:?}: no status while stalled");
        assert_eq!(
            word(&unit, 8),
            0xffff_ffff,
            "{mode:?}: every group complete"
        );
    }
}
