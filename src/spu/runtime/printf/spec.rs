//! One conversion specification of a C format string: `%[flags][width][.precision][length]conv`.

use super::error::{MAX_AMOUNT, PrintfError};
use super::text::Text;

/// The flags of a conversion (`-`, `+`, space, `#`, `0`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// `-`: pad on the right.
    pub left: bool,
    /// `+`: a sign on non-negative numbers.
    pub plus: bool,
    /// space: a space where a `+` would go.
    pub space: bool,
    /// `#`: the alternative form (`0x`, a leading `0`, the decimal point kept).
    pub alternate: bool,
    /// `0`: pad numbers with zeros.
    pub zero: bool,
}

/// Where a width or a precision comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    /// Not given.
    None,
    /// Written in the format.
    Given(u32),
    /// `*`: the next argument.
    FromArgument,
}

/// A length modifier: how many bytes of argument the conversion reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// None: an `int` (4 bytes).
    Int,
    /// `hh`: the `int` converted to a `char`.
    Char,
    /// `h`: the `int` converted to a `short`.
    Short,
    /// `l`, `z`, `t`: a `long`, 8 bytes on the PS3's PPU, 4 in libspe2's handler (see
    /// [`PrintfArguments::long_is_eight_bytes`](super::PrintfArguments::long_is_eight_bytes)).
    Long,
    /// `ll`, `q`, `j`: 8 bytes.
    LongLong,
    /// `L`: `long double` (8 bytes on the PPU).
    LongDouble,
}

/// The conversion character, by what it prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// `d`, `i`.
    Signed,
    /// `u`.
    Unsigned,
    /// `o`.
    Octal,
    /// `x` (`upper` false) or `X`.
    Hex {
        /// `X`.
        upper: bool,
    },
    /// `c`.
    Char,
    /// `s`.
    String,
    /// `p`.
    Pointer,
    /// `f`/`F`.
    Fixed {
        /// `F`.
        upper: bool,
    },
    /// `e`/`E`.
    Exponent {
        /// `E`.
        upper: bool,
    },
    /// `g`/`G`.
    General {
        /// `G`.
        upper: bool,
    },
    /// `%%`.
    Percent,
}

/// A parsed conversion specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// Flags.
    pub flags: Flags,
    /// Minimum field width.
    pub width: Amount,
    /// Precision.
    pub precision: Amount,
    /// Length modifier.
    pub length: Length,
    /// Conversion.
    pub conversion: Conversion,
}

/// Parses the specification after a `%` in `format`, starting at `start` (the byte after the
/// `%`); the spec and the index after it. `offset` is the position of the `%`, for errors.
pub fn parse(
    format: &impl Text,
    start: usize,
    offset: usize,
) -> Result<(Spec, usize), PrintfError> {
    let mut at = start;
    let mut flags = Flags::default();
    while let Some(byte) = format.at(at) {
        match byte {
            b'-' => flags.left = true,
            b'+' => flags.plus = true,
            b' ' => flags.space = true,
            b'#' => flags.alternate = true,
            b'0' => flags.zero = true,
            _ => break,
        }
        at += 1;
    }
    let (width, next) = amount(format, at, offset)?;
    at = next;
    let mut precision = Amount::None;
    if format.at(at) == Some(b'.') {
        let (given, next) = amount(format, at + 1, offset)?;
        // `%.d` is precision 0.
        precision = match given {
            Amount::None => Amount::Given(0),
            other => other,
        };
        at = next;
    }
    let (length, next) = length(format, at);
    at = next;
    let Some(byte) = format.at(at) else {
        return Err(PrintfError::UnfinishedConversion { offset });
    };
    let conversion = match byte {
        b'd' | b'i' => Conversion::Signed,
        b'u' => Conversion::Unsigned,
        b'o' => Conversion::Octal,
        b'x' | b'X' => Conversion::Hex {
            upper: byte == b'X',
        },
        b'c' => Conversion::Char,
        b's' => Conversion::String,
        b'p' => Conversion::Pointer,
        b'f' | b'F' => Conversion::Fixed {
            upper: byte == b'F',
        },
        b'e' | b'E' => Conversion::Exponent {
            upper: byte == b'E',
        },
        b'g' | b'G' => Conversion::General {
            upper: byte == b'G',
        },
        b'%' => Conversion::Percent,
        other => {
            return Err(PrintfError::UnsupportedConversion {
                offset,
                conversion: other,
            });
        }
    };
    Ok((
        Spec {
            flags,
            width,
            precision,
            length,
            conversion,
        },
        at + 1,
    ))
}

fn amount(
    format: &impl Text,
    mut at: usize,
    offset: usize,
) -> Result<(Amount, usize), PrintfError> {
    if format.at(at) == Some(b'*') {
        return Ok((Amount::FromArgument, at + 1));
    }
    let mut value: Option<u32> = None;
    while let Some(byte) = format.at(at) {
        if !byte.is_ascii_digit() {
            break;
        }
        let digit = u32::from(byte - b'0');
        let next = value.unwrap_or(0).saturating_mul(10).saturating_add(digit);
        if next > MAX_AMOUNT {
            return Err(PrintfError::AmountTooLarge { offset });
        }
        value = Some(next);
        at += 1;
    }
    Ok((value.map_or(Amount::None, Amount::Given), at))
}

fn length(format: &impl Text, at: usize) -> (Length, usize) {
    match (format.at(at), format.at(at + 1)) {
        (Some(b'h'), Some(b'h')) => (Length::Char, at + 2),
        (Some(b'l'), Some(b'l')) => (Length::LongLong, at + 2),
        (Some(b'h'), _) => (Length::Short, at + 1),
        (Some(b'q' | b'j'), _) => (Length::LongLong, at + 1),
        (Some(b'l' | b'z' | b't'), _) => (Length::Long, at + 1),
        (Some(b'L'), _) => (Length::LongDouble, at + 1),
        _ => (Length::Int, at),
    }
}
