//! `--elf FILE`: the assembled program written as an SPU ELF executable (the library's
//! writer: `.text` and `.data` segments, every label in `.symtab`).

use std::path::Path;

use pmprobe::spu::elf::{executable_size, write_executable};

use crate::exit::Failure;
use crate::program::Loaded;

/// Writes `program` to `path` as an SPU ELF executable.
pub fn write(path: &Path, program: &Loaded<'_>) -> Result<(), Failure> {
    let shown = path.display();
    let Some(assembled) = program.assembled() else {
        return Err(Failure::Io(format!(
            "--elf `{shown}`: the program is an ELF file already; --elf writes an assembled \
             program (nothing was written)"
        )));
    };
    let refused = |error| Failure::Io(format!("--elf: cannot write `{shown}`: {error}"));
    let size = executable_size(assembled).map_err(refused)?;
    let mut bytes = vec![0u8; size];
    let len = write_executable(assembled, &program.image, &mut bytes).map_err(refused)?;
    bytes.truncate(len);
    std::fs::write(path, &bytes)
        .map_err(|error| Failure::Io(format!("--elf: cannot write `{shown}`: {error}")))
}
