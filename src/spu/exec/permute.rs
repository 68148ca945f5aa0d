//! Whole-quadword permutes: `shufb`, quadword rotates and shifts, insertion controls.
//!
//! Counts are already reduced by the caller to the field width the ISA specifies (for example
//! `rotqby` uses the low 4 bits, `shlqby` the low 5 bits, so a count of 16..31 shifts all bytes
//! out).

use super::quadword::Quadword;

/// `shufb`: each control byte of `control` selects a byte of the 32-byte concatenation
/// `a:b` with its low 5 bits, unless its top bits are `10` (result `0x00`), `110` (`0xff`) or
/// `111` (`0x80`).
pub fn shuffle_bytes(a: Quadword, b: Quadword, control: Quadword) -> Quadword {
    // Branch-free per byte: real controls mix selections and constants unpredictably.
    let a = a.bytes();
    let b = b.bytes();
    let mut sources = [0u8; 32];
    sources[..16].copy_from_slice(&a);
    sources[16..].copy_from_slice(&b);
    // Constants by the selector's bits 6-5 when bit 7 is set: 10x -> 0x00, 110 -> 0xff,
    // 111 -> 0x80.
    const CONSTANTS: [u8; 4] = [0x00, 0x00, 0xff, 0x80];
    let mut out = control.bytes();
    for byte in out.iter_mut() {
        let selector = *byte;
        // Both indices are masked into their tables' bounds, so the lookups cannot panic.
        let selected = sources[usize::from(selector & 0x1f)];
        let constant = CONSTANTS[usize::from((selector >> 5) & 3)];
        *byte = if selector & 0x80 == 0 {
            selected
        } else {
            constant
        };
    }
    Quadword::from_bytes(out)
}

/// Rotates left by `count & 15` bytes (`rotqby`, `rotqbyi`, `rotqbybi`).
pub fn rotate_left_bytes(a: Quadword, count: u32) -> Quadword {
    Quadword(a.0.rotate_left((count & 15) * 8))
}

/// Shifts left by `count` bytes, zero-filling; 16 or more gives zero (`shlqby`...).
pub fn shift_left_bytes(a: Quadword, count: u32) -> Quadword {
    if count >= 16 {
        Quadword::ZERO
    } else {
        Quadword(a.0 << (count * 8))
    }
}

/// Shifts right by `count` bytes, zero-filling; 16 or more gives zero (`rotqmby`...).
pub fn shift_right_bytes(a: Quadword, count: u32) -> Quadword {
    if count >= 16 {
        Quadword::ZERO
    } else {
        Quadword(a.0 >> (count * 8))
    }
}

/// Rotates left by `count & 7` bits (`rotqbi`, `rotqbii`).
pub fn rotate_left_bits(a: Quadword, count: u32) -> Quadword {
    Quadword(a.0.rotate_left(count & 7))
}

/// Shifts left by `count & 7` bits (`shlqbi`, `shlqbii`).
pub fn shift_left_bits(a: Quadword, count: u32) -> Quadword {
    Quadword(a.0 << (count & 7))
}

/// Shifts right by `count & 7` bits (`rotqmbi`, `rotqmbii`).
pub fn shift_right_bits(a: Quadword, count: u32) -> Quadword {
    Quadword(a.0 >> (count & 7))
}

/// Element size for the insertion-control instructions `cbd/chd/cwd/cdd` and their `x` forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertSize {
    /// `cbd`/`cbx`.
    Byte,
    /// `chd`/`chx`.
    Halfword,
    /// `cwd`/`cwx`.
    Word,
    /// `cdd`/`cdx`.
    Doubleword,
}

/// The `shufb` control that inserts the preferred-slot element of one register at byte
/// `address & 15` of another: the identity control `0x10..0x1f` (select from the second
/// operand) with the element's bytes replaced by `0x00, 0x01, ...` of the preferred slot.
pub fn insertion_control(address: u32, size: InsertSize) -> Quadword {
    let mut control = [0u8; 16];
    for (index, byte) in control.iter_mut().enumerate() {
        *byte = 0x10 + index as u8;
    }
    let (alignment_mask, source): (u32, &[u8]) = match size {
        InsertSize::Byte => (0xf, &[0x03]),
        InsertSize::Halfword => (0xe, &[0x02, 0x03]),
        InsertSize::Word => (0xc, &[0x00, 0x01, 0x02, 0x03]),
        InsertSize::Doubleword => (0x8, &[0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07]),
    };
    let start = (address & alignment_mask) as usize;
    for (slot, &value) in control.iter_mut().skip(start).zip(source) {
        *slot = value;
    }
    Quadword::from_bytes(control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insertion_controls_match_the_isa_examples() {
        // cwd with address 4: bytes 4..7 select 00 01 02 03 (preferred word of the source).
        let control = insertion_control(4, InsertSize::Word);
        assert_eq!(
            control.words(),
            [0x1011_1213, 0x0001_0203, 0x1819_1a1b, 0x1c1d_1e1f]
        );
        let control = insertion_control(0xf, InsertSize::Byte);
        assert_eq!(control.bytes()[15], 0x03);
        let control = insertion_control(0x9, InsertSize::Doubleword);
        assert_eq!(control.doublewords()[1], 0x0001_0203_0405_0607);
    }
}
