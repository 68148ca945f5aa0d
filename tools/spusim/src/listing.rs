//! The `--disasm` listing, the `--timing` listing and the `--regs` dump.

use std::io::{self, Write};

use pmprobe::spu::exec::SpuState;
use pmprobe::spu::isa::write_listing;

use crate::program::Loaded;

/// Prints the program's regions in address order: code through the disassembler's listing
/// writer (labels, addresses, words, instructions), data as `.long` words under a `.data`
/// line. The symbols are the assembler's labels or the ELF file's `.symtab`.
pub fn print_listing(out: &mut dyn Write, program: &Loaded<'_>) -> io::Result<()> {
    let mut text = String::new();
    for region in &program.regions {
        if region.code {
            let formatted = write_listing(
                &program.image,
                region.range.start,
                region.range.end,
                program,
                &mut text,
            );
            if formatted.is_err() {
                return Err(io::Error::other("listing could not be formatted"));
            }
            continue;
        }
        text.push_str("        .data\n");
        let data = program.image.get(region.range.clone()).unwrap_or_default();
        for (index, bytes) in data.chunks_exact(4).enumerate() {
            let address = (region.range.start + index * 4) as u32;
            for name in program.names_at(address) {
                text.push_str(&format!("{name}:\n"));
            }
            let word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            text.push_str(&format!(
                "  {address:#06x}: {word:08x}  .long {word:#010x}\n"
            ));
        }
    }
    out.write_all(text.as_bytes())
}

/// Prints every register that is not all zeros.
pub fn print_registers(out: &mut dyn Write, spu: &SpuState) -> io::Result<()> {
    for (index, value) in spu.registers().iter().enumerate() {
        if value.0 != 0 {
            writeln!(out, "${index:<3} {value}")?;
        }
    }
    Ok(())
}

/// Prints the static timing listing (spu_timing style) of each code region.
pub fn print_timing(
    out: &mut dyn Write,
    program: &Loaded<'_>,
    config: &pmprobe::spu::pipeline::Config,
) -> io::Result<()> {
    let mut listing = String::new();
    for region in program.regions.iter().filter(|region| region.code) {
        let code = program.image.get(region.range.clone()).unwrap_or_default();
        let words: Vec<u32> = code
            .chunks_exact(4)
            .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        pmprobe::spu::pipeline::listing(&words, region.range.start as u32, config, &mut listing)
            .map_err(|_| io::Error::other("timing listing could not be formatted"))?;
    }
    out.write_all(listing.as_bytes())
}
