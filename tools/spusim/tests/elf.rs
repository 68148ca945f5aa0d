//! spusim and SPU ELF files: `--elf OUT` writes one that binutils' `readelf` reads without
//! complaint, `spusim prog.elf` runs it (detected by its magic) exactly as the source runs,
//! with its `.symtab` naming addresses in the listing, and bad ELF files are refused by name.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{program, spusim, stderr, stdout};

fn scratch(name: &str) -> String {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(name)
        .display()
        .to_string()
}

/// Assembles `source_name` and writes it as `elf_name`; returns the ELF file's path.
fn write_elf(source_name: &str, elf_name: &str) -> String {
    let elf = scratch(elf_name);
    let output = spusim(&[
        "--mode",
        "instruction",
        "--elf",
        &elf,
        &program(source_name),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    elf
}

/// readelf's output and its complaints, but the one it makes of every file spu-ld 2.40 writes
/// too (also exiting with 1 for it): spu-ld aligns its `.note.spu_name` to 16 bytes, where
/// readelf expects 4 or 8.
fn readelf(args: &[&str]) -> Option<(String, String)> {
    let output = Command::new("readelf").args(args).output().ok()?;
    const SPU_LD_NOTE: &str = "Corrupt note: alignment 16, expecting 4 or 8";
    let keep = |text: String| {
        text.lines()
            .filter(|line| !line.contains(SPU_LD_NOTE))
            .map(|line| format!("{line}\n"))
            .collect::<String>()
    };
    let (out, errors) = (keep(stdout(&output)), keep(stderr(&output)));
    let only_the_note = output.status.code() == Some(1) && errors.is_empty();
    assert!(
        output.status.success() || only_the_note,
        "readelf {args:?} failed: {errors}"
    );
    Some((out, errors))
}

#[test]
fn readelf_reads_the_written_file_without_complaint() {
    let elf = write_elf("dot.s", "dot.elf");
    let Some((all, errors)) = readelf(&["-a", &elf]) else {
        eprintln!("readelf is not on PATH: the file was not checked by binutils");
        return;
    };
    assert!(errors.is_empty(), "readelf -a complained: {errors}");
    assert!(
        !all.lines()
            .any(|l| l.contains("Warning") || l.contains("Error")),
        "{all}"
    );
    for expected in [
        "Class:                             ELF32",
        "Data:                              2's complement, big endian",
        "Type:                              EXEC (Executable file)",
        "Machine:                           SPU",
        "Entry point address:               0x0",
    ] {
        assert!(all.contains(expected), "missing `{expected}` in\n{all}");
    }
    // dot.s: six instructions before `dot` (0x18); .data after the 0x4c bytes of text, at
    // spu-ld's ALIGN(0x80) (vec_a), vec_b 64 bytes later. The rows are those of the .symtab
    // spu-ld 2.40 wrote linking `spu-as dot.s` (`readelf -W -s`): section symbols, the file,
    // the local labels in the order gas made them, then ld's globals: `_start` undefined (no
    // global one: ENTRY(_start) names it), the script's `__bss_start`, `_edata`, `_end`.
    let (symbols, errors) = readelf(&["-W", "-s", &elf]).unwrap();
    assert!(errors.is_empty(), "{errors}");
    let rows: Vec<(String, String)> = symbols
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields.len() == 8 && fields[0].trim_end_matches(':').parse::<u32>().is_ok())
                .then(|| (fields[1].to_string(), fields[7].to_string()))
        })
        .collect();
    let expected = [
        ("00000000", ".text"),
        ("00000080", ".data"),
        ("00000000", ".note.spu_name"),
        ("00000000", "dot.o"),
        ("00000000", "_start"),
        ("00000080", "vec_a"),
        ("000000c0", "vec_b"),
        ("00000018", "dot"),
        ("00000000", "_start"),
        ("00000100", "__bss_start"),
        ("00000100", "_edata"),
        ("00000100", "_end"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, n)| (a.to_string(), n.to_string()))
        .collect();
    assert_eq!(rows, expected, "{symbols}");
}

#[test]
fn an_elf_file_runs_and_lists_as_its_source_does() {
    for name in ["loop.s", "call.s", "memcpy.s", "dot.s", "hinted_loop.s"] {
        let elf = write_elf(name, &format!("{name}.elf"));
        for mode in ["instruction", "pipeline"] {
            let source = program(name);
            let from_source = spusim(&["--mode", mode, "--disasm", "--regs", &source]);
            let from_elf = spusim(&["--mode", mode, "--disasm", "--regs", &elf]);
            assert_eq!(
                from_elf.status.code(),
                Some(0),
                "{name}: {}",
                stderr(&from_elf)
            );
            assert_eq!(
                stdout(&from_elf),
                stdout(&from_source),
                "{name} in {mode} mode"
            );
        }
    }
    let elf = scratch("call.s.elf");
    let text = stdout(&spusim(&["--disasm", &elf]));
    // call.s's `brsl $0,square`: the branch target is named by the ELF symbol.
    assert!(
        text.contains("square:\n") && text.contains("brsl\t$0,square"),
        "{text}"
    );
}

#[test]
fn bad_elf_files_are_refused_by_name() {
    let elf = write_elf("loop.s", "loop-bad.elf");
    let bytes = std::fs::read(&elf).unwrap();
    let cases: [(&str, Vec<u8>, &str); 3] = [
        (
            "truncated.elf",
            bytes[..40].to_vec(),
            "truncated: the file header needs the bytes up to offset 52, the file has 40",
        ),
        (
            "x86.elf",
            {
                let mut b = bytes.clone();
                b[18..20].copy_from_slice(&62u16.to_be_bytes());
                b
            },
            "not an SPU program: e_machine is 62",
        ),
        (
            "elf64.elf",
            {
                let mut b = bytes.clone();
                b[4] = 2;
                b
            },
            "not a 32-bit ELF file: EI_CLASS is 2",
        ),
    ];
    for (name, contents, message) in cases {
        let path = scratch(name);
        std::fs::write(&path, contents).unwrap();
        let output = spusim(&[&path]);
        assert_eq!(output.status.code(), Some(2), "{name}");
        let text = stderr(&output);
        assert!(
            text.starts_with(&format!("{path}: ")) && text.contains(message),
            "{name}: {text}"
        );
        assert!(stdout(&output).is_empty(), "{name}: nothing ran");
    }
}

#[test]
fn elf_output_is_refused_for_an_elf_input_and_for_the_program_itself() {
    let elf = write_elf("loop.s", "loop-again.elf");
    let out = scratch("loop-again-out.elf");
    let output = spusim(&["--elf", &out, &elf]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("the program is an ELF file already"));
    assert!(!PathBuf::from(&out).exists());

    let source = scratch("self.s");
    std::fs::write(&source, "stop\n").unwrap();
    let output = spusim(&["--elf", &source, &source]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--elf"), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(&source).unwrap(), "stop\n");
}

#[test]
fn zero_initialised_data_is_a_nobits_section_and_values_are_absolute() {
    // The layout spu-ld's default script gives (checked with spu-ld 2.40): code from 0 (8
    // bytes), .data at ALIGN(0x80) (one word), .bss after it at its alignment 16 (0x90: `b`,
    // 32 bytes, then SPU gas's `.bss c, 16, 16` after them at 0xb0) up to 0xc0. gABI: a
    // NOBITS section has no file bytes; the data segment's memory size (0xc0 - 0x80) covers
    // it. `.set` values are SHN_ABS, as gas writes them.
    let source = scratch("bss_and_values.s");
    std::fs::write(
        &source,
        "_start: il $3, K\n stop\n.data\nd: .word 7\n.section .bss\nb: .space 32\n.bss c, 16, 16\n.set K, 5\n",
    )
    .unwrap();
    let elf = scratch("bss_and_values.elf");
    let output = spusim(&["--mode", "instruction", "--elf", &elf, &source]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let Some((all, errors)) = readelf(&["-W", "-S", "-l", "-s", &elf]) else {
        eprintln!("readelf is not on PATH: the file was not checked by binutils");
        return;
    };
    assert!(errors.is_empty(), "readelf complained: {errors}");
    let row = |starts: &str| -> Vec<String> {
        let line = all
            .lines()
            .find(|l| l.trim_start().starts_with(starts) || l.contains(starts))
            .unwrap_or_else(|| panic!("no `{starts}` line in\n{all}"));
        line.split_whitespace().map(str::to_string).collect()
    };
    // [Nr] Name Type Addr Off Size ...: `[ 3]` splits into two fields.
    let bss = row(" .bss ");
    let at = bss.iter().position(|f| f == ".bss").unwrap();
    assert_eq!(
        (&bss[at + 1], &bss[at + 2], &bss[at + 4]),
        (
            &"NOBITS".to_string(),
            &"00000090".to_string(),
            &"000030".to_string()
        ),
        "{all}"
    );
    let segments: Vec<Vec<String>> = all
        .lines()
        .filter(|l| l.trim_start().starts_with("LOAD"))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    assert_eq!(segments.len(), 2, "{all}");
    // LOAD Offset VirtAddr PhysAddr FileSiz MemSiz Flg Align; spu-ld rounds both sizes up to
    // 16 bytes (4 bytes of .data: 0x10).
    assert_eq!(
        (
            &segments[1][2][..],
            &segments[1][4][..],
            &segments[1][5][..]
        ),
        ("0x00000080", "0x00010", "0x00040"),
        "{all}"
    );
    // Num: Value Size Type Bind Vis Ndx Name; sections 1 .text, 2 .data, 3 .bss.
    let symbol = |name: &str| -> (String, String) {
        let fields = all
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|f| f.len() == 8 && f[7] == name)
            .unwrap_or_else(|| panic!("no symbol {name} in\n{all}"));
        (fields[1].to_string(), fields[6].to_string())
    };
    assert_eq!(symbol("_start"), ("00000000".into(), "1".into()));
    assert_eq!(symbol("d"), ("00000080".into(), "2".into()));
    assert_eq!(symbol("b"), ("00000090".into(), "3".into()));
    assert_eq!(symbol("c"), ("000000b0".into(), "3".into()));
    assert_eq!(symbol("K"), ("00000005".into(), "ABS".into()));
}
