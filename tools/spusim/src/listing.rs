//! The `--disasm` listing and the `--regs` dump.

use std::io::{self, Write};

use pmprobe::spu::exec::SpuState;
use pmprobe::spu::isa::asm::Program;
use pmprobe::spu::isa::write_listing;

/// Prints the assembled image: `.text` through the disassembler's listing writer (labels,
/// addresses, words, instructions), `.data` as `.long` words.
pub fn print_listing<const SYMS: usize>(
    out: &mut dyn Write,
    program: &Program<'_, SYMS>,
    image: &[u8],
) -> io::Result<()> {
    let mut text = String::new();
    let formatted = write_listing(image, 0, program.text_len, &program.symbols, &mut text);
    if formatted.is_err() {
        return Err(io::Error::other("listing could not be formatted"));
    }
    if program.data_len > 0 {
        text.push_str("        .data\n");
        let end = program.data_start + program.data_len;
        let data = image.get(program.data_start..end).unwrap_or_default();
        for (index, bytes) in data.chunks_exact(4).enumerate() {
            let address = (program.data_start + index * 4) as u32;
            for symbol in program.symbols.iter().filter(|s| s.address == address) {
                text.push_str(&format!("{}:\n", symbol.name));
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

/// Prints the static timing listing (spu_timing style) of the `.text` bytes.
pub fn print_timing(
    out: &mut dyn Write,
    text: &[u8],
    config: &pmprobe::spu::pipeline::Config,
) -> io::Result<()> {
    let words: Vec<u32> = text
        .chunks_exact(4)
        .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let mut listing = String::new();
    pmprobe::spu::pipeline::listing(&words, 0, config, &mut listing)
        .map_err(|_| io::Error::other("timing listing could not be formatted"))?;
    out.write_all(listing.as_bytes())
}
