//! Console helpers: indented blocks and section headings.

use core::fmt;

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
                pmprobe::print!("{}", self.prefix);
            }
            pmprobe::print!("{piece}");
            self.at_line_start = piece.ends_with('\n');
        }
        Ok(())
    }
}

/// Prints a section heading: a blank line, then `== title`.
pub fn heading(title: fmt::Arguments<'_>) {
    pmprobe::println!();
    pmprobe::println!("== {title}");
}
