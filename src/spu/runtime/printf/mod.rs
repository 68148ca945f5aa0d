//! A C `printf` for SPU programs, formatting on the host side as the PS3's PPU C library and
//! libspe2's PPE-assisted calls do: the format string and the `%s` strings are read from the
//! SPU's local store, the arguments from wherever the calling convention left them
//! ([`PrintfArguments`]), and the text goes to a [`PrintfSink`].
//!
//! Conversions: `%d %i %u %o %x %X %c %s %p %f %F %e %E %g %G %%`, the flags `- + space # 0`,
//! width and precision (written or `*`), and the length modifiers `hh h l ll q j z t L`. The
//! rules that are the PS3's own (LP64 `long`, 17 significant digits) are on [`Length`] and in
//! `float.rs`; `docs/spu-runtimes.md` lists them with their sources.
//!
//! Nothing is read outside the local store (strings stop at its end), no width or precision
//! above [`MAX_AMOUNT`] is taken, and `%n` (which would write the count back into the
//! program) is refused: every refusal is a [`PrintfError`] naming the offset in the format.

mod arguments;
mod error;
mod field;
mod float;
mod integer;
mod spec;
mod text;

pub use arguments::{PrintfArguments, QuadwordArguments, VaListArguments};
pub use error::{MAX_AMOUNT, PrintfError};
pub use field::{Piece, PrintfSink};
pub use float::SIGNIFICANT_DIGITS;
pub use spec::{Amount, Conversion, Flags, Length, Spec};
pub use text::{LsString, Text};

use crate::spu::exec::LocalStore;

/// A width or precision: written, from an argument (a negative width means `-`, a negative
/// precision none), capped at [`MAX_AMOUNT`].
fn resolve(amount: Amount, arguments: &mut dyn PrintfArguments) -> Option<i64> {
    match amount {
        Amount::None => None,
        Amount::Given(value) => Some(i64::from(value)),
        Amount::FromArgument => Some(i64::from(arguments.next_int() as i32)),
    }
}

/// Formats `format` with `arguments`, reading `%s` strings from `local_store`, into `sink`;
/// the number of bytes printed (printf's return value), or the refusal that stopped it.
pub fn format(
    format: &impl Text,
    local_store: &LocalStore,
    arguments: &mut dyn PrintfArguments,
    sink: &mut dyn PrintfSink,
) -> Result<usize, PrintfError> {
    let mut printed = 0usize;
    let mut at = 0usize;
    let mut literal = [0u8; 64];
    let mut literal_len = 0usize;
    let flush = |literal: &[u8], sink: &mut dyn PrintfSink| sink.put(literal);
    while let Some(byte) = format.at(at) {
        if byte != b'%' {
            literal[literal_len] = byte;
            literal_len += 1;
            if literal_len == literal.len() {
                flush(&literal, sink);
                printed += literal_len;
                literal_len = 0;
            }
            at += 1;
            continue;
        }
        flush(&literal[..literal_len], sink);
        printed += literal_len;
        literal_len = 0;
        let (spec, next) = spec::parse(format, at + 1, at)?;
        at = next;
        printed += convert(&spec, local_store, arguments, sink);
    }
    flush(&literal[..literal_len], sink);
    Ok(printed + literal_len)
}

/// One conversion; the bytes it printed.
fn convert(
    spec: &Spec,
    local_store: &LocalStore,
    arguments: &mut dyn PrintfArguments,
    sink: &mut dyn PrintfSink,
) -> usize {
    let mut flags = spec.flags;
    let width = match resolve(spec.width, arguments) {
        Some(width) if width < 0 => {
            flags.left = true;
            width.unsigned_abs().min(u64::from(MAX_AMOUNT)) as usize
        }
        Some(width) => width.min(i64::from(MAX_AMOUNT)) as usize,
        None => 0,
    };
    let precision = match resolve(spec.precision, arguments) {
        Some(precision) if precision >= 0 => Some(precision.min(i64::from(MAX_AMOUNT)) as usize),
        _ => None,
    };
    match spec.conversion {
        Conversion::Percent => {
            sink.put(b"%");
            1
        }
        Conversion::Char => integer::print_char(arguments.next_int() as u8, flags, width, sink),
        Conversion::String => {
            let string = LsString::new(local_store, arguments.next_int());
            let len = string.bytes().count();
            let shown = precision.map_or(len, |precision| precision.min(len));
            print_string(string, shown, flags, width, sink)
        }
        Conversion::Fixed { .. } | Conversion::Exponent { .. } | Conversion::General { .. } => {
            let value = f64::from_bits(arguments.next_long());
            float::print(spec.conversion, value, flags, width, precision, sink)
        }
        Conversion::Pointer => {
            let value = u64::from(arguments.next_int());
            integer::print(spec.conversion, value, flags, width, precision, sink)
        }
        Conversion::Signed | Conversion::Unsigned | Conversion::Octal | Conversion::Hex { .. } => {
            let signed = spec.conversion == Conversion::Signed;
            let value = match spec.length {
                Length::Long if arguments.long_is_eight_bytes() => arguments.next_long(),
                Length::LongLong | Length::LongDouble => arguments.next_long(),
                Length::Int | Length::Long => extend(arguments.next_int(), 32, signed),
                Length::Short => extend(arguments.next_int(), 16, signed),
                Length::Char => extend(arguments.next_int(), 8, signed),
            };
            integer::print(spec.conversion, value, flags, width, precision, sink)
        }
    }
}

/// The low `bits` of `value`, sign- or zero-extended to 64 bits.
fn extend(value: u32, bits: u32, signed: bool) -> u64 {
    let shift = 64 - bits;
    let wide = u64::from(value) << shift;
    if signed {
        ((wide as i64) >> shift) as u64
    } else {
        wide >> shift
    }
}

/// `%s`: the first `shown` bytes of the string, padded.
fn print_string(
    string: LsString<'_>,
    shown: usize,
    flags: Flags,
    width: usize,
    sink: &mut dyn PrintfSink,
) -> usize {
    let pad = width.saturating_sub(shown);
    if !flags.left {
        sink.repeat(b' ', pad);
    }
    let mut chunk = [0u8; 64];
    let mut len = 0;
    for byte in string.bytes().take(shown) {
        chunk[len] = byte;
        len += 1;
        if len == chunk.len() {
            sink.put(&chunk);
            len = 0;
        }
    }
    sink.put(&chunk[..len]);
    if flags.left {
        sink.repeat(b' ', pad);
    }
    shown + pad
}
