//! Word and halfword shifts and rotates (the FX3 class), as pure element functions.
//!
//! Count rules of the SPU ISA, per element:
//! - `shl`/`shlh`: count = low 6 (word) or 5 (halfword) bits; a count >= the width gives 0.
//! - `rot`/`roth`: count modulo the width.
//! - `rotm`/`rothm` (logical right): count = `(-b)` masked to 6 or 5 bits; >= width gives 0.
//! - `rotma`/`rotmah` (arithmetic right): like `rotm`, but >= width fills with the sign bit.
//!
//! The immediate forms (`shli`, `roti`, `rotmi`, ...) pass the sign-extended I7 field as `b`.

/// `shl`/`shli` element.
pub fn shift_left_word(value: u32, count: u32) -> u32 {
    let count = count & 0x3f;
    if count >= 32 { 0 } else { value << count }
}

/// `rot`/`roti` element.
pub fn rotate_word(value: u32, count: u32) -> u32 {
    value.rotate_left(count & 0x1f)
}

/// `rotm`/`rotmi` element: logical right shift by `(-count) & 0x3f`.
pub fn rotate_and_mask_word(value: u32, count: u32) -> u32 {
    let shift = count.wrapping_neg() & 0x3f;
    if shift >= 32 { 0 } else { value >> shift }
}

/// `rotma`/`rotmai` element: arithmetic right shift by `(-count) & 0x3f`.
pub fn rotate_and_mask_algebraic_word(value: u32, count: u32) -> u32 {
    let shift = count.wrapping_neg() & 0x3f;
    ((value as i32) >> shift.min(31)) as u32
}

/// `shlh`/`shlhi` element.
pub fn shift_left_halfword(value: u16, count: u16) -> u16 {
    let count = count & 0x1f;
    if count >= 16 { 0 } else { value << count }
}

/// `roth`/`rothi` element.
pub fn rotate_halfword(value: u16, count: u16) -> u16 {
    value.rotate_left(u32::from(count & 0xf))
}

/// `rothm`/`rothmi` element: logical right shift by `(-count) & 0x1f`.
pub fn rotate_and_mask_halfword(value: u16, count: u16) -> u16 {
    let shift = count.wrapping_neg() & 0x1f;
    if shift >= 16 { 0 } else { value >> shift }
}

/// `rotmah`/`rotmahi` element: arithmetic right shift by `(-count) & 0x1f`.
pub fn rotate_and_mask_algebraic_halfword(value: u16, count: u16) -> u16 {
    let shift = count.wrapping_neg() & 0x1f;
    ((value as i16) >> shift.min(15)) as u16
}
