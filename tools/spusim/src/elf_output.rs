//! `--elf FILE`: the linked program written as an SPU ELF executable, the file spu-ld writes
//! for the same sources (the library's writer, given the names ld would record: the output
//! file as given, and each source's object file, `crt0.o` for `crt0.S`).

use std::path::Path;

use pmprobe::spu::elf::{ElfNames, executable_size, write_executable};

use crate::exit::Failure;
use crate::program::Loaded;

/// The object file `gcc -c` makes of `source`: its file name with the extension `.o`.
pub fn object_name(source: &Path) -> String {
    let stem = source
        .file_stem()
        .map_or_else(String::new, |stem| stem.to_string_lossy().into_owned());
    format!("{stem}.o")
}

/// The ELF file of `program` (linked from `sources`) named `output`, in memory.
pub fn executable(
    program: &Loaded<'_>,
    sources: &[&Path],
    output: &Path,
) -> Result<Vec<u8>, Failure> {
    let shown = output.display();
    let Some(assembled) = program.assembled() else {
        return Err(Failure::Io(format!(
            "--elf `{shown}`: the program is an ELF file already; --elf writes an assembled \
             program (nothing was written)"
        )));
    };
    let objects: Vec<String> = sources.iter().map(|s| object_name(s)).collect();
    let objects: Vec<&str> = objects.iter().map(String::as_str).collect();
    let output_name = output.to_string_lossy();
    let names = ElfNames {
        output: &output_name,
        objects: &objects,
    };
    let refused = |error| Failure::Program(format!("--elf: cannot write `{shown}`: {error}"));
    let size = executable_size(assembled, &names).map_err(refused)?;
    let mut bytes = vec![0u8; size];
    let len = write_executable(assembled, &program.image, &names, &mut bytes).map_err(refused)?;
    bytes.truncate(len);
    Ok(bytes)
}

/// Writes `program` (linked from `sources`) to `path` as an SPU ELF executable.
pub fn write(path: &Path, program: &Loaded<'_>, sources: &[&Path]) -> Result<(), Failure> {
    let bytes = executable(program, sources, path)?;
    std::fs::write(path, &bytes)
        .map_err(|error| Failure::Io(format!("--elf: cannot write `{}`: {error}", path.display())))
}
