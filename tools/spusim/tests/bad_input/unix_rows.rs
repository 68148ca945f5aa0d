//! The bad-input rows that need Unix: symbolic and hard links, non-UTF-8 names, devices and
//! named pipes. Part of `bad_input.rs`'s one table.

use std::io::Write;

use super::{Case, EXIT_USAGE, OsString, Path, case, fifo};

/// The Unix rows; `dir` holds their files, `good` is a program that runs cleanly.
pub fn unix_rows(dir: &Path, good: &str) -> Vec<Case> {
    use std::os::unix::ffi::OsStringExt;

    let link = dir.join("link-to-good.s");
    std::os::unix::fs::symlink(good, &link).expect("symlink");
    let link = link.display().to_string();
    let hard = dir.join("hard-link-to-good.s");
    std::fs::hard_link(good, &hard).expect("hard link");
    let hard = hard.display().to_string();

    let mut not_utf8_name = dir.join("").into_os_string().into_vec();
    not_utf8_name.extend_from_slice(b"missing-\xff\xfe.s");
    let not_utf8_name = OsString::from_vec(not_utf8_name);
    let shown_name = format!("{}missing-\u{fffd}\u{fffd}.s", dir.join("").display());

    let endless = fifo(dir, "endless.fifo");
    let endless_writer = endless.clone();
    let silent = fifo(dir, "silent.fifo");
    let silent_writer = silent.clone();
    let unopened = fifo(dir, "unopened.fifo");

    vec![
        case(
            "--din is a symbolic link to the program",
            &["--din", &link, good],
            EXIT_USAGE,
            &[
                &format!("--din `{link}` is the program file `{good}`"),
                "refusing to overwrite an input",
            ],
        )
        .keeping(good),
        case(
            "--din is a hard link to the program",
            &["--din", &hard, good],
            EXIT_USAGE,
            &[&format!("--din `{hard}` is the program file `{good}`")],
        )
        .keeping(good),
        Case {
            args: vec![not_utf8_name],
            ..case(
                "missing file with a non-UTF-8 name",
                &[],
                EXIT_USAGE,
                &["cannot read", &shown_name, "No such file"],
            )
        },
        Case {
            args: vec![
                OsString::from("--mode"),
                OsString::from_vec(b"fa\xffst".to_vec()),
                good.into(),
            ],
            ..case(
                "non-UTF-8 --mode value",
                &[],
                EXIT_USAGE,
                &["--mode: the value `fa\u{fffd}st` is not UTF-8 text"],
            )
        },
        case(
            "/dev/zero as the program",
            &["/dev/zero"],
            EXIT_USAGE,
            &["cannot read `/dev/zero`", "larger than the 16 MiB"],
        ),
        case(
            "a pipe whose writer never stops",
            &[&endless],
            EXIT_USAGE,
            &["cannot read", &endless, "larger than the 16 MiB"],
        )
        .beside(&endless, move |_| {
            // Opening blocks until spusim opens the other end; writing fails once it closed.
            let Ok(mut pipe) = std::fs::OpenOptions::new()
                .write(true)
                .open(&endless_writer)
            else {
                return;
            };
            let lines = b"nop\n".repeat(1024);
            while pipe.write_all(&lines).is_ok() {}
        }),
        case(
            "a pipe whose writer never closes",
            &["--read-timeout", "1", &silent],
            EXIT_USAGE,
            &["cannot read", &silent, "no data and no end of file for 1 s"],
        )
        .beside(&silent, move |spusim_exited| {
            let Ok(mut pipe) = std::fs::OpenOptions::new().write(true).open(&silent_writer) else {
                return;
            };
            let _ = pipe.write_all(b"il $3,1\n");
            // Holds the pipe open (no end of file) until spusim has given up on it.
            let _ = spusim_exited.recv();
        }),
        case(
            "a pipe nobody writes to",
            &["--read-timeout", "1", &unopened],
            EXIT_USAGE,
            &[
                "cannot read",
                &unopened,
                "no data and no end of file for 1 s",
            ],
        ),
    ]
}
