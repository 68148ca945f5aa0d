//! Sections as GNU `as` makes them: each has the ELF attributes its `.section` flags give,
//! or, without flags, those bfd gives its name (`elf.c` `special_sections`, and `.toe` from
//! `elf32-spu.c`): `.text` and `.text.*` code, `.data*` and `.bss*` writable, `.rodata*`
//! read-only, `.init`/`.fini` code, `.comment` and `.debug*` not allocated. A section with
//! another name and no flags is not allocated either (`.section .foo` gets no `a` flag), so
//! it never reaches local store. Where the sections go is in `layout`.

use super::error::AsmErrorKind;
use super::symbols::SymbolName;

/// Most sections one source may use (`.text`, `.data`, `.bss`, `.rodata`, named ones...).
pub const MAX_SECTIONS: usize = 32;

/// What a section holds, which decides where it goes and whether it has bytes in the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SectionKind {
    /// Code (`.text`, `.text.*`, `.init`, `.fini`, or flags with `ax`): alignment padding
    /// is `nop`/`lnop`.
    Code,
    /// Initialised data, read-only (`.rodata`, flags `a`) or writable (`.data`, flags `aw`).
    Data,
    /// Zero-initialised (`.bss`, `@nobits`, `.lcomm`, `.comm`): addresses, no bytes.
    Bss,
    /// Not allocated (`.comment`, `.debug*`, flags without `a`): assembled and checked, but
    /// the link gives it no place in local store, so its bytes are in no image.
    NotLoaded,
}

/// The ELF attributes of a section (`SHF_*`, `SHT_NOBITS`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Attributes {
    pub alloc: bool,
    pub write: bool,
    pub exec: bool,
    pub tls: bool,
    pub nobits: bool,
}

impl Attributes {
    const fn new(nobits: bool, alloc: bool, write: bool, exec: bool, tls: bool) -> Self {
        Attributes {
            alloc,
            write,
            exec,
            tls,
            nobits,
        }
    }

    /// The flags string of `.section name, "flags"` (`a`, `w`, `x`, `T`; the others, such as
    /// `M`, `S`, `G`, do not change where a section goes).
    pub fn from_flags(flags: &str) -> Self {
        Attributes {
            alloc: flags.contains('a'),
            write: flags.contains('w'),
            exec: flags.contains('x'),
            tls: flags.contains('T'),
            nobits: false,
        }
    }

    fn kind(self) -> SectionKind {
        match (self.alloc, self.nobits, self.exec) {
            (false, _, _) => SectionKind::NotLoaded,
            (true, true, _) => SectionKind::Bss,
            (true, false, true) => SectionKind::Code,
            (true, false, false) => SectionKind::Data,
        }
    }

    fn union(self, other: Self) -> Self {
        Attributes {
            alloc: self.alloc || other.alloc,
            write: self.write || other.write,
            exec: self.exec || other.exec,
            tls: self.tls || other.tls,
            nobits: self.nobits || other.nobits,
        }
    }

    fn within(self, other: Self) -> bool {
        (!self.alloc || other.alloc)
            && (!self.write || other.write)
            && (!self.exec || other.exec)
            && (!self.tls || other.tls)
    }
}

/// How a special section's name matches (`bfd_elf_special_section.suffix_length`).
#[derive(Clone, Copy)]
enum Match {
    /// The name itself (0).
    Exact,
    /// The name, or the name and `.` and more (-2).
    Dotted,
    /// Any name starting with it (-1).
    Prefix,
}

const A: bool = true;
const O: bool = false;

/// bfd's special sections for spu-elf: name, match, then nobits, alloc, write, exec, TLS.
#[rustfmt::skip]
const SPECIAL: [(&str, Match, Attributes); 33] = [
    (".bss", Match::Dotted, Attributes::new(A, A, A, O, O)),
    (".comment", Match::Exact, Attributes::new(O, O, O, O, O)),
    (".ctf", Match::Exact, Attributes::new(O, O, O, O, O)),
    (".data", Match::Dotted, Attributes::new(O, A, A, O, O)),
    (".data1", Match::Exact, Attributes::new(O, A, A, O, O)),
    (".debug", Match::Exact, Attributes::new(O, O, O, O, O)),
    (".dynamic", Match::Exact, Attributes::new(O, A, O, O, O)),
    (".dynstr", Match::Exact, Attributes::new(O, A, O, O, O)),
    (".dynsym", Match::Exact, Attributes::new(O, A, O, O, O)),
    (".fini", Match::Exact, Attributes::new(O, A, O, A, O)),
    (".fini_array", Match::Dotted, Attributes::new(O, A, A, O, O)),
    (".gnu.linkonce.b", Match::Dotted, Attributes::new(A, A, A, O, O)),
    (".gnu.linkonce.n", Match::Dotted, Attributes::new(A, A, A, O, O)),
    (".gnu.linkonce.p", Match::Dotted, Attributes::new(O, A, A, O, O)),
    (".got", Match::Exact, Attributes::new(O, A, A, O, O)),
    (".gnu.hash", Match::Exact, Attributes::new(O, A, O, O, O)),
    (".hash", Match::Exact, Attributes::new(O, A, O, O, O)),
    (".init", Match::Exact, Attributes::new(O, A, O, A, O)),
    (".init_array", Match::Dotted, Attributes::new(O, A, A, O, O)),
    (".noinit", Match::Dotted, Attributes::new(A, A, A, O, O)),
    (".note", Match::Prefix, Attributes::new(O, O, O, O, O)),
    (".persistent.bss", Match::Exact, Attributes::new(A, A, A, O, O)),
    (".persistent", Match::Dotted, Attributes::new(O, A, A, O, O)),
    (".preinit_array", Match::Dotted, Attributes::new(O, A, A, O, O)),
    (".plt", Match::Exact, Attributes::new(O, A, O, A, O)),
    (".rodata", Match::Dotted, Attributes::new(O, A, O, O, O)),
    (".rodata1", Match::Exact, Attributes::new(O, A, O, O, O)),
    (".text", Match::Dotted, Attributes::new(O, A, O, A, O)),
    (".tbss", Match::Dotted, Attributes::new(A, A, A, O, A)),
    (".tdata", Match::Dotted, Attributes::new(O, A, A, O, A)),
    // `elf32-spu.c`: `.toe` holds the effective addresses of `_EAR_` symbols.
    (".toe", Match::Exact, Attributes::new(A, A, O, O, O)),
    ("._ea", Match::Exact, Attributes::new(O, O, A, O, O)),
    (".line", Match::Exact, Attributes::new(O, O, O, O, O)),
];

/// The attributes bfd gives a section of this name, if it is special.
fn special(name: &str) -> Option<Attributes> {
    SPECIAL.iter().find_map(|&(prefix, how, attributes)| {
        let rest = name.strip_prefix(prefix)?;
        let matches = match how {
            Match::Exact => rest.is_empty(),
            Match::Dotted => rest.is_empty() || rest.starts_with('.'),
            Match::Prefix => true,
        };
        matches.then_some(attributes)
    })
}

/// The attributes of a new section (`obj_elf_change_section`): the given flags and type,
/// completed by the special section's (a type not given is the special one's; given flags
/// are added to the special ones, unless they are not among them, when they replace them).
pub(super) fn attributes(
    name: &str,
    given: Option<Attributes>,
    nobits: Option<bool>,
) -> Attributes {
    let special = special(name);
    let mut attributes = match (given, special) {
        (Some(given), Some(special)) if given.within(special) => given.union(special),
        (Some(given), _) => given,
        (None, Some(special)) => special,
        (None, None) => Attributes::default(),
    };
    attributes.nobits = nobits.unwrap_or_else(|| special.is_some_and(|s| s.nobits));
    attributes
}

/// One section: its name, kind and final place in local store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionInfo {
    /// The name as written (`.text`, `.data`, ...).
    pub name: SymbolName,
    /// Code, data, zero-initialised, or not loaded.
    pub kind: SectionKind,
    /// Local-store address of its first byte (0 for a section that is not loaded).
    pub address: u32,
    /// Size in bytes, rounded up to its alignment as GNU `as` rounds it
    /// (`md_section_align`).
    pub size: u32,
    /// Largest alignment asked for in it (1 if none, as gas records it).
    pub align: u32,
    /// The source it is in: its index among the sources given to
    /// [`link`](super::link) (0 for [`assemble`](super::assemble)).
    pub file: u16,
    /// Its ELF attributes.
    pub(super) attributes: Attributes,
    /// The output section it went into (an index into the program's output sections), or
    /// [`NO_OUTPUT`] (not allocated, or empty with every section of its output).
    pub(super) output: u8,
}

/// [`SectionInfo`]'s output index when it is in no output section.
pub(super) const NO_OUTPUT: u8 = u8::MAX;

impl SectionInfo {
    /// The index of the output section it is in, among
    /// [`Program::output_sections`](super::Program::output_sections); `None` when it is in
    /// none (not allocated, or empty like every section ld would have put with it).
    pub fn output_section(&self) -> Option<usize> {
        (self.output != NO_OUTPUT).then_some(usize::from(self.output))
    }
}

/// The section table while assembling: sizes grow as statements are read.
#[derive(Clone, Debug)]
pub(super) struct Sections {
    pub list: heapless::Vec<SectionInfo, MAX_SECTIONS>,
}

impl Sections {
    pub const fn new() -> Self {
        Sections {
            list: heapless::Vec::new(),
        }
    }

    /// The index of `name`, created when new with the attributes it gets from `given`
    /// flags, its `nobits` type, and its name. An existing section keeps its attributes (gas
    /// only warns about different ones).
    pub fn open(
        &mut self,
        name: &str,
        given: Option<Attributes>,
        nobits: Option<bool>,
    ) -> Result<u8, AsmErrorKind> {
        if let Some(i) = self.list.iter().position(|s| s.name == name) {
            return Ok(i as u8);
        }
        let attributes = attributes(name, given, nobits);
        let info = SectionInfo {
            name: SymbolName::new(name)?,
            kind: attributes.kind(),
            address: 0,
            size: 0,
            align: 1,
            file: 0,
            attributes,
            output: NO_OUTPUT,
        };
        self.list
            .push(info)
            .map_err(|_| AsmErrorKind::TooManySections {
                capacity: MAX_SECTIONS,
            })?;
        Ok((self.list.len() - 1) as u8)
    }

    pub fn get(&self, index: u8) -> Option<&SectionInfo> {
        self.list.get(usize::from(index))
    }

    pub fn get_mut(&mut self, index: u8) -> Option<&mut SectionInfo> {
        self.list.get_mut(usize::from(index))
    }
}
