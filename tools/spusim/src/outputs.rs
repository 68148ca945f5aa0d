//! Output files never replace an input: `--din prog.s prog.s` must not truncate the program.
//!
//! Checked before anything is opened for writing. Two names are the same file when they have
//! the same device and inode (on Unix: this sees through symbolic links, hard links and
//! `./` spellings), else when their canonical paths are equal. An output that does not exist
//! yet cannot be an input.

use std::path::Path;

use crate::exit::Failure;
use crate::options::Options;

/// Refuses the run when an output file is an input file, or when two outputs are one file.
pub fn refuse_overwriting_inputs(options: &Options) -> Result<(), Failure> {
    let inputs: Vec<(&str, &Path)> =
        std::iter::once(("the program file", options.program.as_path()))
            .chain(
                options
                    .link
                    .more_sources
                    .iter()
                    .map(|path| ("a source file", path.as_path())),
            )
            .collect();
    let outputs: Vec<(&str, &Path)> = [
        ("--din", options.attachments.din.as_deref()),
        ("--konata", options.pipeline.konata.as_deref()),
        ("--elf", options.elf_output.as_deref()),
    ]
    .into_iter()
    .filter_map(|(option, path)| path.map(|path| (option, path)))
    .collect();
    for (index, &(option, output)) in outputs.iter().enumerate() {
        for &(what, input) in &inputs {
            if same_file(output, input) {
                return Err(Failure::Io(format!(
                    "{option} `{}` is {what} `{}`: refusing to overwrite an input (nothing \
                     was written)",
                    output.display(),
                    input.display()
                )));
            }
        }
        for &(other, earlier) in outputs.iter().take(index) {
            if output == earlier || same_file(output, earlier) {
                return Err(Failure::Io(format!(
                    "{option} `{}` and {other} `{}` are the same file",
                    output.display(),
                    earlier.display()
                )));
            }
        }
    }
    Ok(())
}

/// Whether `a` and `b` name one existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(a_meta), Ok(b_meta)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a_meta.dev() == b_meta.dev() && a_meta.ino() == b_meta.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a_meta, b_meta);
        match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}
