//! spusim running programs under the runtimes they were written for (`--runtime`): the text
//! a program prints reaches standard output unchanged, spusim's own lines go to standard
//! error, and the exit status is the program's. The programs in `spu/programs/runtime/` follow
//! the PS3 SDK's and libspe2's documented conventions; each expected text is what C's printf
//! (or the named stdio call) prints for the program's arguments, each status what the runtime
//! documents (`docs/spu-runtimes.md`).

mod common;

use std::process::Output;

use common::{program, spusim, stderr, stdout, temp_program};

const MODES: [&str; 2] = ["instruction", "pipeline"];

fn run(mode: &str, args: &[&str]) -> Output {
    let mut all = vec!["--mode", mode];
    all.extend_from_slice(args);
    spusim(&all)
}

#[test]
fn an_lv2_thread_prints_and_exits_with_its_status() {
    let path = program("runtime/lv2_print.s");
    for mode in MODES {
        let output = run(mode, &["--runtime", "lv2", &path]);
        // "%5.2f" of 2.5 is " 2.50"; the first line is 29 bytes, the count printf returns.
        assert_eq!(
            stdout(&output),
            "hello SPU: -42 beef A  2.50|\ncount 29\n",
            "{mode}"
        );
        assert_eq!(output.status.code(), Some(7), "{mode}: main returned 7");
        let err = stderr(&output);
        assert!(
            err.contains("thread exit, status 0x7 at pc"),
            "{mode}: the final line goes to standard error: {err}"
        );
    }
}

#[test]
fn lv2_event_queues_and_ports_answer_as_lv2_does() {
    let path = program("runtime/lv2_events.s");
    for mode in MODES {
        let output = run(
            mode,
            &[
                "--runtime",
                "lv2",
                "--event-queue",
                "5",
                "--event-queue",
                "7=1,2,3",
                "--event-port",
                "2",
                &path,
            ],
        );
        assert_eq!(
            stdout(&output),
            "try 5: 8001000a\nreceive 7: 0 1 2 3\nreceive 9: 80010002\nsend 2: 0\nsend 3: 80010016\n",
            "{mode}"
        );
        assert_eq!(output.status.code(), Some(3), "{mode}: group exit status 3");
        let err = stderr(&output);
        for notice in [
            "sent an event on port 2: data0 0x000012, data1 0x00000034",
            "port 3, which is not connected",
            "threw an event on port 2: data0 0x000056, data1 0x00000078",
            "group exit, status 0x3",
        ] {
            assert!(err.contains(notice), "{mode}: `{notice}` in {err}");
        }
    }
}

#[test]
fn a_receive_nothing_answers_blocks_the_thread() {
    let path = program("runtime/lv2_events.s");
    // Queue 7 bound but empty: `stop 0x110` waits for good.
    let output = run(
        "instruction",
        &[
            "--runtime",
            "lv2",
            "--event-queue",
            "5",
            "--event-queue",
            "7",
            &path,
        ],
    );
    assert_eq!(output.status.code(), Some(3));
    assert!(
        stderr(&output).contains("receives an event on SPU queue 7, and nothing sends one"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_libspe_program_uses_the_ppe_for_stdio_and_exits_with_its_status() {
    let path = program("runtime/libspe_stdio.s");
    for mode in MODES {
        let output = run(mode, &["--runtime", "libspe", &path]);
        assert_eq!(
            stdout(&output),
            "one 1 two 2 three 3|\nline\n!ok\n",
            "{mode}"
        );
        let err = stderr(&output);
        assert!(err.starts_with("err\nraw\n"), "{mode}: {err}");
        assert!(err.contains("exit, status 5 at pc"), "{mode}: {err}");
        assert_eq!(output.status.code(), Some(5), "{mode}");
    }
}

#[test]
fn an_unknown_library_call_stops_the_program_naming_it() {
    let path = program("runtime/libspe_unknown_call.s");
    for mode in MODES {
        let output = run(mode, &["--runtime", "libspe", &path]);
        assert_eq!(output.status.code(), Some(3), "{mode}");
        assert!(
            stderr(&output).contains("class 0x00 (C99) opcode 10 is not performed"),
            "{mode}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output), "");
    }
}

#[test]
fn a_raw_spu_reports_its_interrupts_and_status_register() {
    let path = program("runtime/raw_interrupts.s");
    for mode in MODES {
        let output = run(mode, &["--runtime", "raw", &path]);
        assert_eq!(stdout(&output), "raw 9\n", "{mode}");
        let err = stderr(&output);
        for notice in [
            "interrupt mailbox 0x00000000",
            "interrupt mailbox 0x000000ab",
            "status register 0x01020002",
        ] {
            assert!(err.contains(notice), "{mode}: `{notice}` in {err}");
        }
    }
}

/// `--spu-arg` fills `$3`..`$6` with 64-bit values in their preferred doublewords, and `--npc`
/// bit 0 enables interrupts (what `SPU_RdMachStat` bit 0 reads).
#[test]
fn thread_arguments_and_the_npc() {
    let source = temp_program(
        "runtime_start.s",
        "
        .text
_start:
        rdch    $7,$SPU_RdMachStat
        stop    0x3fff
",
    );
    for mode in MODES {
        let output = run(
            mode,
            &[
                "--runtime",
                "none",
                "--spu-arg",
                "1=0x1122334455667788",
                "--spu-arg",
                "4=9",
                "--npc",
                "0x1",
                "--regs",
                &source,
            ],
        );
        let text = stdout(&output);
        for expected in [
            "$3   11223344 55667788 00000000 00000000",
            "$6   00000000 00000009 00000000 00000000",
            "$7   00000001 00000000 00000000 00000000",
        ] {
            assert!(text.contains(expected), "{mode}: `{expected}` in {text}");
        }
    }
}

#[test]
fn runtime_options_need_their_runtime() {
    let path = program("runtime/lv2_print.s");
    let output = spusim(&["--event-queue", "1", &path]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("need a runtime"),
        "{}",
        stderr(&output)
    );
    let output = spusim(&["--runtime", "libspe", "--event-port", "1", &path]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("lv2's; the runtime is libspe"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_thread_group_shares_main_memory_through_atomics() {
    let path = program("runtime/lv2_group.s");
    for mode in MODES {
        let output = run(
            mode,
            &[
                "--runtime",
                "lv2",
                "--threads",
                "2",
                "--spu-arg",
                "1=0x10000",
                "--spu-arg",
                "1:2=1",
                &path,
            ],
        );
        assert_eq!(stdout(&output), "seen 1\n", "{mode}");
        assert_eq!(output.status.code(), Some(0), "{mode}: thread 0's status");
        let err = stderr(&output);
        assert!(
            err.contains("SPU0: thread exit, status 0x0"),
            "{mode}: {err}"
        );
        assert!(
            err.contains("SPU1: thread exit, status 0x1"),
            "{mode}: {err}"
        );
    }
}

#[test]
fn a_group_exit_ends_every_thread() {
    // lv2_events.s ends with sys_spu_thread_group_exit(3); a second thread runs the same.
    let path = program("runtime/lv2_events.s");
    let output = run(
        "instruction",
        &[
            "--runtime",
            "lv2",
            "--threads",
            "2",
            "--event-queue",
            "5",
            "--event-queue",
            "7=1,2,3",
            &path,
        ],
    );
    assert_eq!(output.status.code(), Some(3));
    let err = stderr(&output);
    assert_eq!(err.matches("group exit, status 0x3").count(), 3, "{err}");
}

#[test]
fn threads_need_lv2_and_one_spu_observers_refuse_them() {
    let path = program("runtime/lv2_print.s");
    let output = spusim(&["--runtime", "libspe", "--threads", "2", &path]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("lv2 thread group"),
        "{}",
        stderr(&output)
    );
    let output = spusim(&[
        "--runtime",
        "lv2",
        "--threads",
        "2",
        "--stack-distance",
        &path,
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("leave them out"),
        "{}",
        stderr(&output)
    );
}
