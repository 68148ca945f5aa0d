//! `spusim --check-dma` on the race kernels of `spu/programs/races/` and on the demo's MFC
//! kernels: one `DMA race` line on standard error per race, naming the rule, the cycle, the PC
//! and its symbol, the command, tag, LS and EA ranges and the earlier command; exit status 4
//! when there is one; in both modes, for assembly sources and ELF files, and across the SPUs
//! of a thread group. The expected PCs are the kernels' labels, looked up by assembling them
//! here; the ranges are the kernels' own (their comments say which).

mod common;

use std::path::PathBuf;

use common::{program, spusim, stderr, stdout};
use pmprobe::spu::isa::asm::assemble;

const MODES: [&str; 2] = ["instruction", "pipeline"];

/// The address of `label` in race kernel `name` (its `dma.inc` inlined, as spusim includes it).
fn label(name: &str, label: &str) -> u32 {
    let read = |file: &str| std::fs::read_to_string(program(&format!("races/{file}"))).unwrap();
    let source = read(name).replace(".include \"dma.inc\"", &read("dma.inc"));
    let mut image = vec![0u8; 256 * 1024];
    let program = assemble::<512>(&source, &mut image).unwrap();
    program.symbol(label).unwrap()
}

/// The `DMA race` lines of a run's standard error.
fn race_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.contains("DMA race")).collect()
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let output = spusim(args);
    (output.status.code(), stdout(&output), stderr(&output))
}

#[test]
fn a_racy_kernel_gets_one_line_naming_everything_and_exit_status_4() {
    let kernel = program("races/load_get.s");
    let load = label("load_get.s", "racy_load");
    let get = label("load_get.s", "get_block") + 0x30;
    for mode in MODES {
        let (status, out, err) = run(&["--mode", mode, "--check-dma", "--spu-arg", "1=1", &kernel]);
        assert_eq!(status, Some(4), "{mode}: {err}");
        assert!(out.contains("stop 0x2000 at pc"), "{out}");
        let lines = race_lines(&err);
        assert_eq!(lines.len(), 1, "{err}");
        let line = lines[0];
        assert!(
            line.starts_with("spusim: DMA race (load from LS a pending get writes): SPU0 cycle ")
        );
        for part in [
            format!("pc {load:#07x} <racy_load>: load of LS 0x04010..0x04020"),
            "races with get tag 3 LS 0x04000..0x04100 EA 0x010000..0x010100".to_string(),
            format!("pc {get:#07x} <get_block+0x30>"),
        ] {
            assert!(line.contains(&part), "{mode}: `{part}` in {line}");
        }
        assert!(
            err.contains("spusim: DMA check: 1 commands, 1 races"),
            "{err}"
        );
    }
    // Instruction mode: one cycle per instruction, the load being the 17th (see the library's
    // test of the same kernel).
    let (_, _, err) = run(&[
        "--mode",
        "instruction",
        "--check-dma",
        "--spu-arg",
        "1=1",
        &kernel,
    ]);
    assert!(err.contains("SPU0 cycle 17 pc"), "{err}");
}

#[test]
fn a_race_free_kernel_prints_only_the_summary_and_exits_as_it_stops() {
    let kernel = program("races/load_get.s");
    for mode in MODES {
        let (status, _, err) = run(&["--mode", mode, "--check-dma", &kernel]);
        assert_eq!(status, Some(0), "{mode}: {err}");
        assert!(race_lines(&err).is_empty(), "{err}");
        assert!(
            err.contains("spusim: DMA check: 1 commands, 0 races"),
            "{err}"
        );
    }
    // Without --check-dma the racy variant runs as always.
    let (status, _, err) = run(&["--spu-arg", "1=1", &kernel]);
    assert_eq!(status, Some(0));
    assert!(!err.contains("DMA"), "{err}");
}

#[test]
fn the_demo_kernels_double_buffering_and_work_queue_are_race_free() {
    let stream = program("demo_stream.s");
    for buffers in ["1", "2"] {
        for mode in MODES {
            let (status, out, err) = run(&[
                "--mode",
                mode,
                "--check-dma",
                "--ea-size",
                "0x210000",
                "--in-mbox",
                buffers,
                "--in-mbox",
                "0",
                "--in-mbox",
                "0x100000",
                "--in-mbox",
                "8",
                &stream,
            ]);
            assert_eq!(status, Some(0), "{buffers} buffers, {mode}: {err}");
            assert!(race_lines(&err).is_empty(), "{err}");
            // 8 gets and 8 puts; one buffer: the first get, then a getf after each put but the
            // last.
            assert!(
                err.contains("DMA check: 16 commands, 0 races"),
                "{err}{out}"
            );
        }
    }
    let queue = program("demo_workqueue.s");
    let (status, _, err) = run(&[
        "--check-dma",
        "--in-mbox",
        "0",
        "--in-mbox",
        "16",
        "--in-mbox",
        "0x200000",
        "--in-mbox",
        "0x200080",
        "--ea-size",
        "0x210000",
        &queue,
    ]);
    assert_eq!(status, Some(0), "{err}");
    assert!(race_lines(&err).is_empty(), "{err}");
}

#[test]
fn across_the_spus_of_a_group_a_put_and_an_unordered_get_race() {
    let kernel = program("races/across_spus.s");
    let get = label("across_spus.s", "get_data") + 0x30;
    let put = label("across_spus.s", "put_data") + 0x30;
    for mode in MODES {
        for (variant, races) in [("0", 0), ("1", 1), ("2", 1), ("3", 0), ("4", 0)] {
            let (status, _, err) = run(&[
                "--mode",
                mode,
                "--check-dma",
                "--threads",
                "2",
                "--spu-arg",
                &format!("1={variant}"),
                "--spu-arg",
                "1:2=1",
                &kernel,
            ]);
            let lines = race_lines(&err);
            assert_eq!(lines.len(), races, "variant {variant}, {mode}: {err}");
            assert_eq!(status, Some(if races > 0 { 4 } else { 0 }), "{err}");
            if let Some(line) = lines.first() {
                assert!(line.contains("(unordered commands of two SPUs on one EA range): SPU1"));
                assert!(line.contains(&format!("pc {get:#07x} <get_data+0x30>: get tag 1")));
                assert!(line.contains("issued by SPU0 at cycle"));
                assert!(
                    line.contains(&format!("pc {put:#07x} <put_data+0x30>")),
                    "{line}"
                );
            }
        }
    }
}

#[test]
fn an_elf_file_names_the_pcs_by_its_symbol_table() {
    let elf = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("check_dma_list.elf");
    let elf = elf.display().to_string();
    let kernel = program("races/list.s");
    let (status, _, err) = run(&["--elf", &elf, "--check-dma", &kernel]);
    assert_eq!(status, Some(0), "{err}");
    let rewrite = label("list.s", "racy_rewrite");
    let (status, _, err) = run(&["--check-dma", "--spu-arg", "1=4", &elf]);
    assert_eq!(status, Some(4), "{err}");
    let lines = race_lines(&err);
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].contains(&format!("pc {rewrite:#07x} <racy_rewrite>: store to LS")));
    assert!(lines[1].contains(&format!("pc {:#07x} <racy_rewrite+0x4>", rewrite + 4)));
    assert!(
        lines[0].contains("races with getl tag 2 LS"),
        "{}",
        lines[0]
    );
}

#[test]
fn a_run_error_keeps_its_own_exit_status() {
    // The racy overlay in pipeline mode runs `stop 0` from the zeroed buffer: a stop, so 4;
    // with a cycle limit too short to get there, the run's own error (3) stays.
    let kernel = program("races/overlay.s");
    let (status, _, err) = run(&["--check-dma", "--spu-arg", "1=1", &kernel]);
    assert_eq!(status, Some(4), "{err}");
    assert!(
        race_lines(&err)[0].contains("pc 0x08000: fetch of LS 0x08000..0x08004"),
        "{err}"
    );
    let (status, _, err) = run(&[
        "--check-dma",
        "--spu-arg",
        "1=1",
        "--max-cycles",
        "100",
        &kernel,
    ]);
    assert_eq!(status, Some(3), "{err}");
}
