//! A counter's arithmetic: adding to it and the increments left before it overflows, at 32
//! or 64 bits.
#![forbid(unsafe_code)]

use crate::pmu::regs::COUNTER_32_MAX;

/// Adds `n` to a counter; overflow is an unsigned wrap of bits \[31:0\] (or \[63:0\] when `long`).
/// The stored value is 64 bits either way (bits above 31 of a 32-bit counter are cut by the
/// caller), as the Arm ARM describes for PMCCNTR with LC = 0 and PMEVCNTR with LP = 0.
pub(super) fn advance(value: u64, n: u64, long: bool) -> (u64, bool) {
    let new = value.wrapping_add(n);
    let overflowed = if long {
        u128::from(value) + u128::from(n) > u128::from(u64::MAX)
    } else {
        u128::from(value & COUNTER_32_MAX) + u128::from(n) > u128::from(COUNTER_32_MAX)
    };
    (new, overflowed)
}

/// Increments left before the counter overflows.
pub(super) fn steps_to_overflow(value: u64, long: bool) -> u64 {
    if long {
        (u64::MAX - value).saturating_add(1)
    } else {
        COUNTER_32_MAX + 1 - (value & COUNTER_32_MAX)
    }
}
