//! [`Span`]: the bytes a transfer or an access touches, in the local store or main memory.

use core::fmt;

/// A half-open range of byte addresses, `start..end` (empty when `start == end`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Span {
    /// The first byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
}

impl Span {
    /// Nothing.
    pub const EMPTY: Span = Span { start: 0, end: 0 };

    /// `size` bytes from `start`.
    pub const fn at(start: u64, size: u64) -> Span {
        Span {
            start,
            end: start.saturating_add(size),
        }
    }

    /// Whether it holds no byte.
    pub const fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// Whether it shares a byte with `other` (an empty span shares none).
    pub const fn overlaps(&self, other: &Span) -> bool {
        !self.is_empty() && !other.is_empty() && self.start < other.end && other.start < self.end
    }

    /// The smallest span holding both (an empty one adds nothing).
    pub fn union(&self, other: &Span) -> Span {
        if self.is_empty() {
            *other
        } else if other.is_empty() {
            *self
        } else {
            Span {
                start: self.start.min(other.start),
                end: self.end.max(other.end),
            }
        }
    }
}

/// `0x01000..0x01010`: five hex digits, the local store's width, or more as needed.
impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#07x}..{:#07x}", self.start, self.end)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn overlap_is_of_bytes_half_open() {
        let a = Span::at(0x1000, 0x10);
        assert!(a.overlaps(&Span::at(0x100f, 1)));
        assert!(!a.overlaps(&Span::at(0x1010, 0x10)));
        assert!(!a.overlaps(&Span::at(0x0ff0, 0x10)));
        assert!(!a.overlaps(&Span::EMPTY));
        assert!(!Span::at(0x1008, 0).overlaps(&a));
        assert_eq!(
            a.union(&Span::at(0x2000, 4)),
            Span {
                start: 0x1000,
                end: 0x2004
            }
        );
        assert_eq!(Span::EMPTY.union(&a), a);
        assert_eq!(a.to_string(), "0x01000..0x01010");
    }
}
