//! The lane-wise quadword operations a vector unit does in one instruction: adds and
//! subtracts, compares, shifts and rotates by one count for every lane, splats, and the
//! bitwise operations.
//!
//! The interpreter keeps a register as a `u128`. Computed in general registers, a result is
//! stored as two 64-bit halves, and the next instruction's 128-bit vector load of that
//! register cannot take its value from the two stores in flight: on x86-64 the load waits
//! for them to reach the cache (a store-forwarding stall), and on straight-line code, where
//! each instruction reads what the one before wrote, that wait was much of every handler's
//! time. Computed in a vector register, the result is stored and loaded whole; loads and
//! stores between local store and registers copy with one vector load and store ([`copy`])
//! for the same reason.
//!
//! So on x86-64 (whose SSE2 every x86-64 has) these are SSE2's instructions, through the
//! `safe_arch` crate's safe wrappers (the SPU model forbids `unsafe`); elsewhere they are
//! written on the `u128` and its lanes (`portable`), and the compiler picks the host's
//! instructions. The SPU's lanes do not depend on byte order: lane `i` of the host's vector
//! is one of the quadword's lanes, and lane-wise operations treat every lane alike.
//!
//! The SPU's single-precision arithmetic, where a vector unit can do it exactly (registers of
//! ordinary numbers), is here too: `single_precision`.
//!
//! Shift counts are taken whole, as SSE2 takes them: a count of the lane's width or more
//! shifts every bit out (logical shifts give 0, arithmetic ones the sign in every bit).

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(super) use sse2::*;

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(super) use portable::*;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2;

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(super) use single_precision_portable as single_precision;
/// The SPU's single-precision arithmetic on whole registers of ordinary operands, where the
/// host's vector unit does it exactly; `None` sends the caller to its lane-by-lane form.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(super) use single_precision_sse2 as single_precision;

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(super) mod single_precision_portable;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(super) mod single_precision_sse2;

#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
mod portable;

#[cfg(test)]
mod tests;
