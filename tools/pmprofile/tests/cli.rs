//! The pmprofile command end to end: a sample file of known shares at real firmware functions,
//! the table, the folded file and the SVG; bad input gives a message and exit status.
mod common;

use std::process::Command;

use pmprobe::sampling::{Sample, WalkEnd};

fn pmprofile() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pmprofile"))
}

#[test]
fn a_known_profile_gives_its_shares_folded_stacks_and_a_flamegraph() {
    let elf_path = common::firmware_elf();
    let elf = std::fs::read(&elf_path).unwrap();
    let functions = common::three_functions(&elf);
    let (hot, warm, caller) = (&functions[0], &functions[1], &functions[2]);
    // 70 samples at hot's entry and 30 at warm's, all called from inside `caller` (the return
    // address 8 bytes into it).
    let mut samples = Vec::new();
    for i in 0..100 {
        let pc = if i < 70 { hot.0 } else { warm.0 };
        samples.push(Sample::with_frames(
            pc,
            i % 4,
            &[caller.0 + 8],
            WalkEnd::Complete,
        ));
    }
    let dir = std::env::temp_dir().join(format!("pmprofile-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let samples_path = dir.join("profile.pmps");
    std::fs::write(&samples_path, common::sample_file(&samples, 10_000)).unwrap();
    let (folded, svg) = (dir.join("out.folded"), dir.join("out.svg"));
    let out = pmprofile()
        .arg("--folded")
        .arg(&folded)
        .arg("--svg")
        .arg(&svg)
        .arg(&elf_path)
        .arg(&samples_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.starts_with("# 100 samples of INST_RETIRED"));
    let row = |name: &str| {
        stdout
            .lines()
            .find(|l| l.ends_with(&format!("  {name}")))
            .unwrap_or_else(|| panic!("no row for {name}"))
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
    };
    // The entry instruction belongs to the function itself (no inlined frame starts there).
    assert_eq!(row(&hot.1), ["70.00%", "70.00%", "70"]);
    assert_eq!(row(&warm.1), ["30.00%", "30.00%", "30"]);
    assert_eq!(row(&caller.1)[1..], ["100.00%", "100"]);
    assert!(stdout.contains("skid: min 0, mean 1, max 3 events"));

    let folded_text = std::fs::read_to_string(&folded).unwrap();
    let mut counted = 0;
    for line in folded_text.lines() {
        let (stack, count) = line.rsplit_once(' ').unwrap();
        let count: u64 = count.parse().unwrap();
        counted += count;
        let frames: Vec<&str> = stack.split(';').collect();
        assert!(frames.contains(&caller.1.as_str()), "{line}");
        let leaf = *frames.last().unwrap();
        assert!(
            (leaf == hot.1 && count == 70) || (leaf == warm.1 && count == 30),
            "{line}"
        );
    }
    assert_eq!(counted, 100);
    let svg_text = std::fs::read_to_string(&svg).unwrap();
    assert!(svg_text.contains("<svg") && svg_text.contains("samples"));

    // The firmware's own figures, checked against the stacks: exit 0 when they agree, 4 not.
    let expect = dir.join("shares");
    for (percent, status, verdict) in [("70", 0, "ok"), ("50", 4, "FAILED")] {
        std::fs::write(
            &expect,
            format!("hot {} {percent} 1.0\ncaller {} 100 0\n", hot.1, caller.1),
        )
        .unwrap();
        let out = pmprofile()
            .arg("--expect")
            .arg(&expect)
            .arg(&elf_path)
            .arg(&samples_path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(status), "{stdout}");
        assert!(
            stdout.contains(&format!(
                "check share_hot ... {verdict} (70.00% of samples (70)"
            )),
            "{stdout}"
        );
        assert!(
            stdout.contains("check share_caller ... ok (100.00%"),
            "{stdout}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_is_named() {
    let dir = std::env::temp_dir().join(format!("pmprofile-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let not_samples = dir.join("not.pmps");
    std::fs::write(&not_samples, b"hello world, not samples").unwrap();
    let missing = dir.join("missing.elf");
    let cases: Vec<(Vec<String>, i32, &str)> = vec![
        (vec![], 2, "expected FIRMWARE.elf and SAMPLES.pmps"),
        (
            vec!["--top".into(), "x".into(), "a".into(), "b".into()],
            2,
            "--top needs a number",
        ),
        (vec!["--bogus".into()], 2, "unknown option `--bogus`"),
        (
            vec![
                missing.display().to_string(),
                not_samples.display().to_string(),
            ],
            3,
            "cannot read",
        ),
        (
            vec![
                not_samples.display().to_string(),
                not_samples.display().to_string(),
            ],
            3,
            "not a readable ELF file",
        ),
    ];
    for (args, status, message) in cases {
        let out = pmprofile().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    let help = pmprofile().arg("--help").output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("usage: pmprofile"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_corrupt_sample_file_is_named() {
    let elf_path = common::firmware_elf();
    let dir = std::env::temp_dir().join(format!("pmprofile-corrupt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = common::sample_file(&[Sample::new(0x4008_0000, 0)], 100);
    bytes.truncate(bytes.len() - 1);
    let path = dir.join("cut.pmps");
    std::fs::write(&path, &bytes).unwrap();
    let out = pmprofile().arg(&elf_path).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sample file truncated"));
    std::fs::remove_dir_all(&dir).ok();
}
