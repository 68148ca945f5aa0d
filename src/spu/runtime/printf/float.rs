//! `%f %F %e %E %g %G` as the PS3's PPU C library prints a double: correctly rounded to at most
//! 17 significant digits, then zeros (`%f` of 2^125 prints `42535295865117308000…000.000000`
//! where glibc prints every digit of the exact value); `inf`, `nan` without a sign for NaNs.

use core::fmt::Write as _;

use super::field::{Field, Piece, PrintfSink};
use super::spec::{Conversion, Flags};

/// The most significant digits the C library computes; the rest print as zeros.
pub const SIGNIFICANT_DIGITS: usize = 17;

/// At most 17 decimal digits and the decimal exponent of the first: the value is
/// `0.d1d2… × 10^(exponent + 1)`, that is `d1.d2… × 10^exponent`.
#[derive(Clone, Copy, Debug)]
struct Decimal {
    digits: [u8; SIGNIFICANT_DIGITS],
    len: usize,
    exponent: i32,
}

impl Decimal {
    const ZERO: Decimal = Decimal {
        digits: [b'0'; SIGNIFICANT_DIGITS],
        len: 0,
        exponent: 0,
    };

    fn digits(&self) -> &[u8] {
        &self.digits[..self.len]
    }

    /// `magnitude` (finite, positive) correctly rounded to `significant` digits (1..=17).
    fn rounded(magnitude: f64, significant: usize) -> Decimal {
        let mut text: heapless::String<40> = heapless::String::new();
        // `d.ddde-12`: at most 17 digits, a point, `e` and a 4-character exponent.
        let _ = write!(text, "{:.*e}", significant.saturating_sub(1), magnitude);
        let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
        let mut decimal = Decimal {
            exponent: exponent.parse().unwrap_or(0),
            ..Decimal::ZERO
        };
        for byte in mantissa.bytes().filter(u8::is_ascii_digit) {
            if decimal.len < SIGNIFICANT_DIGITS {
                decimal.digits[decimal.len] = byte;
                decimal.len += 1;
            }
        }
        decimal
    }
}

/// The pieces of a rendered number: integer part, fraction (after the point) and the
/// exponent suffix.
struct Rendered<'a> {
    integer: heapless::Vec<Piece<'a>, 2>,
    point: bool,
    fraction: heapless::Vec<Piece<'a>, 3>,
    exponent: &'a [u8],
}

impl<'a> Rendered<'a> {
    fn new() -> Self {
        Rendered {
            integer: heapless::Vec::new(),
            point: false,
            fraction: heapless::Vec::new(),
            exponent: b"",
        }
    }

    /// `%g` without `#`: trailing zeros of the fraction go, and the point with them when
    /// nothing is left after it.
    fn strip_trailing_zeros(&mut self) {
        while let Some(last) = self.fraction.last_mut() {
            match last {
                Piece::Zeros(_) => {
                    self.fraction.pop();
                }
                Piece::Bytes(bytes) => {
                    let kept = bytes.len() - bytes.iter().rev().take_while(|&&b| b == b'0').count();
                    if kept == 0 {
                        self.fraction.pop();
                    } else {
                        *bytes = &bytes[..kept];
                        break;
                    }
                }
            }
        }
        if self.fraction.is_empty() {
            self.point = false;
        }
    }

    fn pieces(&self) -> heapless::Vec<Piece<'a>, 8> {
        let mut pieces = heapless::Vec::new();
        let _ = pieces.extend_from_slice(&self.integer);
        if self.point {
            let _ = pieces.push(Piece::Bytes(b"."));
        }
        let _ = pieces.extend_from_slice(&self.fraction);
        let _ = pieces.push(Piece::Bytes(self.exponent));
        pieces
    }
}

/// The digits for fixed notation with `precision` decimals: at most 17 significant ones,
/// correctly rounded at the precision when it asks for fewer.
fn fixed_decimal(magnitude: f64, precision: usize) -> Decimal {
    if magnitude == 0.0 {
        return Decimal::ZERO;
    }
    let full = Decimal::rounded(magnitude, SIGNIFICANT_DIGITS);
    let needed = i64::from(full.exponent) + 1 + precision as i64;
    if needed > SIGNIFICANT_DIGITS as i64 {
        return full;
    }
    if needed >= 1 {
        // A carry (9.96 to 2 digits: 10) moves the exponent up; the digit it drops is a zero.
        return Decimal::rounded(magnitude, needed as usize);
    }
    // Below half the last decimal place: zero. Just below one place: it rounds up to it.
    if needed == 0 && full.digits[0] >= b'5' {
        let mut one = Decimal::ZERO;
        one.digits[0] = b'1';
        one.len = 1;
        one.exponent = -(precision as i32);
        return one;
    }
    Decimal::ZERO
}

/// Places `decimal` in fixed notation with `precision` decimals.
fn render_fixed<'a>(decimal: &'a Decimal, precision: usize, alternate: bool) -> Rendered<'a> {
    let digits = decimal.digits();
    let mut rendered = Rendered::new();
    rendered.point = precision > 0 || alternate;
    let exponent = decimal.exponent;
    if digits.is_empty() || exponent < 0 {
        let _ = rendered.integer.push(Piece::Bytes(b"0"));
        let leading = if digits.is_empty() {
            precision
        } else {
            (exponent.unsigned_abs() as usize - 1).min(precision)
        };
        let shown = digits.len().min(precision - leading);
        let _ = rendered.fraction.push(Piece::Zeros(leading));
        let _ = rendered.fraction.push(Piece::Bytes(&digits[..shown]));
        let _ = rendered
            .fraction
            .push(Piece::Zeros(precision - leading - shown));
        return rendered;
    }
    let integer_len = exponent as usize + 1;
    let in_integer = integer_len.min(digits.len());
    let _ = rendered.integer.push(Piece::Bytes(&digits[..in_integer]));
    let _ = rendered
        .integer
        .push(Piece::Zeros(integer_len - in_integer));
    let in_fraction = (digits.len() - in_integer).min(precision);
    let _ = rendered
        .fraction
        .push(Piece::Bytes(&digits[in_integer..in_integer + in_fraction]));
    let _ = rendered
        .fraction
        .push(Piece::Zeros(precision - in_fraction));
    rendered
}

/// The digits for exponent notation with `precision` decimals (`precision + 1` significant).
fn exponent_decimal(magnitude: f64, precision: usize) -> Decimal {
    if magnitude == 0.0 {
        return Decimal::ZERO;
    }
    Decimal::rounded(magnitude, (precision + 1).min(SIGNIFICANT_DIGITS))
}

/// `e+05`, `E-123`: at least two exponent digits.
fn exponent_suffix(exponent: i32, upper: bool, out: &mut [u8; 8]) -> &[u8] {
    let mut text: heapless::String<8> = heapless::String::new();
    let sign = if exponent < 0 { '-' } else { '+' };
    let mark = if upper { 'E' } else { 'e' };
    let _ = write!(text, "{mark}{sign}{:02}", exponent.unsigned_abs());
    let len = text.len();
    out[..len].copy_from_slice(text.as_bytes());
    &out[..len]
}

/// Places `decimal` in exponent notation with `precision` decimals.
fn render_exponent<'a>(
    decimal: &'a Decimal,
    precision: usize,
    alternate: bool,
    suffix: &'a [u8],
) -> Rendered<'a> {
    let digits = decimal.digits();
    let mut rendered = Rendered::new();
    rendered.point = precision > 0 || alternate;
    match digits.split_first() {
        Some((first, rest)) => {
            let _ = rendered
                .integer
                .push(Piece::Bytes(core::slice::from_ref(first)));
            let shown = rest.len().min(precision);
            let _ = rendered.fraction.push(Piece::Bytes(&rest[..shown]));
            let _ = rendered.fraction.push(Piece::Zeros(precision - shown));
        }
        None => {
            let _ = rendered.integer.push(Piece::Bytes(b"0"));
            let _ = rendered.fraction.push(Piece::Zeros(precision));
        }
    }
    rendered.exponent = suffix;
    rendered
}

/// Prints a floating-point conversion of `value` with `precision` (`None`: 6); the bytes
/// written.
pub fn print(
    conversion: Conversion,
    value: f64,
    flags: Flags,
    width: usize,
    precision: Option<usize>,
    sink: &mut dyn PrintfSink,
) -> usize {
    let upper = matches!(
        conversion,
        Conversion::Fixed { upper: true }
            | Conversion::Exponent { upper: true }
            | Conversion::General { upper: true }
    );
    let sign: &[u8] = if value.is_sign_negative() && !value.is_nan() {
        b"-"
    } else if flags.plus {
        b"+"
    } else if flags.space {
        b" "
    } else {
        b""
    };
    if !value.is_finite() {
        let text: &[u8] = match (value.is_nan(), upper) {
            (true, false) => b"nan",
            (true, true) => b"NAN",
            (false, false) => b"inf",
            (false, true) => b"INF",
        };
        let body = [Piece::Bytes(text)];
        return Field {
            sign,
            prefix: b"",
            body: &body,
            zero_padding: false,
        }
        .emit(flags, width, sink);
    }
    let magnitude = value.abs();
    let precision = precision.unwrap_or(6);
    let mut suffix_storage = [0u8; 8];
    let decimal;
    let rendered = match conversion {
        Conversion::Exponent { .. } => {
            decimal = exponent_decimal(magnitude, precision);
            let suffix = exponent_suffix(decimal.exponent, upper, &mut suffix_storage);
            render_exponent(&decimal, precision, flags.alternate, suffix)
        }
        Conversion::General { .. } => {
            let significant = precision.max(1);
            let exponent = if magnitude == 0.0 {
                0
            } else {
                Decimal::rounded(magnitude, significant.min(SIGNIFICANT_DIGITS)).exponent
            };
            let mut rendered = if (significant as i64) > i64::from(exponent) && exponent >= -4 {
                let decimals = (significant as i64 - 1 - i64::from(exponent)) as usize;
                decimal = fixed_decimal(magnitude, decimals);
                render_fixed(&decimal, decimals, flags.alternate)
            } else {
                decimal = exponent_decimal(magnitude, significant - 1);
                let suffix = exponent_suffix(decimal.exponent, upper, &mut suffix_storage);
                render_exponent(&decimal, significant - 1, flags.alternate, suffix)
            };
            if !flags.alternate {
                rendered.strip_trailing_zeros();
            }
            rendered
        }
        _ => {
            decimal = fixed_decimal(magnitude, precision);
            render_fixed(&decimal, precision, flags.alternate)
        }
    };
    let body = rendered.pieces();
    Field {
        sign,
        prefix: b"",
        body: &body,
        zero_padding: true,
    }
    .emit(flags, width, sink)
}
