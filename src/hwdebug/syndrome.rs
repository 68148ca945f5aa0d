//! Decoding the syndrome of debug exceptions (ESR_EL1 ISS, FAR_EL1) and the size of the data
//! access a watchpoint stopped.
//!
//! ISS layouts used (Arm ARM, "ISS encoding for an exception from a Breakpoint or Vector Catch
//! debug exception", "... from a Software Step exception", "... from a Watchpoint exception"):
//! - breakpoint (EC 0x30 lower EL, 0x31 same EL): IFSC \[5:0\] = 0b100010 (debug exception);
//! - software step (EC 0x32 / 0x33): ISV \[24\] says EX is valid; EX \[6\] is 1 when the stepped
//!   instruction was a load-exclusive; IFSC \[5:0\] = 0b100010;
//! - watchpoint (EC 0x34 / 0x35): WnR \[6\] 1 for a write, CM \[8\] 1 for a cache maintenance
//!   instruction, DFSC \[5:0\] = 0b100010; FAR_EL1 holds an address of the access (not
//!   necessarily its first byte: any address from the access that lies in the watched block).
//!   Armv8.0 does not report the access size in the syndrome, so [`data_access_size`] decodes
//!   it from the instruction at ELR_EL1, which is the instruction that made the access
//!   (watchpoint exceptions are taken before the access completes).
//! - `brk #imm16` (EC 0x3C): the immediate in ISS \[15:0\].

use crate::arch::esr::{ExceptionClass, Syndrome};

/// A decoded debug exception.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DebugEvent {
    /// A hardware breakpoint matched the instruction at ELR.
    Breakpoint {
        /// Taken from the same Exception level (EC 0x31) rather than a lower one (0x30).
        same_el: bool,
    },
    /// A software step completed: ELR is the next instruction to step.
    SoftwareStep {
        /// The stepped instruction was a load-exclusive (only meaningful when `ex_valid`).
        load_exclusive: bool,
        /// Whether `load_exclusive` is valid (ISS.ISV).
        ex_valid: bool,
    },
    /// A watchpoint matched a data access by the instruction at ELR.
    Watchpoint {
        /// The access was a write (ISS.WnR).
        write: bool,
        /// The access was made by a cache maintenance instruction (ISS.CM).
        cache_maintenance: bool,
        /// Taken from the same Exception level.
        same_el: bool,
    },
    /// A `brk #imm` instruction.
    Brk {
        /// The instruction's immediate.
        comment: u16,
    },
}

impl DebugEvent {
    /// Decodes ESR_EL1; `None` for an exception class that is not a debug exception.
    pub fn from_esr(esr: u64) -> Option<Self> {
        let syndrome = Syndrome(esr);
        let iss = syndrome.iss();
        let bit = |n: u32| iss & (1 << n) != 0;
        Some(match syndrome.class() {
            ExceptionClass::BreakpointLower => Self::Breakpoint { same_el: false },
            ExceptionClass::BreakpointSame => Self::Breakpoint { same_el: true },
            ExceptionClass::SoftwareStepLower | ExceptionClass::SoftwareStepSame => {
                Self::SoftwareStep {
                    load_exclusive: bit(6),
                    ex_valid: bit(24),
                }
            }
            class @ (ExceptionClass::WatchpointLower | ExceptionClass::WatchpointSame) => {
                Self::Watchpoint {
                    write: bit(6),
                    cache_maintenance: bit(8),
                    same_el: class == ExceptionClass::WatchpointSame,
                }
            }
            ExceptionClass::Brk64 => Self::Brk {
                comment: (iss & 0xFFFF) as u16,
            },
            _ => return None,
        })
    }
}

/// The number of bytes the A64 load/store instruction `word` accesses, for the classes a
/// watchpoint commonly stops: single-register loads and stores (immediate, register offset,
/// unscaled, unprivileged, pre/post-index, literal), pairs, exclusives and atomics, general
/// purpose and SIMD&FP registers. `None` for other instructions (structure loads such as `ld1`,
/// prefetches, non-memory instructions).
pub fn data_access_size(word: u32) -> Option<u32> {
    let bits = |hi: u32, lo: u32| (word >> lo) & ((1 << (hi - lo + 1)) - 1);
    // Loads and stores are the encodings with bit 27 set and bit 25 clear.
    if bits(27, 27) != 1 || bits(25, 25) != 0 {
        return None;
    }
    let size = bits(31, 30);
    let simd = bits(26, 26) == 1;
    // Load/store register (every single-register addressing mode): xx111x0xxx...
    if bits(29, 27) == 0b111 && !is_atomic(word) {
        let opc = bits(23, 22);
        return if simd {
            match (size, opc >> 1) {
                (0, 1) => Some(16),
                (_, 0) => Some(1 << size),
                _ => None,
            }
        } else if size == 0b11 && opc == 0b10 {
            None // PRFM: no data access.
        } else {
            Some(1 << size)
        };
    }
    if bits(29, 27) == 0b111 {
        // Atomic memory operations (LDADD, SWP, ...): one register of 1 << size bytes.
        return (!simd).then_some(1 << size);
    }
    // Load/store register pair (all indexing forms): xx101xxx...
    if bits(29, 27) == 0b101 {
        let opc = size;
        let register_bytes = match (simd, opc) {
            (false, 0b00) | (false, 0b01) => 4,
            (false, 0b10) => 8,
            (true, 0b00) => 4,
            (true, 0b01) => 8,
            (true, 0b10) => 16,
            _ => return None,
        };
        return Some(2 * register_bytes);
    }
    // Load register (literal): xx011x00...
    if bits(29, 27) == 0b011 && bits(24, 24) == 0 {
        return match (simd, size) {
            (false, 0b00) | (false, 0b10) | (true, 0b00) => Some(4),
            (false, 0b01) | (true, 0b01) => Some(8),
            (true, 0b10) => Some(16),
            _ => None, // PRFM (literal).
        };
    }
    // Load/store exclusive and ordered: xx001000...
    if bits(29, 24) == 0b00_1000 {
        let pair = bits(21, 21) == 1 && bits(23, 23) == 0;
        return Some(match (pair, size >= 0b10) {
            // LDXP/STXP/LDAXP/STLXP: two registers of 1 << size bytes.
            (true, true) => 2 << size,
            // CASP/CASPA/...: two W (size 00) or two X (size 01) registers.
            (true, false) => 8 << size,
            (false, _) => 1 << size,
        });
    }
    None
}

/// Whether a word with bits \[29:27\] = 0b111 is an atomic memory operation (bit 24 clear,
/// bit 21 set, bits \[11:10\] = 00) rather than a single-register load or store.
fn is_atomic(word: u32) -> bool {
    let bits = |hi: u32, lo: u32| (word >> lo) & ((1 << (hi - lo + 1)) - 1);
    bits(24, 24) == 0 && bits(21, 21) == 1 && bits(11, 10) == 0
}
