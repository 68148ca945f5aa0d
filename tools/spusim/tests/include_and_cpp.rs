//! The file-level part of GNU as that spusim does: `.include` (inlined where it stands, the
//! name relative to the including file) and `.S` files through the C preprocessor, as gcc
//! runs them. Expected register values follow from GNU as's semantics of the directives
//! (gas manual: `.include` "provides a way to include supporting files at specified points
//! in your source program"; `.set` assigns a symbol; cpp's `#define` substitutes text), and
//! `il` loads its sign-extended 16-bit immediate into every word slot (SPU ISA, `il`).

mod common;

use std::path::{Path, PathBuf};

use common::{spusim, stderr, stdout};

/// A fresh folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("include_and_cpp")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).expect("create the test folder");
    dir
}

fn write(path: &Path, text: &str) -> String {
    std::fs::write(path, text).expect("write a test file");
    path.display().to_string()
}

/// `$3` as `--regs` prints it: the register, then its four word slots in hex.
fn reg3(words: u32) -> String {
    format!("$3   {words:08x} {words:08x} {words:08x} {words:08x}\n")
}

#[test]
fn included_files_are_inlined_relative_to_the_including_file() {
    let dir = folder("nested");
    // main.s -> sub/defs.inc -> sub/more.inc ("more.inc" is found next to defs.inc, not
    // next to main.s).
    write(&dir.join("sub/more.inc"), "        .set BASE, 40\n");
    write(
        &dir.join("sub/defs.inc"),
        "        .include \"more.inc\"\n        .set VALUE, BASE + 2\n",
    );
    let main = write(
        &dir.join("main.s"),
        "        .include \"sub/defs.inc\"\n        il $3, VALUE\n        stop\n",
    );
    let output = spusim(&["--mode", "instruction", "--regs", &main]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains(&reg3(42)), "{}", stdout(&output));
}

#[test]
fn an_error_in_an_included_file_names_that_file_and_line() {
    let dir = folder("error");
    let inc = write(
        &dir.join("sub/bad.inc"),
        "        nop\n        ai $3,$3,1000\n",
    );
    let main = write(
        &dir.join("main.s"),
        "        il $3,1\n        .include \"sub/bad.inc\"\n        stop\n",
    );
    let output = spusim(&[&main]);
    assert_eq!(output.status.code(), Some(2));
    // `ai`'s I10 field is signed 10-bit: -512..=511 (SPU ISA, "ai").
    assert_eq!(
        stderr(&output),
        format!("{inc}:2:18: operand 3: value 1000 out of range, expected -512..=511\n")
    );
}

#[test]
fn a_file_that_includes_itself_stops_at_the_depth_limit() {
    let dir = folder("recursive");
    let main = write(
        &dir.join("self.s"),
        "        .include \"self.s\"\n        stop\n",
    );
    let output = spusim(&[&main]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains("self.s:1:9: .include \"self.s\" nests more than 16 files deep"),
        "{text}"
    );
}

#[test]
fn a_missing_include_names_the_line_and_the_file() {
    let dir = folder("missing");
    let main = write(
        &dir.join("main.s"),
        "        nop\n        .include \"nowhere.inc\"\n",
    );
    let output = spusim(&[&main]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.starts_with(&format!("{main}:2:9: .include \"nowhere.inc\": ")),
        "{text}"
    );
}

#[test]
fn a_missing_include_in_a_false_conditional_is_never_opened() {
    // gas reads `.include` only where it assembles: inside a false `.if` nothing is opened,
    // and an include guard stops a header from being read twice.
    let dir = folder("guarded");
    write(
        &dir.join("sub/guard.inc"),
        "        .ifndef GUARD
        .set GUARD, 1
        .set VALUE, 7
        \
         .include \"guard.inc\"
        .endif
",
    );
    let main = write(
        &dir.join("main.s"),
        "        .if 0
        .include \"nowhere.inc\"
        .endif
        \
         .include \"sub/guard.inc\"
        .include \"sub/guard.inc\"
        \
         il $3, VALUE
        stop
",
    );
    let output = spusim(&["--mode", "instruction", "--regs", &main]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains(&reg3(7)), "{}", stdout(&output));
}

#[test]
fn incbin_places_the_file_bytes_with_skip_and_count() {
    // gas manual: `.incbin "file"[,skip[,count]]` includes the file verbatim at the current
    // location, skipping `skip` bytes and taking at most `count`.
    let dir = folder("incbin");
    std::fs::write(
        dir.join("sub/table.bin"),
        [0x11u8, 0x22, 0x33, 0x44, 0x55, 0x66],
    )
    .expect("write the binary file");
    let main = write(
        &dir.join("main.s"),
        "_start: lqr $3, whole
        lqr $4, part
        stop
        .data
        \
         .balign 16
whole:  .incbin \"sub/table.bin\"
        .balign 16
part:   \
         .incbin \"sub/table.bin\", 1, 3
        .balign 16
",
    );
    let output = spusim(&["--mode", "instruction", "--regs", &main]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let regs = stdout(&output);
    // The quadword at `whole`: the six bytes, then the zeros `.balign` pads with.
    assert!(
        regs.contains("$3   11223344 55660000 00000000 00000000\n"),
        "{regs}"
    );
    // At `part`: bytes 1..4 of the file.
    assert!(
        regs.contains("$4   22334400 00000000 00000000 00000000\n"),
        "{regs}"
    );
}

#[test]
fn a_missing_incbin_file_names_the_line_and_the_file() {
    let dir = folder("incbin_missing");
    let main = write(
        &dir.join("main.s"),
        "        stop
        .data
        .incbin \"nowhere.bin\"
",
    );
    let output = spusim(&[&main]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.starts_with(&format!("{main}:3:9: .incbin \"nowhere.bin\": ")),
        "{text}"
    );
}

fn preprocessor_on_path() -> bool {
    ["cpp", "clang", "gcc"].iter().any(|program| {
        std::process::Command::new(program)
            .arg("--version")
            .output()
            .is_ok()
    })
}

#[test]
fn a_dot_capital_s_file_goes_through_the_c_preprocessor() {
    let dir = folder("cpp");
    write(
        &dir.join("sub/limits.h"),
        "#define COUNT 5\n#define TWICE(x) ((x) * 2)\n",
    );
    let main = write(
        &dir.join("kernel.S"),
        "#include \"sub/limits.h\"\n        il $3, TWICE(COUNT) + 1\n        stop\n",
    );
    let output = spusim(&["--mode", "instruction", "--regs", &main]);
    if preprocessor_on_path() {
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(stdout(&output).contains(&reg3(11)), "{}", stdout(&output));
    } else {
        assert_eq!(output.status.code(), Some(2));
        assert!(stderr(&output).contains("none of cpp, clang, gcc is on PATH"));
    }
}

#[test]
fn errors_in_a_preprocessed_file_point_at_its_own_lines() {
    if !preprocessor_on_path() {
        // Without a preprocessor the .S path ends before assembling; the test above covers it.
        return;
    }
    let dir = folder("cpp_error");
    write(
        &dir.join("sub/three.h"),
        "#define A 1\n#define B 2\n#define C 3\n",
    );
    let main = write(
        &dir.join("bad.S"),
        "#include \"sub/three.h\"\n        il $3, A\n        bogus $3\n",
    );
    let output = spusim(&[&main]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(text.starts_with(&format!("{main}:3:")), "{text}");
    assert!(text.contains("bogus"), "{text}");
}

#[test]
fn without_a_preprocessor_a_dot_capital_s_file_gets_one_line_saying_how() {
    let dir = folder("no_cpp");
    let main = write(&dir.join("kernel.S"), "        stop\n");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_spusim"))
        .arg(&main)
        .env("PATH", "")
        .output()
        .expect("spusim runs");
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains("none of cpp, clang, gcc is on PATH")
            && text.contains("cpp -x assembler-with-cpp"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1, "{text}");
}
