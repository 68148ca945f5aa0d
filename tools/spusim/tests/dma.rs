//! spusim and the MFC: main memory loaded from files and dumped after the run, the host's
//! signals and mailbox values, the DMA figures of `--stats` in both modes, and a refused DMA
//! command named with everything it gave.

mod common;

use std::path::PathBuf;

use common::{spusim, stderr, stdout, temp_program};

fn scratch(name: &str) -> String {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(name)
        .display()
        .to_string()
}

/// Gets 32 bytes from EA 0x10000 into LS 0x1000, waits for tag 3, puts them to EA 0x20010.
const COPY: &str = "
_start:
    ila $2, 0x1000
    wrch $MFC_LSA, $2
    il $2, 0
    wrch $MFC_EAH, $2
    ila $2, 0x10000
    wrch $MFC_EAL, $2
    il $2, 32
    wrch $MFC_Size, $2
    il $2, 3
    wrch $MFC_TagID, $2
    il $2, 0x40
    wrch $MFC_Cmd, $2
    il $2, 8
    wrch $MFC_WrTagMask, $2
    il $2, 2
    wrch $MFC_WrTagUpdate, $2
    rdch $2, $MFC_RdTagStat
    ila $2, 0x20010
    wrch $MFC_EAL, $2
    ila $2, 0x1000
    wrch $MFC_LSA, $2
    il $2, 0x20
    wrch $MFC_Cmd, $2
    il $2, 2
    wrch $MFC_WrTagUpdate, $2
    rdch $2, $MFC_RdTagStat
    stop
";

#[test]
fn main_memory_is_loaded_from_files_and_dumped_as_hex() {
    let data = scratch("dma_data.bin");
    let bytes: Vec<u8> = (0u8..32).map(|i| i * 3).collect();
    std::fs::write(&data, &bytes).unwrap();
    let program = temp_program("dma_copy.s", COPY);
    for mode in ["instruction", "pipeline"] {
        let output = spusim(&[
            "--mode",
            mode,
            "--ea-size",
            "0x40000",
            "--ea-load",
            &format!("{data}@0x10000"),
            "--ea-dump",
            "0x20000:48",
            "--stats",
            &program,
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let text = stdout(&output);
        // 16 zero bytes at 0x20000, then the copy at 0x20010..0x20030.
        let line = |address: u32, row: &[u8]| {
            let hex: String = row.iter().map(|b| format!(" {b:02x}")).collect();
            format!("{address:08x}:{hex}")
        };
        for expected in [
            line(0x20000, &[0; 16]),
            line(0x20010, &bytes[..16]),
            line(0x20020, &bytes[16..]),
        ] {
            assert!(
                text.contains(&expected),
                "{mode}: no `{expected}` in\n{text}"
            );
        }
        for figure in [
            "DMA commands                    2",
            "DMA bytes in (get)              32",
            "DMA bytes out (put)             32",
        ] {
            assert!(text.contains(figure), "{mode}: no `{figure}` in\n{text}");
        }
    }
}

#[test]
fn the_host_feeds_signals_and_the_inbound_mailbox() {
    // Five mailbox values: four fit before the start, the fifth goes in as the SPU reads.
    let program = temp_program(
        "dma_host.s",
        "_start:
            rdch $3, $SPU_RdSigNotify1
            rdch $4, $SPU_RdSigNotify2
            il $6, 5
        1:  rdch $5, $SPU_RdInMbox
            a $3, $3, $5
            ai $6, $6, -1
            brnz $6, 1b
            a $3, $3, $4
            wrch $SPU_WrOutMbox, $3
            wrch $SPU_WrOutMbox, $3
            stop",
    );
    for mode in ["instruction", "pipeline"] {
        let mut args = vec!["--mode", mode, "--signal1", "0x100", "--signal2", "0x1000"];
        for value in ["1", "2", "3", "4", "5"] {
            args.extend(["--in-mbox", value]);
        }
        args.push(&program);
        let output = spusim(&args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        // 0x100 + 0x1000 + 1 + 2 + 3 + 4 + 5; the second write waits until the host drained
        // the first, which prints it.
        assert!(
            stdout(&output).starts_with("SPU0: mailbox 0x0000110f\n"),
            "{mode}: {}",
            stdout(&output)
        );
    }
}

#[test]
fn a_refused_command_is_named_with_what_it_gave() {
    // 24 bytes is no DMA size (1, 2, 4, 8, or a multiple of 16).
    let program = temp_program("dma_bad.s", &COPY.replace("il $2, 32", "il $2, 24"));
    let output = spusim(&["--mode", "instruction", &program]);
    assert_eq!(output.status.code(), Some(3));
    let message = stderr(&output);
    assert!(
        message.contains(
            "fault: DMA error: invalid transfer size (get 0x40, tag 3, LSA 0x01000, EA 0x10000, size 24)"
        ),
        "{message}"
    );
}

#[test]
fn bad_memory_options_are_refused_by_name() {
    let program = temp_program("dma_nothing.s", "_start: stop\n");
    let data = scratch("dma_big.bin");
    std::fs::write(&data, vec![1u8; 64]).unwrap();
    let output = spusim(&[
        "--ea-size",
        "4096",
        "--ea-load",
        &format!("{data}@4064"),
        &program,
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--ea-load") && stderr(&output).contains("outside main memory"),
        "{}",
        stderr(&output)
    );
    let output = spusim(&["--ea-dump", "4090:16", "--ea-size", "4096", &program]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("--ea-dump"), "{}", stderr(&output));
}
