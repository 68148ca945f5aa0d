//! The program to run: an assembly source, assembled, or an SPU ELF executable, read by the
//! library's reader (told apart by the ELF magic). Either way the run sees the same things: the
//! local store image, the entry point, the code and data regions, and the symbols that name
//! addresses in listings.

use std::ops::Range;
use std::path::Path;

use pmprobe::spu::elf::{ELF_MAGIC, SpuElf};
use pmprobe::spu::exec::{LS_SIZE, SpuState};
use pmprobe::spu::isa::SymbolLookup;
use pmprobe::spu::isa::asm::{Program, assemble};
use pmprobe::spu::runtime::RuntimeKind;

use crate::exit::Failure;
use crate::expand_source;

/// Labels an assembled program may define.
pub const SYMBOL_CAPACITY: usize = 4096;

/// A region of the local store the program occupies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Its local-store addresses.
    pub range: Range<usize>,
    /// Code (listed as instructions) or data (listed as words).
    pub code: bool,
}

/// Where the program came from, with what each kind keeps.
enum Origin<'a> {
    Assembly(Box<Program<SYMBOL_CAPACITY>>),
    Elf(Box<SpuElf<'a>>),
}

/// A program ready to load.
pub struct Loaded<'a> {
    /// The local store as loading leaves it (all of it, zeros outside the program).
    pub image: Vec<u8>,
    /// Where execution starts.
    pub entry: u32,
    /// The regions, in address order.
    pub regions: Vec<Region>,
    origin: Origin<'a>,
}

impl<'a> Loaded<'a> {
    /// The program in `bytes`, read from `path`: an ELF file when it starts with the ELF
    /// magic, else an assembly source.
    pub fn from_bytes(path: &Path, bytes: &'a [u8]) -> Result<Self, Failure> {
        if bytes.starts_with(&ELF_MAGIC) {
            Self::elf(path, bytes)
        } else {
            let source = crate::source::as_text(path, bytes)?;
            Self::assembly(path, source)
        }
    }

    fn assembly(path: &Path, source: &'a str) -> Result<Self, Failure> {
        let shown = path.display();
        let mut image = vec![0u8; LS_SIZE as usize];
        let expanded = expand_source::expand(path, source)?;
        let program = assemble_reporting(&expanded, &mut image)?;
        if program.text_len == 0 {
            // Running it would execute whatever the zeroed local store holds (`stop 0`) and
            // look like success.
            return Err(Failure::Program(format!(
                "{shown}: no instructions to run (the file is empty or has no code)"
            )));
        }
        let regions = section_regions(&program);
        Ok(Loaded {
            image,
            entry: program.entry,
            regions,
            origin: Origin::Assembly(program),
        })
    }

    fn elf(path: &Path, bytes: &'a [u8]) -> Result<Self, Failure> {
        let elf = SpuElf::parse(bytes)
            .map_err(|error| Failure::Program(format!("{}: {error}", path.display())))?;
        let mut image = vec![0u8; LS_SIZE as usize];
        let mut regions = Vec::new();
        for segment in elf.segments() {
            let start = segment.address as usize;
            if let Some(place) = image.get_mut(start..start + segment.bytes.len()) {
                place.copy_from_slice(segment.bytes);
            }
            regions.push(Region {
                range: start..segment.end() as usize,
                code: segment.is_executable(),
            });
        }
        regions.sort_by_key(|region| region.range.start);
        Ok(Loaded {
            image,
            entry: elf.entry(),
            regions,
            origin: Origin::Elf(Box::new(elf)),
        })
    }

    /// Whether the program was read from an ELF file.
    pub fn is_elf(&self) -> bool {
        matches!(self.origin, Origin::Elf(_))
    }

    /// The runtime the program was built for, as far as its file says (an ELF's notes and
    /// symbols; none for an assembly source).
    pub fn detected_runtime(&self) -> RuntimeKind {
        match &self.origin {
            Origin::Assembly(_) => RuntimeKind::None,
            Origin::Elf(elf) => RuntimeKind::detect(elf),
        }
    }

    /// The assembled program, when it was assembled here (for `--elf`).
    pub fn assembled(&self) -> Option<&Program<SYMBOL_CAPACITY>> {
        match &self.origin {
            Origin::Assembly(program) => Some(program),
            Origin::Elf(_) => None,
        }
    }

    /// Loads the program into `spu` and resets it to start at the entry point: the
    /// assembled image at address 0, or the ELF file's segments through the library's loader.
    pub fn load_into(&self, spu: &mut SpuState) -> Result<(), pmprobe::spu::exec::ImageTooLarge> {
        match &self.origin {
            Origin::Assembly(program) => spu.load_program(
                self.image.get(..program.len).unwrap_or_default(),
                self.entry,
            ),
            Origin::Elf(elf) => {
                elf.load_into(spu);
                Ok(())
            }
        }
    }

    /// Every name defined at `address`, in definition order.
    pub fn names_at(&self, address: u32) -> Vec<&str> {
        match &self.origin {
            Origin::Assembly(program) => program
                .symbols
                .iter()
                .filter(|s| s.address == address && s.is_label() && !s.name.contains('\u{2}'))
                .map(|s| s.name.as_str())
                .collect(),
            Origin::Elf(elf) => elf
                .symbols()
                .iter()
                .filter(|s| s.address == address)
                .map(|s| s.name)
                .collect(),
        }
    }
}

impl SymbolLookup for Loaded<'_> {
    fn symbol_at(&self, address: u32) -> Option<&str> {
        match &self.origin {
            Origin::Assembly(program) => program.symbols.symbol_at(address),
            Origin::Elf(elf) => elf.symbols().symbol_at(address),
        }
    }

    fn symbol_before(&self, address: u32) -> Option<(&str, u32)> {
        match &self.origin {
            Origin::Assembly(program) => program.symbols.symbol_before(address),
            Origin::Elf(elf) => elf.symbols().symbol_before(address),
        }
    }
}

/// The code and data regions of an assembled program: its sections with bytes, in address
/// order, adjacent ones of one kind together (read-only data in the text segment is data).
fn section_regions(program: &Program<SYMBOL_CAPACITY>) -> Vec<Region> {
    use pmprobe::spu::isa::asm::SectionKind;
    let mut sections: Vec<_> = program
        .sections
        .iter()
        .filter(|s| matches!(s.kind, SectionKind::Code | SectionKind::Data) && s.size > 0)
        .map(|s| {
            let start = s.address as usize;
            (start..start + s.size as usize, s.kind == SectionKind::Code)
        })
        .collect();
    sections.sort_by_key(|(range, _)| range.start);
    let mut regions: Vec<Region> = Vec::new();
    for (range, code) in sections {
        match regions.last_mut() {
            Some(last) if last.code == code && last.range.end == range.start => {
                last.range.end = range.end;
            }
            _ => regions.push(Region { range, code }),
        }
    }
    regions
}

/// Most errors reported for one source (gas reports every error it meets; after one, later
/// statements may fail only because the first did).
const MAX_REPORTED_ERRORS: usize = 20;

/// Assembles `expanded`; on errors, reports up to [`MAX_REPORTED_ERRORS`] of them, in the
/// order they are met (the first pass's, in source order, then the second's): after each
/// error the assembler stops, so its line is blanked and the text assembled again, as gas
/// goes on with the next statement. An error that is not one statement's (a limit, the end of
/// the source) ends the report.
fn assemble_reporting(
    expanded: &expand_source::ExpandedSource,
    image: &mut [u8],
) -> Result<Box<Program<SYMBOL_CAPACITY>>, Failure> {
    use pmprobe::spu::isa::asm::AsmErrorKind;
    let mut text = expanded.text.clone();
    let mut errors = Vec::new();
    loop {
        let error = match assemble_on_big_stack(&text, image)? {
            Ok(program) if errors.is_empty() => return Ok(program),
            Ok(_) => break,
            Err(error) => error,
        };
        let last_statement = !matches!(
            error.kind,
            AsmErrorKind::ImageOverflow { .. }
                | AsmErrorKind::UnterminatedComment
                | AsmErrorKind::MissingEnd { .. }
                | AsmErrorKind::UnmatchedEnd(_)
                | AsmErrorKind::ExpansionLimit { .. }
                | AsmErrorKind::NestingLimit { .. }
                | AsmErrorKind::ArgumentSpace { .. }
                | AsmErrorKind::TooManySymbols { .. }
                | AsmErrorKind::TooManySections { .. }
                | AsmErrorKind::TooManyMacros { .. }
                | AsmErrorKind::NeedsFileAccess(_)
        );
        let repeated = errors
            .iter()
            .any(|e: &pmprobe::spu::isa::asm::AsmError| e.line == error.line);
        errors.push(error);
        if !last_statement || repeated || errors.len() >= MAX_REPORTED_ERRORS {
            break;
        }
        if !blank_line(&mut text, error.line) {
            break;
        }
    }
    let report: Vec<String> = errors.iter().map(|e| expanded.describe(e)).collect();
    Err(Failure::Program(report.join("\n")))
}

/// Replaces line `line` (from 1) of `text` with an empty one; false if there is none.
fn blank_line(text: &mut String, line: u32) -> bool {
    let Some(index) = (line as usize).checked_sub(1) else {
        return false;
    };
    let start = if index == 0 {
        Some(0)
    } else {
        text.match_indices('\n').nth(index - 1).map(|(i, _)| i + 1)
    };
    let Some(start) = start else {
        return false;
    };
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    text.replace_range(start..end, "");
    true
}

/// Stack for the assembler's thread. The heap-free assembler keeps its symbol table (with
/// names inline), sections and line buffers in its frame: over 2 MiB for
/// [`SYMBOL_CAPACITY`] symbols, more than a spawned thread's default stack (a test harness
/// calling spusim in-process overflowed it).
const ASSEMBLER_STACK_BYTES: usize = 64 << 20;

/// [`assemble`] on a thread of its own with [`ASSEMBLER_STACK_BYTES`] of stack.
fn assemble_on_big_stack(
    source: &str,
    image: &mut [u8],
) -> Result<Result<Box<Program<SYMBOL_CAPACITY>>, pmprobe::spu::isa::asm::AsmError>, Failure> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("spusim-assemble".into())
            .stack_size(ASSEMBLER_STACK_BYTES)
            .spawn_scoped(scope, || {
                assemble::<SYMBOL_CAPACITY>(source, image).map(Box::new)
            })
            .map_err(|error| Failure::Io(format!("cannot start the assembler thread: {error}")))?
            .join()
            .map_err(|_| Failure::Io("the assembler thread panicked".into()))
    })
}
