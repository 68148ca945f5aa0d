//! Event text as perf reads it: a name (any case), or a raw number `r1b` / `0x1b`; an unknown
//! name is refused with the closest known one.
#![forbid(unsafe_code)]

use core::fmt;

use super::core_catalogue::CoreCatalogue;
use crate::pmu::event::Event;

/// Names longer than this get no suggestion: the edit distance keeps one row of this many
/// cells on the stack (the longest name in Arm's data has 34 characters).
pub const SUGGESTION_MAX_LEN: usize = 47;

/// Why event text names no event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseEventError {
    /// The text is empty (or only white space).
    Empty,
    /// `r` or `0x` followed by something that is not a hex number of at most 16 bits
    /// (PMEVTYPER.evtCount is 16 bits wide).
    BadRawNumber,
    /// No event of the core's or the architecture's table has this name; `suggestion` is the
    /// closest name within a few edits, if any.
    UnknownName {
        /// The known name fewest edits away, when it is close enough to be a likely typo.
        suggestion: Option<&'static str>,
    },
}

impl fmt::Display for ParseEventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("empty PMU event text"),
            Self::BadRawNumber => f.write_str(
                "bad raw PMU event number (expected r or 0x and at most four hex digits, as in r1b)",
            ),
            Self::UnknownName {
                suggestion: Some(name),
            } => write!(f, "unknown PMU event name (did you mean {name}?)"),
            Self::UnknownName { suggestion: None } => f.write_str("unknown PMU event name"),
        }
    }
}

impl core::error::Error for ParseEventError {}

/// Reads `text` as perf does for `core`: a name of the core's or the architecture's table,
/// case-insensitive (`inst_retired`), or a raw hex number (`r1b`, `0x1b`, `0X1B`).
///
/// ```
/// use pmprobe::pmu::Event;
/// use pmprobe::pmu::catalogue::{ParseEventError, for_midr, parse_event};
/// let a57 = for_midr(0x411f_d070);
/// assert_eq!(parse_event("l1d_cache_rd", a57), Ok(Event::raw(0x40)));
/// assert_eq!(parse_event("r1b", a57), Ok(Event::INST_SPEC));
/// assert_eq!(
///     parse_event("INST_RETIRD", a57),
///     Err(ParseEventError::UnknownName { suggestion: Some("INST_RETIRED") })
/// );
/// ```
pub fn parse_event(text: &str, core: &CoreCatalogue) -> Result<Event, ParseEventError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ParseEventError::Empty);
    }
    if let Some(entry) = core.find(text) {
        return Ok(Event::raw(entry.number()));
    }
    let raw = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .or_else(|| text.strip_prefix('r'));
    if let Some(digits) = raw {
        // A name that merely starts with r (REMOTE_ACCESS misspelt) is not a raw number.
        if digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return u16::from_str_radix(digits, 16)
                .map(Event::raw)
                .map_err(|_| ParseEventError::BadRawNumber);
        }
        if !text.starts_with('r') {
            return Err(ParseEventError::BadRawNumber);
        }
    }
    Err(ParseEventError::UnknownName {
        suggestion: suggest(text, core),
    })
}

/// The known name fewest edits from `text` (case-insensitive Levenshtein), if within
/// `1 + len / 4` edits of it; ties go to the first name (the core's table before the
/// architecture's, number order within each).
pub fn suggest(text: &str, core: &CoreCatalogue) -> Option<&'static str> {
    let text = text.as_bytes();
    if text.len() > SUGGESTION_MAX_LEN {
        return None;
    }
    let limit = 1 + text.len() / 4;
    let mut best: Option<(usize, &'static str)> = None;
    for name in core.names() {
        let distance = edit_distance(text, name.as_bytes());
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, name));
        }
    }
    best.map(|(_, name)| name)
}

/// Levenshtein distance ignoring ASCII case, in one row; `a` has at most
/// [`SUGGESTION_MAX_LEN`] bytes.
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut row = [0usize; SUGGESTION_MAX_LEN + 1];
    let Some(row) = row.get_mut(..=a.len()) else {
        return usize::MAX;
    };
    for (i, cell) in row.iter_mut().enumerate() {
        *cell = i;
    }
    for (j, &cb) in b.iter().enumerate() {
        let mut diagonal = j;
        let mut left = j + 1;
        for (cell, &ca) in row.iter_mut().skip(1).zip(a) {
            let substitute = diagonal + usize::from(!ca.eq_ignore_ascii_case(&cb));
            let next = substitute.min(*cell + 1).min(left + 1);
            diagonal = *cell;
            *cell = next;
            left = next;
        }
        if let Some(first) = row.first_mut() {
            *first = j + 1;
        }
    }
    row.last().copied().unwrap_or(usize::MAX)
}
