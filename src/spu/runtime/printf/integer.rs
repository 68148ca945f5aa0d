//! `%d %i %u %o %x %X %c %p`: integers as C's printf prints them.

use super::field::{Field, Piece, PrintfSink};
use super::spec::{Conversion, Flags};

/// The digits of `value` in `radix` (8, 10 or 16), most significant first, in `buffer`; the
/// slice holding them (empty for zero: a zero prints as a precision-given digit below).
fn digits(mut value: u64, radix: u64, upper: bool, buffer: &mut [u8; 24]) -> &[u8] {
    let table: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut at = buffer.len();
    while value != 0 {
        at -= 1;
        buffer[at] = table[(value % radix) as usize];
        value /= radix;
    }
    &buffer[at..]
}

/// Prints an integer conversion of `value` (already sign-extended or truncated to its length)
/// with `precision` (`None`: not given); the bytes written.
pub fn print(
    conversion: Conversion,
    value: u64,
    flags: Flags,
    width: usize,
    precision: Option<usize>,
    sink: &mut dyn PrintfSink,
) -> usize {
    let (negative, magnitude, radix, upper) = match conversion {
        Conversion::Signed => {
            let signed = value as i64;
            (signed < 0, signed.unsigned_abs(), 10, false)
        }
        Conversion::Octal => (false, value, 8, false),
        Conversion::Hex { upper } => (false, value, 16, upper),
        Conversion::Pointer => (false, value, 16, false),
        _ => (false, value, 10, false),
    };
    let mut buffer = [0u8; 24];
    let digits = digits(magnitude, radix, upper, &mut buffer);
    // C: the default precision is 1; precision 0 prints no digit for a zero.
    let minimum = precision.unwrap_or(1);
    let mut leading_zeros = minimum.saturating_sub(digits.len());
    if conversion == Conversion::Octal
        && flags.alternate
        && leading_zeros == 0
        && digits.first() != Some(&b'0')
    {
        // `#o`: the first digit is a zero.
        leading_zeros = 1;
    }
    let sign: &[u8] = if negative {
        b"-"
    } else if conversion == Conversion::Signed && flags.plus {
        b"+"
    } else if conversion == Conversion::Signed && flags.space {
        b" "
    } else {
        b""
    };
    let prefix: &[u8] = match conversion {
        Conversion::Hex { upper } if flags.alternate && magnitude != 0 => {
            if upper {
                b"0X"
            } else {
                b"0x"
            }
        }
        Conversion::Pointer => b"0x",
        _ => b"",
    };
    let body = [Piece::Zeros(leading_zeros), Piece::Bytes(digits)];
    Field {
        sign,
        prefix,
        body: &body,
        zero_padding: precision.is_none(),
    }
    .emit(flags, width, sink)
}

/// `%c`: the byte, padded.
pub fn print_char(byte: u8, flags: Flags, width: usize, sink: &mut dyn PrintfSink) -> usize {
    let body = [Piece::Bytes(core::slice::from_ref(&byte))];
    Field {
        sign: b"",
        prefix: b"",
        body: &body,
        zero_padding: false,
    }
    .emit(flags, width, sink)
}
