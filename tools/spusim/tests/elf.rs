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

fn readelf(args: &[&str]) -> Option<(String, String)> {
    let output = Command::new("readelf").args(args).output().ok()?;
    assert!(output.status.success(), "readelf {args:?} failed");
    Some((stdout(&output), stderr(&output)))
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
    // the next 16-byte boundary 0x50 (vec_a), vec_b 64 bytes later.
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
        ("00000000", "_start"),
        ("00000018", "dot"),
        ("00000050", "vec_a"),
        ("00000090", "vec_b"),
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
