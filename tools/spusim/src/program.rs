//! The program to run: assembly sources, assembled and linked, or an SPU ELF executable, read
//! by the library's reader (told apart by the ELF magic). Either way the run sees the same
//! things: the local store image, the entry point, the code and data regions, and the symbols
//! that name addresses in listings.

use std::ops::Range;
use std::path::Path;

use pmprobe::spu::elf::{ELF_MAGIC, ElfWriteError, SpuElf, check_entry_point};
use pmprobe::spu::exec::{LS_SIZE, SpuState};
use pmprobe::spu::isa::SymbolLookup;
use pmprobe::spu::isa::asm::{Binding, Program};
use pmprobe::spu::runtime::RuntimeKind;

use crate::exit::Failure;
use crate::expand_source;
pub use crate::link_sources::SYMBOL_CAPACITY;
use crate::link_sources::link_reporting;

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
    /// What spu-ld would warn about (a `_start` that is not global).
    pub warnings: Vec<String>,
    origin: Origin<'a>,
}

impl<'a> Loaded<'a> {
    /// The program in `files` (each file's bytes), read from `paths`: an ELF file when it
    /// is one file that starts with the ELF magic, else assembly sources linked in this order
    /// with the link `definitions` (`--defsym`).
    pub fn from_files(
        paths: &[&Path],
        files: &'a [Vec<u8>],
        definitions: &[String],
    ) -> Result<Self, Failure> {
        let elf = paths
            .iter()
            .zip(files)
            .find(|(_, bytes)| bytes.starts_with(&ELF_MAGIC));
        match (elf, paths, files) {
            (Some((path, bytes)), [_], [_]) if definitions.is_empty() => Self::elf(path, bytes),
            (Some((path, _)), [_], _) => Err(Failure::Program(format!(
                "{}: --defsym applies to assembly sources; this is an ELF file, linked already",
                path.display()
            ))),
            (Some((path, _)), ..) => Err(Failure::Program(format!(
                "{}: an ELF executable cannot be linked with other files; give assembly \
                 sources",
                path.display()
            ))),
            (None, ..) => Self::assembly(paths, files, definitions),
        }
    }

    fn assembly(
        paths: &[&Path],
        files: &'a [Vec<u8>],
        definitions: &[String],
    ) -> Result<Self, Failure> {
        let mut expanded = Vec::with_capacity(paths.len());
        for (path, bytes) in paths.iter().zip(files) {
            let source = crate::source::as_text(path, bytes)?;
            expanded.push(expand_source::expand(path, source)?);
        }
        let shown = paths
            .first()
            .map_or_else(String::new, |p| p.display().to_string());
        let mut image = vec![0u8; LS_SIZE as usize];
        let program = link_reporting(&expanded, definitions, &mut image)?;
        if program.text_len == 0 {
            // Running it would execute whatever the zeroed local store holds (`stop 0`) and
            // look like success.
            return Err(Failure::Program(format!(
                "{shown}: no instructions to run (the file is empty or has no code)"
            )));
        }
        check_entry(&program, &shown)?;
        let regions = section_regions(&program);
        let warnings = entry_warning(&program).into_iter().collect();
        Ok(Loaded {
            image,
            entry: program.entry,
            regions,
            warnings,
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
        // The sections say where the code and data end (ld rounds segments up to 16 bytes).
        let (sections, _) = crate::elf_file::read(bytes).unwrap_or_default();
        let by_section: Vec<Region> = sections
            .iter()
            .filter(|s| s.is_loaded_bytes() && s.size > 0)
            .map(|s| Region {
                range: s.address as usize..(s.address + s.size) as usize,
                code: s.is_code(),
            })
            .collect();
        if !by_section.is_empty() {
            regions = merge_adjacent(by_section);
        }
        regions.sort_by_key(|region| region.range.start);
        Ok(Loaded {
            image,
            entry: elf.entry(),
            regions,
            warnings: Vec::new(),
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
}

/// The code and data regions of an assembled program: its output sections with bytes (as
/// its ELF file has them), in address order, adjacent ones of one kind together (read-only
/// data in the text segment is data).
fn section_regions(program: &Program<SYMBOL_CAPACITY>) -> Vec<Region> {
    use pmprobe::spu::isa::asm::SectionKind;
    let regions = program
        .output_sections
        .iter()
        .filter(|s| s.kind != SectionKind::Bss && s.size > 0)
        .map(|s| Region {
            range: s.address as usize..(s.address + s.size) as usize,
            code: s.kind == SectionKind::Code,
        })
        .collect();
    merge_adjacent(regions)
}

/// `regions` in address order, adjacent ones of one kind together.
fn merge_adjacent(mut list: Vec<Region>) -> Vec<Region> {
    list.sort_by_key(|region| region.range.start);
    let mut regions: Vec<Region> = Vec::new();
    for region in list {
        match regions.last_mut() {
            Some(last) if last.code == region.code && last.range.end == region.range.start => {
                last.range.end = region.range.end;
            }
            _ => regions.push(region),
        }
    }
    regions
}

/// spu-ld's default script starts the program at the global `_start` (`ENTRY(_start)`), else
/// at the start of `.text` with a warning; a `_start` a source defines without `.global` is
/// not the entry. That is worth a warning where it changes where the program starts.
fn entry_warning(program: &Program<SYMBOL_CAPACITY>) -> Option<String> {
    if program.entry_defined {
        return None;
    }
    let local = program
        .symbols
        .iter()
        .find(|s| s.name == "_start" && s.is_defined() && s.attributes.binding == Binding::Local)?;
    (local.address != program.entry).then(|| {
        format!(
            "warning: `_start` (at {:#x}) is not global: the program starts at {:#x}, the \
             start of .text, as spu-ld does (\"cannot find entry symbol _start\"); declare it \
             with `.global _start`",
            local.address, program.entry
        )
    })
}

/// The entry point must be an instruction of the program, as the ELF file spu-ld would write
/// needs it inside a segment: a global `_start` after the last instruction would run the
/// zeros past the code, and its ELF file could not be read.
fn check_entry(program: &Program<SYMBOL_CAPACITY>, shown: &str) -> Result<(), Failure> {
    match check_entry_point(program) {
        Err(error @ ElfWriteError::EntryOutsideSegments { .. }) => {
            Err(Failure::Program(format!("{shown}: {error}")))
        }
        _ => Ok(()),
    }
}
