//! The `--disasm` listing and the `--regs` dump.

use std::io::{self, Write};

use pmprobe::spu::exec::Spu;
use pmprobe::spu::isa::asm::Program;
use pmprobe::spu::isa::decode::decode;
use pmprobe::spu::isa::disasm::disassemble;

/// Prints the assembled image: labels, addresses, words and their disassembly (text) or
/// `.word` (data).
pub fn print_listing<const SYMS: usize>(
    out: &mut dyn Write,
    program: &Program<'_, SYMS>,
    image: &[u8],
) -> io::Result<()> {
    let words = image.get(..program.len).unwrap_or_default().chunks_exact(4);
    for (index, bytes) in words.enumerate() {
        let address = (index * 4) as u32;
        let in_text = (address as usize) < program.text_len;
        let in_data = (address as usize) >= program.data_start;
        if !in_text && !in_data {
            continue;
        }
        if address as usize == program.data_start && program.data_len > 0 {
            writeln!(out, "        .data")?;
        }
        for symbol in program.symbols.iter().filter(|s| s.address == address) {
            writeln!(out, "{}:", symbol.name)?;
        }
        let word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let mut text = String::new();
        let decoded = if in_text { decode(word).ok() } else { None };
        match decoded {
            Some(insn) if disassemble(&insn, address, &program.symbols, &mut text).is_ok() => {}
            _ => {
                text.clear();
                text.push_str(&format!(".word {word:#010x}"));
            }
        }
        writeln!(out, "  {address:05x}:  {word:08x}  {text}")?;
    }
    Ok(())
}

/// Prints every register that is not all zeros.
pub fn print_registers(out: &mut dyn Write, spu: &Spu) -> io::Result<()> {
    for (index, value) in spu.registers().iter().enumerate() {
        if value.0 != 0 {
            writeln!(out, "${index:<3} {value}")?;
        }
    }
    Ok(())
}
