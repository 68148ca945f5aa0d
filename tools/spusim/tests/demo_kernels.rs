//! The demo firmware's MFC kernels under spusim, alone on one SPU as `docs/spu-mfc.md` shows
//! them: the stream (its input loaded from a file, its whole output dumped and compared with
//! Rust's), the work queue taken entirely by one SPU, and the handshake played against itself.
//! The expected values come from the firmware's own reference, included below.

mod common;

#[allow(dead_code)] // the firmware's reference: this test uses part of it
#[path = "../../../src/demo/mfc/kernels.rs"]
mod mfc_kernels;

use std::path::PathBuf;

use common::{program, spusim, stderr, stdout};
use mfc_kernels::*;

const MODES: [&str; 2] = ["instruction", "pipeline"];

/// The bytes of `--ea-dump` lines (`00100000: c4 3f ...`), in order.
fn dumped(text: &str) -> Vec<u8> {
    text.lines()
        .filter(|line| line.len() > 9 && line.as_bytes()[8] == b':')
        .flat_map(|line| line[9..].split_whitespace())
        .map(|byte| u8::from_str_radix(byte, 16).unwrap())
        .collect()
}

/// The preferred word of `$r` in the `--regs` listing (`$13  00000063 00000000 ...`).
fn register(text: &str, r: u8) -> u32 {
    let label = format!("${r}");
    let line = text
        .lines()
        .find(|line| line.split_whitespace().next() == Some(label.as_str()))
        .unwrap_or_else(|| panic!("no {label} in\n{text}"));
    u32::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_be_bytes(w.try_into().unwrap()))
        .collect()
}

#[test]
fn the_stream_runs_from_a_loaded_file_both_ways() {
    let input = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("demo_stream_input.bin");
    let bytes: Vec<u8> = (0..STREAM_ELEMENTS)
        .flat_map(|i| stream_input(i).to_bits().to_be_bytes())
        .collect();
    std::fs::write(&input, bytes).unwrap();
    let expected: Vec<u32> = (0..STREAM_ELEMENTS)
        .map(|i| stream_output(stream_input(i)).to_bits())
        .collect();
    let checksum = expected.iter().fold(0u32, |sum, &w| sum.wrapping_add(w));
    for mode in MODES {
        for buffers in [1, 2] {
            let mut args = vec![
                "--mode".to_string(),
                mode.to_string(),
                "--ea-size".to_string(),
                MEMORY_BYTES.to_string(),
                "--ea-load".to_string(),
                format!("{}@{STREAM_INPUT}", input.display()),
                "--ea-dump".to_string(),
                format!("{STREAM_OUTPUT}:{STREAM_BYTES}"),
                "--regs".to_string(),
            ];
            for word in stream_mailbox(buffers) {
                args.extend(["--in-mbox".to_string(), word.to_string()]);
            }
            args.push(program("demo_stream.s"));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let output = spusim(&args);
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
            let text = stdout(&output);
            assert!(words(&dumped(&text)) == expected, "{mode} {buffers}");
            assert_eq!(register(&text, 40), checksum, "{mode} {buffers}");
        }
    }
}

#[test]
fn one_spu_takes_the_whole_work_queue() {
    for mode in MODES {
        let mut args = vec![
            "--mode".to_string(),
            mode.to_string(),
            "--ea-size".to_string(),
            MEMORY_BYTES.to_string(),
            "--ea-dump".to_string(),
            format!(
                "{QUEUE_COUNTER}:{}",
                128 + (QUEUE_ITEMS + 1) as u64 * ENTRY_BYTES
            ),
        ];
        for word in queue_mailbox(0) {
            args.extend(["--in-mbox".to_string(), word.to_string()]);
        }
        args.push(program("demo_workqueue.s"));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = spusim(&args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let memory = words(&dumped(&stdout(&output)));
        assert_eq!(memory[0], QUEUE_ITEMS, "{mode}: the counter");
        let entries = &memory[32..];
        for item in 0..QUEUE_ITEMS {
            let at = 4 * item as usize;
            assert_eq!(
                entries[at..at + 4],
                [item, item_result(item), 0, item],
                "{mode}: item {item}"
            );
        }
        let at = 4 * QUEUE_ITEMS as usize;
        // Alone, it never loses its reservation.
        assert_eq!(
            entries[at..at + 4],
            [0, QUEUE_ITEMS, 0, 0],
            "{mode}: summary"
        );
    }
}

#[test]
fn the_handshake_plays_against_itself() {
    for mode in MODES {
        let rounds = HANDSHAKE_ROUNDS.to_string();
        let output = spusim(&[
            "--mode",
            mode,
            "--signal1",
            "0",
            "--in-mbox",
            "0",
            "--in-mbox",
            &rounds,
            "--regs",
            &program("demo_handshake.s"),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let text = stdout(&output);
        // It received 0, 1, ..., rounds - 1 (its own sends).
        assert_eq!(register(&text, 7), HANDSHAKE_ROUNDS, "{mode}: rounds");
        assert_eq!(register(&text, 13), HANDSHAKE_ROUNDS - 1, "{mode}: last");
    }
}
