//! Whether a sampled function had stored its frame record at the sampled instruction, from
//! its machine code (AArch64).
//!
//! A frame-pointer walk starts at the interrupted x29. Inside a function that has not set up
//! its own frame record yet (its prologue, before `mov x29, sp`), has already taken it down
//! (at its `ret`), or never sets one up (code built without frame pointers, such as
//! `compiler_builtins`' `memcpy`), x29 is still the caller's record, so the walk skips the
//! caller. The caller's return address is then in the link register, which the firmware
//! records with each sample. This module decides from the function's code when to use it.

/// `mov x29, sp` (an alias of `add x29, sp, #0`) and `add x29, sp, #imm`: the instruction that
/// makes x29 point at the new frame record. Mask out imm12 (bits 21:10).
const SET_FP_MASK: u32 = 0xFFC0_03FF;
const SET_FP: u32 = 0x9100_03FD;
/// `ret` (to x30).
const RET: u32 = 0xD65F_03C0;
/// Instructions of the prologue searched for the frame set-up.
const PROLOGUE: usize = 16;

/// `code` is the function's machine code from its first instruction, `offset` the sampled
/// instruction's byte offset in it. `true` when x29 points at the function's own frame record
/// there; `false` when the caller is in the link register instead.
pub fn record_established(code: &[u8], offset: usize) -> bool {
    let word = |at: usize| {
        code.get(at..at + 4)
            .map(|bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    };
    if word(offset) == Some(RET) {
        return false;
    }
    let set_up = (0..PROLOGUE)
        .map(|i| i * 4)
        .find(|&at| word(at).is_some_and(|w| w & SET_FP_MASK == SET_FP));
    match set_up {
        Some(at) => offset > at,
        None => false,
    }
}
