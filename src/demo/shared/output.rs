//! Console helpers: the demo's `out!`/`outln!` (console or a captured section), indented blocks
//! and section headings.
//!
//! # Sections captured per SPU
//! The SPUs run on several cores at once, but their sections must read as if they ran one after
//! the other. So a core running SPU `k` captures everything the demo prints ([`capture`]) into
//! that SPU's section buffer, and the boot core prints the sections in SPU order once every core
//! has finished ([`print_section`]). The choice is per core (a table indexed by the core's
//! number), so each core's output goes to the SPU it is running.

use core::fmt::{self, Write as _};
use core::sync::atomic::{AtomicUsize, Ordering};

use pmprobe::rt::smp::{MAX_CORES, this_core};
use pmprobe::sync::IrqSpinMutex;

/// Prints to the console, or to the section this core is capturing.
macro_rules! out {
    ($($arg:tt)*) => { $crate::demo::shared::output::print(format_args!($($arg)*)) };
}

/// [`out!`] with a newline.
macro_rules! outln {
    () => { $crate::demo::shared::output::print(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::demo::shared::output::print(format_args!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {out, outln};

/// Bytes a section holds (an SPU's section is about 5 KiB).
const SECTION_BYTES: usize = 12 * 1024;
/// Section buffers: one per SPU plan, and one scratch buffer whose text is thrown away.
pub const SECTIONS: usize = 9;
/// The scratch section (the one-core reference runs print into it).
pub const SCRATCH: usize = SECTIONS - 1;

/// A captured section.
struct Section {
    text: heapless::String<SECTION_BYTES>,
    /// Bytes that did not fit.
    lost: usize,
}

impl fmt::Write for Section {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.text.push_str(s).is_err() {
            self.lost += s.len();
        }
        Ok(())
    }
}

static TEXTS: [IrqSpinMutex<Section>; SECTIONS] = [const {
    IrqSpinMutex::new(Section {
        text: heapless::String::new(),
        lost: 0,
    })
}; SECTIONS];

/// Per core: the section it captures into, + 1 (0: the console).
static CAPTURING: [AtomicUsize; MAX_CORES] = [const { AtomicUsize::new(0) }; MAX_CORES];

/// Implementation of [`out!`].
pub fn print(args: fmt::Arguments<'_>) {
    let target = CAPTURING
        .get(this_core().index())
        .map_or(0, |slot| slot.load(Ordering::Relaxed));
    match target.checked_sub(1).and_then(|section| TEXTS.get(section)) {
        Some(section) => section.lock(|section| {
            let _ = section.write_fmt(args);
        }),
        None => pmprobe::print!("{args}"),
    }
}

/// Runs `f` with this core's output going to section `section` (emptied first).
pub fn capture<R>(section: usize, f: impl FnOnce() -> R) -> R {
    if let Some(text) = TEXTS.get(section) {
        text.lock(|text| {
            text.text.clear();
            text.lost = 0;
        });
    }
    let slot = CAPTURING.get(this_core().index());
    if let Some(slot) = slot {
        slot.store(section + 1, Ordering::Relaxed);
    }
    let result = f();
    if let Some(slot) = slot {
        slot.store(0, Ordering::Relaxed);
    }
    result
}

/// Prints section `section` to the console (with a note if some of it did not fit).
pub fn print_section(section: usize) {
    if let Some(text) = TEXTS.get(section) {
        text.lock(|text| {
            pmprobe::print!("{}", text.text);
            if text.lost > 0 {
                pmprobe::println!(
                    "  ({} bytes of this section's output did not fit in its {SECTION_BYTES}-byte buffer)",
                    text.lost
                );
            }
        });
    }
}

/// A `fmt::Write` to the console that starts every line with `prefix` (for blocks printed by
/// library code: prof_cp lines, the statistics block).
pub struct Indented {
    prefix: &'static str,
    at_line_start: bool,
}

impl Indented {
    /// Lines start with `prefix`.
    pub const fn new(prefix: &'static str) -> Self {
        Self {
            prefix,
            at_line_start: true,
        }
    }
}

impl fmt::Write for Indented {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for piece in s.split_inclusive('\n') {
            if self.at_line_start {
                out!("{}", self.prefix);
            }
            out!("{piece}");
            self.at_line_start = piece.ends_with('\n');
        }
        Ok(())
    }
}

/// Prints `== title` after an empty line.
pub fn heading(title: fmt::Arguments<'_>) {
    outln!();
    outln!("== {title}");
}
