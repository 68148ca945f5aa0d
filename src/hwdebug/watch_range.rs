//! Turning an address range into a watchpoint comparator setting (DBGWVR + BAS/MASK).
//!
//! A watchpoint comparator watches either
//! - up to 8 bytes inside one naturally aligned doubleword: DBGWVR holds the doubleword's
//!   address and BAS (byte address select) has bit i set for each watched byte i; pmprobe only
//!   programs contiguous runs of bytes, as the Arm ARM recommends; or
//! - a naturally aligned power-of-two block of 8 bytes to 2 GiB: DBGWCR.MASK holds the number
//!   of low address bits ignored and BAS is 0xFF.
//!
//! Anything else (an empty range, 1..=8 bytes that straddle a doubleword, a larger range that
//! is not a power of two or not aligned to its size) is a typed [`WatchRangeError`].

use core::fmt;

/// The largest block a mask can describe (MASK = 31).
pub const MAX_MASKED_BYTES: u64 = 1 << 31;

/// A range a single watchpoint comparator can watch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct WatchRange {
    address: u64,
    len: u64,
}

/// Why a range cannot be watched by one comparator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WatchRangeError {
    /// A range of 0 bytes.
    Empty,
    /// 1..=8 bytes that do not lie inside one 8-byte-aligned doubleword.
    CrossesDoubleword {
        /// First byte.
        address: u64,
        /// Length in bytes.
        len: u64,
    },
    /// More than 8 bytes, but not a power of two of at most 2 GiB.
    UnsupportedLength {
        /// Length in bytes.
        len: u64,
    },
    /// A power-of-two block larger than 8 bytes whose address is not a multiple of its length.
    Misaligned {
        /// First byte.
        address: u64,
        /// Length in bytes.
        len: u64,
    },
}

impl fmt::Display for WatchRangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("cannot watch an empty range"),
            Self::CrossesDoubleword { address, len } => write!(
                f,
                "{len} bytes at {address:#x} cross an 8-byte boundary (one comparator watches \
                 1-8 bytes inside one aligned doubleword)"
            ),
            Self::UnsupportedLength { len } => write!(
                f,
                "cannot watch {len} bytes with one comparator (1-8 bytes, or a power of two up to 2 GiB)"
            ),
            Self::Misaligned { address, len } => write!(
                f,
                "a {len}-byte watch range must start at a multiple of {len}, not {address:#x}"
            ),
        }
    }
}

impl WatchRange {
    /// Checks that `len` bytes at `address` fit one comparator.
    pub fn new(address: u64, len: u64) -> Result<Self, WatchRangeError> {
        if len == 0 {
            return Err(WatchRangeError::Empty);
        }
        if len <= 8 {
            let offset = address & 7;
            if offset + len > 8 {
                return Err(WatchRangeError::CrossesDoubleword { address, len });
            }
            return Ok(Self { address, len });
        }
        if !len.is_power_of_two() || len > MAX_MASKED_BYTES {
            return Err(WatchRangeError::UnsupportedLength { len });
        }
        if address & (len - 1) != 0 {
            return Err(WatchRangeError::Misaligned { address, len });
        }
        Ok(Self { address, len })
    }

    /// First watched byte.
    pub fn address(&self) -> u64 {
        self.address
    }

    /// Watched bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Always false: an empty range is rejected by [`new`](Self::new).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value for DBGWVR: the doubleword (or block) address.
    pub fn wvr(&self) -> u64 {
        if self.len <= 8 {
            self.address & !7
        } else {
            self.address
        }
    }

    /// The DBGWCR.BAS field: one bit per watched byte of the doubleword (0xFF with a mask).
    pub fn bas(&self) -> u8 {
        if self.len <= 8 {
            // len is 1..=8 and offset + len <= 8, so the shifted mask fits in 8 bits.
            let bytes = (1u16 << self.len) - 1;
            (bytes << (self.address & 7)) as u8
        } else {
            0xFF
        }
    }

    /// The DBGWCR.MASK field: the number of low address bits ignored (0 for BAS ranges).
    pub fn mask(&self) -> u8 {
        if self.len <= 8 {
            0
        } else {
            self.len.trailing_zeros() as u8
        }
    }

    /// Whether an access of `size` bytes at `address` touches a watched byte.
    pub fn overlaps(&self, address: u64, size: u64) -> bool {
        let end = self.address.saturating_add(self.len);
        let access_end = address.saturating_add(size.max(1));
        address < end && self.address < access_end
    }

    /// Whether `address` lies in the naturally aligned block the comparator compares (the
    /// doubleword for BAS ranges): the Arm ARM lets FAR report any address of that block.
    pub fn block_contains(&self, address: u64) -> bool {
        let block = self.len.max(8);
        address & !(block - 1) == self.wvr() & !(block - 1)
    }
}

impl core::error::Error for WatchRangeError {}
