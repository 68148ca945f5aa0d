//! `--objdump`: print what `spu-objdump -d` prints for the program's ELF file, and stop. An
//! ELF program file is that file; assembly sources are linked and written as `--elf` would
//! write them (named after `--elf FILE`, else `a.out`, ld's default), without running.

use std::io::Write;
use std::path::Path;

use pmprobe::spu::elf::{ELF_MAGIC, EM_SPU};

use crate::exit::{EXIT_STOP, Failure};
use crate::options::Options;
use crate::program::Loaded;
use crate::{elf_file, elf_output, objdump, outputs, source};

/// ld's output file name when none is given.
const DEFAULT_OUTPUT: &str = "a.out";

/// Prints the disassembly of the program `options` name to `out`; returns the exit status
/// (errors go to `err`).
pub fn print(options: &Options, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match text(options) {
        Ok(text) => match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => EXIT_STOP,
            Err(error) => {
                let failure = Failure::stdout(error);
                failure.report(err);
                failure.exit_code()
            }
        },
        Err(failure) => {
            failure.report(err);
            failure.exit_code()
        }
    }
}

/// The disassembly text, or why there is none.
fn text(options: &Options) -> Result<String, Failure> {
    outputs::refuse_overwriting_inputs(options)?;
    let paths = source::program_files(options);
    let files = source::read_programs(options)?;
    // objdump prints any SPU ELF file, also one the loader would refuse (an entry point past
    // the code), so an ELF file is only parsed here.
    let (name, bytes) = if let [bytes] = &files[..]
        && bytes.starts_with(&ELF_MAGIC)
    {
        let name = options.program.display().to_string();
        let machine = bytes.get(18..20).map(|m| u16::from_be_bytes([m[0], m[1]]));
        if machine != Some(EM_SPU) {
            return Err(Failure::Program(format!(
                "{name}: not an SPU ELF file (e_machine {machine:?}, an SPU's is {EM_SPU})"
            )));
        }
        (name, bytes.clone())
    } else {
        let program = Loaded::from_files(&paths, &files, &options.link.definitions)?;
        let output = options
            .elf_output
            .clone()
            .unwrap_or_else(|| Path::new(DEFAULT_OUTPUT).to_path_buf());
        let bytes = elf_output::executable(&program, &paths, &output)?;
        if options.elf_output.is_some() {
            std::fs::write(&output, &bytes).map_err(|error| {
                Failure::Io(format!(
                    "--elf: cannot write `{}`: {error}",
                    output.display()
                ))
            })?;
        }
        (output.display().to_string(), bytes)
    };
    let (sections, symbols) =
        elf_file::read(&bytes).map_err(|error| Failure::Program(format!("{name}: {error}")))?;
    Ok(objdump::disassembly(&name, &sections, &symbols))
}
