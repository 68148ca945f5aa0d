//! The symbols the link defines besides the sources: ld's `--defsym NAME=VALUE` and those of
//! spu-ld's default script (`ld --verbose`):
//!
//! | symbol | script | value |
//! |---|---|---|
//! | `__executable_start` | `PROVIDE` | 0, the text segment's start |
//! | `__etext`, `_etext`, `etext` | `PROVIDE` | `.` after `.fini`: the end of the code |
//! | `_edata` | assigned | `.` after `.data1`: the end of the initialised data |
//! | `edata` | `PROVIDE` | the same |
//! | `__bss_start` | assigned | the same (after `. = .`) |
//! | `__stack` | `PROVIDE` | 0x3fff0 |
//! | `_end` | assigned | the end of `.bss` and `.toe`, rounded to 16 |
//! | `end` | `PROVIDE` | the same |
//! | `__preinit_array_start`... `__fini_array_end`, `__tdata_start` | `PROVIDE_HIDDEN` | the start or end of their output section |
//!
//! An assigned symbol (and a `--defsym`) wins over a source's global definition of the name;
//! a provided one is defined only when a source uses it and none defines it. Each takes the
//! output section ld's `section_for_dot` gives it (for the ELF file's `st_shndx`): the
//! previous allocated section, or the next one after an assignment to `.` (`__bss_start`).

use core::cell::Cell;

use super::layout::{DATA_ALIGN, DATA_SEGMENT, Layout, OutputSection, Slot};
use super::symbols::SymbolName;

/// Most link definitions (`--defsym`) one link takes.
pub const MAX_DEFINITIONS: usize = 8;

/// Most symbols the link defines: the script's 17 and the `--defsym`s.
pub const MAX_LINKER_SYMBOLS: usize = 17 + MAX_DEFINITIONS;

/// How the link defines a symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LinkerDefinition {
    /// Always (`_end = .;`, `--defsym`): it replaces a source's global definition.
    Assigned,
    /// `PROVIDE`: only when a source uses the name and none defines it.
    Provided,
    /// `PROVIDE_HIDDEN`: the same, and local in the linked file.
    ProvidedHidden,
}

/// A symbol the link defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkerSymbol {
    /// Its name.
    pub name: SymbolName,
    /// Its value (an address, or a number for an absolute `--defsym`).
    pub value: u32,
    /// How it is defined.
    pub how: LinkerDefinition,
    /// The output section it is relative to (an index into
    /// [`Program::output_sections`](super::Program::output_sections)), `None` for an
    /// absolute symbol.
    pub section: Option<u16>,
    /// It is in the linked program: assigned, or provided and used by a source.
    pub in_output: bool,
}

/// Where in the script a symbol is assigned, for the section it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Position {
    /// Before every output section (`__executable_start`): the next section.
    Start,
    /// After the output sections up to `slot`: the previous one, unless no output section
    /// came since `.` was last assigned (before the output section of the second slot),
    /// when it is the next one (ld's `prefer_next_section`).
    After(Slot, Slot),
    /// After the output sections up to `slot`, following an assignment to `.`: the next one.
    AfterDot(Slot),
    /// Inside the output section of `slot` (`PROVIDE_HIDDEN (__init_array_start = .)`):
    /// its start, or its end.
    Inside(Slot, bool),
}

/// The script's symbols: name, how, where.
const SCRIPT: [(&str, LinkerDefinition, Position); 17] = {
    use LinkerDefinition::{Assigned as A, Provided as P, ProvidedHidden as H};
    use Position::*;
    [
        ("__executable_start", P, Start),
        ("__etext", P, After(Slot::Fini, Slot::Interrupt)),
        ("_etext", P, After(Slot::Fini, Slot::Interrupt)),
        ("etext", P, After(Slot::Fini, Slot::Interrupt)),
        ("__tdata_start", H, Inside(Slot::Tdata, false)),
        (
            "__preinit_array_start",
            H,
            Inside(Slot::PreinitArray, false),
        ),
        ("__preinit_array_end", H, Inside(Slot::PreinitArray, true)),
        ("__init_array_start", H, Inside(Slot::InitArray, false)),
        ("__init_array_end", H, Inside(Slot::InitArray, true)),
        ("__fini_array_start", H, Inside(Slot::FiniArray, false)),
        ("__fini_array_end", H, Inside(Slot::FiniArray, true)),
        ("_edata", A, After(Slot::Data1, DATA_SEGMENT)),
        ("edata", P, After(Slot::Data1, DATA_SEGMENT)),
        ("__bss_start", A, AfterDot(Slot::Data1)),
        ("__stack", P, AfterDot(Slot::NotLoaded)),
        ("_end", A, AfterDot(Slot::NotLoaded)),
        ("end", P, AfterDot(Slot::NotLoaded)),
    ]
};

/// The symbols the link defines, while the sources are assembled a second time: the
/// provided ones record whether a source used them.
#[derive(Debug)]
pub(super) struct LinkerSymbols {
    pub list: heapless::Vec<LinkerSymbol, MAX_LINKER_SYMBOLS>,
    /// Bit `i`: `list[i]` was used (provided symbols are defined only then).
    used: Cell<u64>,
}

/// The section ld's `section_for_dot` gives an assignment at `position`.
fn section_at(outputs: &[OutputSection], position: Position) -> Option<u16> {
    let index = |i: usize| u16::try_from(i).ok();
    let previous = |limit: Slot| {
        let before = outputs
            .iter()
            .rposition(|s| s.slot <= limit && !s.tls)
            .or_else(|| outputs.iter().position(|s| !s.tls));
        before.and_then(index)
    };
    match position {
        Position::Start => outputs.iter().position(|s| !s.tls).and_then(index),
        Position::After(slot, since) => {
            if outputs.iter().any(|s| (since..=slot).contains(&s.slot)) {
                previous(slot)
            } else {
                section_at(outputs, Position::AfterDot(slot))
            }
        }
        Position::AfterDot(slot) => match outputs.iter().position(|s| s.slot > slot) {
            Some(next) if outputs.get(next).is_some_and(|s| !s.tls) => index(next),
            Some(next) => outputs
                .iter()
                .take(next)
                .rposition(|s| !s.tls)
                .and_then(index),
            None => previous(slot),
        },
        // In its own section; with that one dropped, as after the section before (all
        // these follow the data segment's `. = ALIGN(0x80)`).
        Position::Inside(slot, _) => match outputs.iter().position(|s| s.slot == slot) {
            Some(own) => index(own),
            None => section_at(outputs, Position::After(slot, DATA_SEGMENT)),
        },
    }
}

/// `.` after the output sections up to `slot` (in the data segment, at least its start).
fn dot_after(layout: &Layout, outputs: &[OutputSection], slot: Slot) -> u64 {
    let end = outputs
        .iter()
        .filter(|s| s.slot <= slot)
        .map(|s| u64::from(s.address) + u64::from(s.size))
        .max()
        .unwrap_or(0);
    if slot >= DATA_SEGMENT {
        end.max(layout.text_end.next_multiple_of(DATA_ALIGN))
    } else {
        end
    }
}

impl LinkerSymbols {
    /// The script's symbols for a link laid out as `layout`, with `outputs` its output
    /// sections.
    // Not inlined: its locals stay off the stack the passes run on.
    #[inline(never)]
    pub fn script(layout: &Layout, outputs: &[OutputSection]) -> Self {
        let mut list = heapless::Vec::new();
        for (name, how, position) in SCRIPT {
            let value = match position {
                Position::Start => 0,
                Position::After(Slot::Fini, _) => layout.text_dot,
                Position::After(..) | Position::AfterDot(Slot::Data1) => layout.data_dot,
                Position::AfterDot(_) if name == "__stack" => 0x3fff0,
                Position::AfterDot(_) => layout.end_dot,
                Position::Inside(slot, end) => match outputs.iter().find(|s| s.slot == slot) {
                    Some(s) => u64::from(s.address) + if end { u64::from(s.size) } else { 0 },
                    None => dot_after(layout, outputs, slot),
                },
            };
            // A number, not `.`, makes an absolute symbol (`__stack = 0x3fff0`).
            let absolute = name == "__stack";
            let symbol = LinkerSymbol {
                name: SymbolName::new(name).unwrap_or(SymbolName::EMPTY),
                value: value.min(u64::from(u32::MAX)) as u32,
                how,
                section: section_at(outputs, position).filter(|_| !absolute),
                in_output: how == LinkerDefinition::Assigned,
            };
            // Capacity: the script's symbols and the definitions fit by construction.
            let _ = list.push(symbol);
        }
        LinkerSymbols {
            list,
            used: Cell::new(0),
        }
    }

    /// Adds (or replaces) an assigned symbol, as `--defsym` does.
    pub fn assign(&mut self, symbol: LinkerSymbol) -> Result<(), LinkerSymbol> {
        if let Some(known) = self.list.iter_mut().find(|s| s.name == symbol.name) {
            *known = symbol;
            return Ok(());
        }
        self.list.push(symbol)
    }

    /// The value of `name` if the link assigns it (it replaces any source's definition).
    pub fn assigned(&self, name: &str) -> Option<u32> {
        self.list
            .iter()
            .find(|s| s.how == LinkerDefinition::Assigned && s.name == name)
            .map(|s| s.value)
    }

    /// The value of `name` if the script provides it for a source that uses it and finds no
    /// definition: the symbol joins the linked program.
    pub fn provided(&self, name: &str) -> Option<u32> {
        let index = self
            .list
            .iter()
            .position(|s| s.how != LinkerDefinition::Assigned && s.name == name)?;
        self.used.set(self.used.get() | 1 << index);
        self.list.get(index).map(|s| s.value)
    }

    /// The symbols in the linked program: the assigned ones and the provided ones used.
    pub fn into_output(self) -> heapless::Vec<LinkerSymbol, MAX_LINKER_SYMBOLS> {
        let used = self.used.get();
        let mut list = self.list;
        for (index, symbol) in list.iter_mut().enumerate() {
            symbol.in_output |= used & (1 << index) != 0;
        }
        list
    }
}
