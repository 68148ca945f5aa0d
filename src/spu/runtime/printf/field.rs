//! A formatted field: sign, prefix and body, padded to its width as C's printf pads.

use super::spec::Flags;

/// Where the formatter's bytes go. A sink may keep only part of them (it counts what it
/// dropped); the formatter never needs them back.
pub trait PrintfSink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);

    /// Appends `count` copies of `byte` (padding; precisions and widths reach a million).
    fn repeat(&mut self, byte: u8, mut count: usize) {
        let chunk = [byte; 64];
        while count > 0 {
            let now = count.min(chunk.len());
            self.put(&chunk[..now]);
            count -= now;
        }
    }
}

/// A piece of a field's body: bytes, or a run of zeros (precisions and the digits past the
/// seventeenth significant one are zeros, and can be many).
#[derive(Clone, Copy, Debug)]
pub enum Piece<'a> {
    /// These bytes.
    Bytes(&'a [u8]),
    /// This many `0`s.
    Zeros(usize),
}

impl Piece<'_> {
    fn len(&self) -> usize {
        match self {
            Piece::Bytes(bytes) => bytes.len(),
            Piece::Zeros(count) => *count,
        }
    }

    fn emit(&self, sink: &mut dyn PrintfSink) {
        match *self {
            Piece::Bytes(bytes) => sink.put(bytes),
            Piece::Zeros(count) => sink.repeat(b'0', count),
        }
    }
}

/// A field to print: `sign` and `prefix` (`0x`) go before any zero padding, `body` after it.
pub struct Field<'a> {
    /// `-`, `+`, a space or nothing.
    pub sign: &'a [u8],
    /// `0x`, `0X` or nothing.
    pub prefix: &'a [u8],
    /// The digits and the rest.
    pub body: &'a [Piece<'a>],
    /// Whether the `0` flag pads this field with zeros (numbers without a precision, finite
    /// floats); otherwise it pads with spaces.
    pub zero_padding: bool,
}

impl Field<'_> {
    /// The bytes the field takes without padding.
    pub fn len(&self) -> usize {
        self.sign.len() + self.prefix.len() + self.body.iter().map(Piece::len).sum::<usize>()
    }

    /// Writes the field padded to `width` as `flags` say; the bytes written.
    pub fn emit(&self, flags: Flags, width: usize, sink: &mut dyn PrintfSink) -> usize {
        let len = self.len();
        let pad = width.saturating_sub(len);
        if pad > 0 && !flags.left && !(flags.zero && self.zero_padding) {
            sink.repeat(b' ', pad);
        }
        sink.put(self.sign);
        sink.put(self.prefix);
        if pad > 0 && !flags.left && flags.zero && self.zero_padding {
            sink.repeat(b'0', pad);
        }
        for piece in self.body {
            piece.emit(sink);
        }
        if pad > 0 && flags.left {
            sink.repeat(b' ', pad);
        }
        len + pad
    }
}
