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

mod field;
mod float;
mod integer;
mod spec;

pub use field::{Piece, PrintfSink};
pub use float::SIGNIFICANT_DIGITS;
pub use spec::{Amount, Conversion, Flags, Length, MAX_AMOUNT, Spec};

use crate::spu::exec::{LS_SIZE, LocalStore};

/// Text the format parser reads byte by byte: a format string in the local store, or bytes.
pub trait Text {
    /// The byte at `index`, or `None` past the end of the text.
    fn at(&self, index: usize) -> Option<u8>;
}

impl Text for [u8] {
    fn at(&self, index: usize) -> Option<u8> {
        self.get(index).copied()
    }
}

/// A NUL-terminated string in the local store, from `start` up to its NUL or the end of the
/// local store (no wrap-around: an unterminated string ends there).
#[derive(Clone, Copy)]
pub struct LsString<'a> {
    local_store: &'a LocalStore,
    start: u32,
}

impl<'a> LsString<'a> {
    /// The string at LS address `start` (wrapped into the local store).
    pub fn new(local_store: &'a LocalStore, start: u32) -> Self {
        LsString {
            local_store,
            start: start % LS_SIZE,
        }
    }

    /// The string's bytes, without the NUL.
    pub fn bytes(self) -> impl Iterator<Item = u8> + 'a {
        (self.start..LS_SIZE)
            .map(move |address| self.local_store.load_byte(address))
            .take_while(|&byte| byte != 0)
    }
}

impl Text for LsString<'_> {
    fn at(&self, index: usize) -> Option<u8> {
        let address = u32::try_from(index).ok()?.checked_add(self.start)?;
        if address >= LS_SIZE {
            return None;
        }
        Some(self.local_store.load_byte(address)).filter(|&byte| byte != 0)
    }
}

/// Where the variadic arguments come from, one at a time, in the caller's convention.
pub trait PrintfArguments {
    /// The next `int`-sized argument (`%d`, `%c`, `%s`'s pointer, a `*` width).
    fn next_int(&mut self) -> u32;
    /// The next 8-byte argument (`%ll…`, a `double`).
    fn next_long(&mut self) -> u64;
    /// Whether `%l…` reads 8 bytes (the PS3's 64-bit PPU C library) or 4 (libspe2, whose
    /// handler parses `l` as an `int`).
    fn long_is_eight_bytes(&self) -> bool;
}

/// The PS3 SDK's `spu_printf` convention: one quadword per argument, from an LS address on
/// (the format pointer's quadword is the first, then the arguments); an `int` is the
/// quadword's bytes 0..4, an 8-byte argument its bytes 0..8. Past the fifteenth argument the
/// quadwords continue into the caller's stack frame, as the PPU's server reads them.
#[derive(Clone, Copy)]
pub struct QuadwordArguments<'a> {
    local_store: &'a LocalStore,
    next: u32,
}

impl<'a> QuadwordArguments<'a> {
    /// Arguments from the quadword at `address` on.
    pub fn new(local_store: &'a LocalStore, address: u32) -> Self {
        QuadwordArguments {
            local_store,
            next: address,
        }
    }

    fn take(&mut self) -> [u32; 4] {
        let words = self.local_store.load_quadword(self.next).words();
        self.next = self.next.wrapping_add(16) % LS_SIZE;
        words
    }
}

impl PrintfArguments for QuadwordArguments<'_> {
    fn next_int(&mut self) -> u32 {
        self.take()[0]
    }

    fn next_long(&mut self) -> u64 {
        let words = self.take();
        (u64::from(words[0]) << 32) | u64::from(words[1])
    }

    fn long_is_eight_bytes(&self) -> bool {
        true
    }
}

/// An SPU `va_list` as GCC builds it and libspe2's handlers walk it: 16 bytes per argument
/// from `next` on, and when `next` reaches `caller_stack` (the caller's frame: its back chain
/// and link-register quadwords) the walk skips those 32 bytes to the arguments passed on the
/// stack.
#[derive(Clone, Copy)]
pub struct VaListArguments<'a> {
    local_store: &'a LocalStore,
    next: u32,
    caller_stack: u32,
}

impl<'a> VaListArguments<'a> {
    /// The `va_list` stored at LS address `address` (bytes 0..4 the next argument's address,
    /// bytes 16..20 the caller's stack).
    pub fn at(local_store: &'a LocalStore, address: u32) -> Self {
        VaListArguments {
            local_store,
            next: local_store.load_word(address) % LS_SIZE,
            caller_stack: local_store.load_word(address.wrapping_add(16)) % LS_SIZE,
        }
    }

    fn take(&mut self) -> [u32; 4] {
        let words = self.local_store.load_quadword(self.next).words();
        self.next = self.next.wrapping_add(16) % LS_SIZE;
        if self.next == self.caller_stack {
            self.next = self.next.wrapping_add(32) % LS_SIZE;
        }
        words
    }
}

impl PrintfArguments for VaListArguments<'_> {
    fn next_int(&mut self) -> u32 {
        self.take()[0]
    }

    fn next_long(&mut self) -> u64 {
        let words = self.take();
        (u64::from(words[0]) << 32) | u64::from(words[1])
    }

    fn long_is_eight_bytes(&self) -> bool {
        false
    }
}

/// Why a format could not be printed (what came before the refusal was printed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PrintfError {
    /// The format ends inside a conversion (`"%"`, `"%-5"`).
    UnfinishedConversion {
        /// Offset of the `%` in the format.
        offset: usize,
    },
    /// A conversion this printf does not have (`%n`, `%a`, a typo).
    UnsupportedConversion {
        /// Offset of the `%` in the format.
        offset: usize,
        /// The conversion character.
        conversion: u8,
    },
    /// A width or precision above [`MAX_AMOUNT`].
    AmountTooLarge {
        /// Offset of the `%` in the format.
        offset: usize,
    },
}

impl core::fmt::Display for PrintfError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            PrintfError::UnfinishedConversion { offset } => {
                write!(
                    f,
                    "the format ends inside the conversion at offset {offset}"
                )
            }
            PrintfError::UnsupportedConversion { offset, conversion } => write!(
                f,
                "unsupported conversion `%{}` at offset {offset}",
                conversion.escape_ascii()
            ),
            PrintfError::AmountTooLarge { offset } => write!(
                f,
                "a width or precision above {MAX_AMOUNT} at offset {offset}"
            ),
        }
    }
}

impl core::error::Error for PrintfError {}

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
