//! Immediate fields as the branch, hint and load/store instructions use them. A leaf: the
//! instruction families beside it share it, and `mod.rs` dispatches to them.

/// Byte offset of an I16 word-address field (`imm << 2`).
pub(super) fn word_offset(imm: i32) -> u32 {
    (imm as u32).wrapping_shl(2)
}
