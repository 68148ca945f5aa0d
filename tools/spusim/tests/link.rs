//! spusim with several sources, `--defsym` and `--objdump`: `--elf OUT` writes the file
//! spu-ld 2.40 wrote for the same sources, and `--objdump` prints what spu-objdump -d 2.40
//! printed for it (tests/data/spu_link, made by tools/oracles/spu-link-fixtures.sh).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{stderr, stdout};

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/spu_link")
}

/// A scratch folder of its own for `name`, where spusim runs.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("link")
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// spusim run in `dir` (ld and objdump record file names as given, relative here).
fn spusim_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spusim"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("spusim runs")
}

/// The cases of cases.txt: name, and spusim's arguments (`--defsym`s, then the sources).
fn cases() -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(data().join("cases.txt")).unwrap();
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (name, rest) = line.split_once(':').unwrap();
            let mut words = rest.split_whitespace().peekable();
            let (mut sources, mut options) = (Vec::new(), Vec::new());
            while let Some(word) = words.next() {
                if word.starts_with("--") {
                    options.push(word.to_string());
                    options.push(words.next().unwrap().to_string());
                } else {
                    sources.push(data().join(word).display().to_string());
                }
            }
            options.extend(sources);
            (name.to_string(), options)
        })
        .collect()
}

#[test]
fn elf_output_is_the_file_spu_ld_wrote() {
    for (name, arguments) in cases() {
        let dir = scratch(&name);
        let mut args = vec![
            "--mode",
            "instruction",
            "--max-cycles",
            "10000",
            "--elf",
            &name,
        ];
        args.extend(arguments.iter().map(String::as_str));
        let output = spusim_in(&dir, &args);
        let written = std::fs::read(dir.join(&name))
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", stderr(&output)));
        let expected = std::fs::read(data().join(format!("{name}.elf"))).unwrap();
        assert!(written == expected, "{name}: not the file spu-ld wrote");
    }
}

#[test]
fn objdump_prints_what_spu_objdump_printed() {
    for (name, arguments) in cases() {
        let expected = std::fs::read_to_string(data().join(format!("{name}.objdump"))).unwrap();
        // Of the ELF file spu-ld wrote, under the name objdump was given.
        let dir = scratch(&format!("{name}-objdump"));
        std::fs::copy(data().join(format!("{name}.elf")), dir.join(&name)).unwrap();
        let output = spusim_in(&dir, &["--objdump", &name]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        assert_eq!(stdout(&output), expected, "{name}");
        // Of the sources, linked into the file `--elf` names (and nothing runs).
        let mut args = vec!["--objdump", "--elf", &name];
        args.extend(arguments.iter().map(String::as_str));
        let output = spusim_in(&scratch(&format!("{name}-sources")), &args);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        assert_eq!(stdout(&output), expected, "{name} from its sources");
    }
}

#[test]
fn a_linked_program_runs() {
    // crt0.s calls main (main.s), which has helper (util.s) add up the table's quadword
    // (1, 2, 3, 4) four times: lqd loads the aligned quadword whatever the word address.
    let mut args = vec!["--mode", "instruction", "--regs"];
    let sources: Vec<String> = ["crt0.s", "main.s", "util.s"]
        .iter()
        .map(|s| data().join(s).display().to_string())
        .collect();
    args.extend(sources.iter().map(String::as_str));
    let output = spusim_in(&scratch("run"), &args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("\n$3   00000004 00000008 0000000c 00000010\n"),
        "{text}"
    );
    assert!(text.contains("stop 0x2000 at pc 0x00020"), "{text}");
}

#[test]
fn a_start_that_is_not_global_is_not_the_entry() {
    // spu-ld: "warning: cannot find entry symbol _start; defaulting to 00000000".
    let dir = scratch("local-start");
    std::fs::write(dir.join("p.s"), "stop 1\n_start: stop 2\n").unwrap();
    let output = spusim_in(&dir, &["--mode", "instruction", "p.s"]);
    assert!(
        stdout(&output).contains("stop 0x0001 at pc 0x00000"),
        "{}",
        stdout(&output)
    );
    assert!(
        stderr(&output).contains("`_start` (at 0x4) is not global: the program starts at 0x0"),
        "{}",
        stderr(&output)
    );
    // A global `_start` past the last instruction has no instruction to start at.
    std::fs::write(
        dir.join("q.s"),
        ".global _start\nnop\nnop\nnop\nnop\n_start:\n",
    )
    .unwrap();
    let output = spusim_in(&dir, &["q.s"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("q.s: the entry point 0x10 is no word inside"),
        "{}",
        stderr(&output)
    );
}
