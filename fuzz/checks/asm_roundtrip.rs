//! Checks of the `asm_roundtrip` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): assemble -> disassemble -> assemble gives the same words.
//!
//! The input is read as a program rather than as text, so that every word comes from an
//! instruction (a `.word` may hold anything, which no disassembler can spell back): per
//! statement, 2 bytes pick a mnemonic among the base mnemonics, variants and synonyms, 1 byte
//! its operand form, and 4 bytes each operand (a spelling and a value: the range's ends, 0, or
//! a value inside the range; registers as `$N`, `N`, `$lr`, `$sp`; channels by number or name;
//! branch and hint targets as a label, `.+N` or a number, which GNU `as` takes as the byte
//! offset itself, within reach). `nop` comes without its operand: gas reads `nop N` as its
//! `.nop` pseudo-op. Every statement has a label `L<i>`, so the listing prints the targets
//! inside the program by name and the others as `.+N`.
//!
//! Checks: the program assembles (every operand is in range by construction); its listing
//! (`disasm::write_listing` with the program's symbols) assembles to the same words; and the
//! second listing is the first (the text is a fixed point).
use std::fmt::Write as _;

use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::isa::write_listing;
use pmprobe::spu::isa::{OPCODES, OperandKind, VARIANTS};

/// Statements generated at most.
const MAX_STATEMENTS: usize = 160;
/// Bytes a statement takes before its operands (4 more each).
const STATEMENT_BYTES: usize = 3;

/// The input as a stream; zeros after its end.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let byte = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        byte
    }

    fn left(&self) -> usize {
        self.data.len().saturating_sub(self.at)
    }
}

/// One operand's spelling choice and raw value.
#[derive(Clone, Copy)]
struct Raw {
    mode: u8,
    value: u32,
}

impl Raw {
    /// A value in `min..=max`: one of the ends, 0 (or the nearest end), or inside.
    fn pick(self, min: i64, max: i64) -> i64 {
        match self.mode >> 4 & 3 {
            0 => min,
            1 => max,
            2 => 0i64.clamp(min, max),
            _ => min + i64::from(self.value) % (max - min + 1),
        }
    }
}

struct Statement {
    name: &'static str,
    form: &'static [OperandKind],
    operands: Vec<Raw>,
}

/// Every mnemonic the assembler knows, with its operand forms.
fn mnemonics() -> Vec<(&'static str, &'static [&'static [OperandKind]])> {
    OPCODES
        .iter()
        .map(|row| (row.name, row.forms))
        .chain(VARIANTS.iter().map(|v| (v.name, v.forms)))
        .collect()
}

fn statements(data: &[u8]) -> Vec<Statement> {
    let table = mnemonics();
    let mut bytes = Bytes { data, at: 0 };
    let mut out = Vec::new();
    while bytes.left() >= STATEMENT_BYTES && out.len() < MAX_STATEMENTS {
        let index = usize::from(u16::from_le_bytes([bytes.byte(), bytes.byte()])) % table.len();
        let (name, forms) = table[index];
        let form = forms[usize::from(bytes.byte()) % forms.len()];
        // `nop $T` has no spelling gas reads as the instruction.
        let form = if name == "nop" { &[][..] } else { form };
        let operands = form
            .iter()
            .map(|_| {
                let mode = bytes.byte();
                let value = u32::from_le_bytes([bytes.byte(), bytes.byte(), bytes.byte(), 0]);
                Raw { mode, value }
            })
            .collect();
        out.push(Statement {
            name,
            form,
            operands,
        });
    }
    out
}

fn register(raw: Raw) -> String {
    let number = raw.value % 128;
    match raw.mode & 3 {
        0 => format!("${number}"),
        1 => format!("{number}"),
        2 => "$lr".to_string(),
        _ => "$sp".to_string(),
    }
}

/// A pc-relative target at `index` (address `4 * index`) reaching `min..=max` bytes.
fn target(raw: Raw, index: usize, count: usize, min: i64, max: i64) -> String {
    let pc = 4 * index as i64;
    let offset = raw.pick(min / 4, max / 4) * 4;
    match raw.mode & 3 {
        // A label inside the program and in reach, else `.`.
        0 => {
            let lowest = ((pc + min) / 4).max(0);
            let highest = ((pc + max) / 4).min(count as i64 - 1);
            if lowest > highest {
                return ".".to_string();
            }
            let label = lowest + i64::from(raw.value) % (highest - lowest + 1);
            format!("L{label}")
        }
        1 => format!(".{offset:+}"),
        // A number: the byte offset itself, as gas reads a constant there.
        _ if offset >= 0 => format!("{offset:#x}"),
        _ => format!("-{:#x}", -offset),
    }
}

fn operand(kind: OperandKind, raw: Raw, index: usize, count: usize) -> String {
    use OperandKind::*;
    let number = |min, max| raw.pick(min, max).to_string();
    match kind {
        Rt | Ra | Rb | Rc => register(raw),
        Spr => match raw.mode & 1 {
            0 => format!("$sp{}", raw.value % 128),
            _ => format!("{}", raw.value % 128),
        },
        Channel => match raw.mode & 3 {
            0 => format!("$ch{}", raw.value % 128),
            1 => format!("{}", raw.value % 128),
            2 => "SPU_WrOutMbox".to_string(),
            _ => "$MFC_Cmd".to_string(),
        },
        S3 | S7N | S7 => number(-64, 63),
        S6 => number(-32, 31),
        U3 | U5 | U6 | U7 | U7A | U7B => number(0, 127),
        S10B => number(-512, 511),
        S10 => number(-512, 511),
        S16 => number(-32768, 32767),
        X16 => match raw.pick(-32768, 65535) {
            value if value >= 0 && raw.mode & 1 == 1 => format!("{value:#x}"),
            value => value.to_string(),
        },
        U18 => number(0, 262_143),
        U14 => number(0, 16383),
        MemS14 => format!("{}({})", raw.pick(-512, 511) * 16, register(raw)),
        MemU7 => format!("{}({})", raw.pick(0, 127), register(raw)),
        S11 | S11I => target(raw, index, count, -1024, 1020),
        R18 => target(raw, index, count, -131_072, 131_068),
        S18 => match raw.mode & 3 {
            0 => format!("L{}", raw.value as usize % count),
            _ => format!("{:#x}", raw.pick(0, 65535) * 4),
        },
    }
}

fn source(statements: &[Statement]) -> String {
    let mut text = String::new();
    for (index, statement) in statements.iter().enumerate() {
        let operands: Vec<String> = statement
            .form
            .iter()
            .zip(&statement.operands)
            .map(|(kind, raw)| operand(*kind, *raw, index, statements.len()))
            .collect();
        let _ = writeln!(text, "L{index}: {} {}", statement.name, operands.join(","));
    }
    text
}

/// Assembles `text` (which must assemble) and returns its listing and its words.
fn assemble_and_list(text: &str, what: &str) -> (String, Vec<u8>) {
    let mut image = vec![0u8; 4 * MAX_STATEMENTS];
    let program = assemble::<{ MAX_STATEMENTS }>(text, &mut image)
        .unwrap_or_else(|error| panic!("{what} does not assemble: {error}\n{text}"));
    let mut listing = String::new();
    write_listing(&image, 0, program.len, &program.symbols, &mut listing)
        .expect("writing to a String");
    image.truncate(program.len);
    (listing, image)
}

/// The listing's lines with the `  0x0004: 1cffc183  ` column removed: assembler input.
fn listing_source(listing: &str) -> String {
    listing
        .lines()
        .map(|line| match line.trim_start().split_once(": ") {
            Some((address, rest)) if address.starts_with("0x") => {
                rest.split_once("  ")
                    .map_or(rest, |(_, code)| code)
                    .to_string()
                    + "\n"
            }
            _ => format!("{line}\n"),
        })
        .collect()
}

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let statements = statements(data);
    if statements.is_empty() {
        return;
    }
    let text = source(&statements);
    let (listing, words) = assemble_and_list(&text, "the generated program");
    let relisted = listing_source(&listing);
    let (listing2, words2) = assemble_and_list(&relisted, "the listing");
    if let Some(at) = (0..words.len().min(words2.len()))
        .step_by(4)
        .find(|&at| words[at..at + 4] != words2[at..at + 4])
    {
        panic!(
            "word at {at:#x}: {:02x?} became {:02x?}\nsource line: {}\nlisting line: {}",
            &words[at..at + 4],
            &words2[at..at + 4],
            text.lines().nth(at / 4).unwrap_or(""),
            relisted
                .lines()
                .filter(|line| !line.ends_with(':'))
                .nth(at / 4)
                .unwrap_or("")
        );
    }
    assert_eq!(words.len(), words2.len(), "program sizes differ");
    assert_eq!(listing2, listing, "the listing is not a fixed point");
}
