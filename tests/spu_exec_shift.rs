//! Shifts, rotates, shuffles and insertion controls, with counts at and beyond the element
//! width. Expected values are worked out from the SPU ISA definitions.

mod spu_exec_support;

use pmprobe::spu::isa::Mnemonic as M;
use spu_exec_support::*;

#[test]
fn word_shift_left_counts_at_and_beyond_32() {
    let mut h = Harness::new();
    h.set(4, [1, 1, 1, 1]);
    h.set(5, [31, 32, 63, 64]);
    h.exec(rr(M::Shl, 3, 4, 5));
    // Count = low 6 bits; >= 32 gives 0; 64 & 0x3f = 0 leaves the value.
    assert_eq!(h.get(3), [0x8000_0000, 0, 0, 1]);
    h.exec(ri7(M::Shli, 3, 4, 33));
    assert_eq!(h.get(3), [0; 4]);
    h.exec(ri7(M::Shli, 3, 4, 4));
    assert_eq!(h.get(3), [16; 4]);
}

#[test]
fn word_rotates_use_the_count_modulo_32() {
    let mut h = Harness::new();
    h.set(4, [0x8000_0001; 4]);
    h.set(5, [1, 33, 32, 0]);
    h.exec(rr(M::Rot, 3, 4, 5));
    assert_eq!(h.get(3), [3, 3, 0x8000_0001, 0x8000_0001]);
    h.exec(ri7(M::Roti, 3, 4, -1));
    // -1 & 31 = 31: rotate left 31 = rotate right 1.
    assert_eq!(h.get(3), [0xc000_0000; 4]);
}

#[test]
fn word_rotate_and_mask_shift_right_by_the_negated_count() {
    let mut h = Harness::new();
    h.set(4, [0x8000_0000; 4]);
    h.set(5, [(-4i32) as u32, (-32i32) as u32, 0, (-33i32) as u32]);
    h.exec(rr(M::Rotm, 3, 4, 5));
    assert_eq!(h.get(3), [0x0800_0000, 0, 0x8000_0000, 0]);
    h.exec(rr(M::Rotma, 3, 4, 5));
    assert_eq!(
        h.get(3),
        [0xf800_0000, 0xffff_ffff, 0x8000_0000, 0xffff_ffff]
    );
    h.exec(ri7(M::Rotmi, 3, 4, -4));
    assert_eq!(h.get(3), [0x0800_0000; 4]);
    h.exec(ri7(M::Rotmai, 3, 4, -40));
    assert_eq!(
        h.get(3),
        [0xffff_ffff; 4],
        "shift >= 32 fills with the sign"
    );
    h.set(4, [0x4000_0000; 4]);
    h.exec(ri7(M::Rotmai, 3, 4, -40));
    assert_eq!(h.get(3), [0; 4]);
}

#[test]
fn halfword_shifts_and_rotates() {
    let mut h = Harness::new();
    h.set(4, [0x0001_0001; 4]);
    h.set(5, [0x000f_0010, 0x001f_0020, 0, 0]);
    h.exec(rr(M::Shlh, 3, 4, 5));
    // Counts 15, 16, 31, 32: 1<<15, 0, 0, 32 & 0x1f = 0 -> 1.
    assert_eq!(
        h.get(3),
        [0x8000_0000, 0x0000_0001, 0x0001_0001, 0x0001_0001]
    );
    h.exec(ri7(M::Shlhi, 3, 4, 16));
    assert_eq!(h.get(3), [0; 4]);

    h.set(4, [0x8001_8001; 4]);
    h.set(5, [0x0011_0000, 0, 0, 0]);
    h.exec(rr(M::Roth, 3, 4, 5));
    assert_eq!(h.get(3)[0], 0x0003_8001, "17 & 15 = 1");
    h.exec(ri7(M::Rothi, 3, 4, 4));
    assert_eq!(h.get(3), [0x0018_0018; 4]);

    h.set(4, [0x8000_8000; 4]);
    h.set(5, [0xfffd_fff0, 0xfff1_0000, 0, 0]);
    h.exec(rr(M::Rothm, 3, 4, 5));
    // -3 -> >>3; -16 -> >>16 = 0; -15 -> >>15; 0 -> unchanged.
    assert_eq!(h.get(3)[0], 0x1000_0000);
    assert_eq!(h.get(3)[1], 0x0001_8000);
    h.exec(rr(M::Rotmah, 3, 4, 5));
    assert_eq!(h.get(3)[0], 0xf000_ffff);
    assert_eq!(h.get(3)[1], 0xffff_8000);
    h.exec(ri7(M::Rothmi, 3, 4, -1));
    assert_eq!(h.get(3), [0x4000_4000; 4]);
    h.exec(ri7(M::Rotmahi, 3, 4, -1));
    assert_eq!(h.get(3), [0xc000_c000; 4]);
}

#[test]
fn quadword_byte_rotates_and_shifts() {
    let mut h = Harness::new();
    h.set_bytes(4, sequence(0));
    let rotated_by_one = {
        let mut b = sequence(1);
        b[15] = 0;
        b
    };
    h.set(5, [17, 0, 0, 0]);
    h.exec(rr(M::Rotqby, 3, 4, 5));
    assert_eq!(h.get_bytes(3), rotated_by_one, "17 & 15 = 1 byte");
    h.exec(ri7(M::Rotqbyi, 3, 4, 1));
    assert_eq!(h.get_bytes(3), rotated_by_one);

    h.set(5, [1, 0, 0, 0]);
    h.exec(rr(M::Shlqby, 3, 4, 5));
    let mut shifted_left = sequence(1);
    shifted_left[15] = 0;
    assert_eq!(h.get_bytes(3), shifted_left);
    for count in [16, 31] {
        h.set(5, [count, 0, 0, 0]);
        h.exec(rr(M::Shlqby, 3, 4, 5));
        assert_eq!(h.get_bytes(3), [0; 16], "shlqby by {count}");
    }
    h.set(5, [32, 0, 0, 0]);
    h.exec(rr(M::Shlqby, 3, 4, 5));
    assert_eq!(h.get_bytes(3), sequence(0), "32 & 0x1f = 0");
    h.exec(ri7(M::Shlqbyi, 3, 4, 4));
    assert_eq!(h.get(3), [0x0405_0607, 0x0809_0a0b, 0x0c0d_0e0f, 0]);

    // rotqmby: shift right by (-count) & 0x1f bytes.
    h.set(5, [0xffff_ffff, 0, 0, 0]);
    h.exec(rr(M::Rotqmby, 3, 4, 5));
    assert_eq!(
        h.get(3),
        [0x0000_0102, 0x0304_0506, 0x0708_090a, 0x0b0c_0d0e]
    );
    h.set(5, [(-16i32) as u32, 0, 0, 0]);
    h.exec(rr(M::Rotqmby, 3, 4, 5));
    assert_eq!(h.get(3), [0; 4]);
    h.exec(ri7(M::Rotqmbyi, 3, 4, -3));
    assert_eq!(
        h.get(3),
        [0x0000_0000, 0x0102_0304, 0x0506_0708, 0x090a_0b0c]
    );
    h.exec(ri7(M::Rotqmbyi, 3, 4, -20));
    assert_eq!(h.get(3), [0; 4]);
}

#[test]
fn quadword_byte_shifts_counted_in_bits() {
    let mut h = Harness::new();
    h.set_bytes(4, sequence(0));
    // rotqbybi: byte count = bits 24-28 of the preferred word & 15.
    h.set(5, [8, 0, 0, 0]);
    h.exec(rr(M::Rotqbybi, 3, 4, 5));
    assert_eq!(
        h.get(3),
        [0x0102_0304, 0x0506_0708, 0x090a_0b0c, 0x0d0e_0f00]
    );
    h.set(5, [0x87, 0, 0, 0]);
    h.exec(rr(M::Rotqbybi, 3, 4, 5));
    assert_eq!(h.get_bytes(3), sequence(0), "0x87 >> 3 = 16, & 15 = 0");
    h.set(5, [0x80, 0, 0, 0]);
    h.exec(rr(M::Shlqbybi, 3, 4, 5));
    assert_eq!(h.get(3), [0; 4], "16 bytes shift everything out");
    h.set(5, [(-8i32) as u32, 0, 0, 0]);
    h.exec(rr(M::Rotqmbybi, 3, 4, 5));
    assert_eq!(
        h.get(3),
        [0x0000_0102, 0x0304_0506, 0x0708_090a, 0x0b0c_0d0e]
    );
}

#[test]
fn quadword_bit_rotates_and_shifts() {
    let mut h = Harness::new();
    h.set(4, [0x8000_0000, 0, 0, 1]);
    h.set(5, [11, 0, 0, 0]);
    h.exec(rr(M::Rotqbi, 3, 4, 5));
    // 11 & 7 = 3: bit 127 -> bit 2, bit 0 -> bit 3.
    assert_eq!(h.get(3), [0, 0, 0, 0xc]);
    h.exec(ri7(M::Rotqbii, 3, 4, 3));
    assert_eq!(h.get(3), [0, 0, 0, 0xc]);
    h.set(5, [1, 0, 0, 0]);
    h.exec(rr(M::Shlqbi, 3, 4, 5));
    assert_eq!(h.get(3), [0, 0, 0, 2]);
    h.exec(ri7(M::Shlqbii, 3, 4, 9));
    assert_eq!(h.get(3), [0, 0, 0, 2], "9 & 7 = 1");
    h.set(5, [0xffff_ffff, 0, 0, 0]);
    h.exec(rr(M::Rotqmbi, 3, 4, 5));
    assert_eq!(h.get(3), [0x4000_0000, 0, 0, 0]);
    h.exec(ri7(M::Rotqmbii, 3, 4, -7));
    assert_eq!(h.get(3), [0x0100_0000, 0, 0, 0]);
}

#[test]
fn shufb_control_bytes_including_the_constant_forms() {
    let mut h = Harness::new();
    h.set_bytes(4, sequence(0xa0));
    h.set_bytes(5, sequence(0xb0));
    h.set_bytes(
        6,
        [
            0x00, 0x1f, 0x80, 0xbf, 0xc0, 0xdf, 0xe0, 0xff, 0x10, 0x0f, 0x05, 0x25, 0x3f, 0x40,
            0x7e, 0xa0,
        ],
    );
    h.exec(rrr(M::Shufb, 3, 4, 5, 6));
    assert_eq!(
        h.get_bytes(3),
        [
            0xa0, 0xbf, // select a[0], b[15]
            0x00, 0x00, // 10xxxxxx -> 0x00
            0xff, 0xff, // 110xxxxx -> 0xff
            0x80, 0x80, // 111xxxxx -> 0x80
            0xb0, 0xaf, 0xa5, 0xa5, // bits 5-6 are ignored when bit 7 is clear
            0xbf, 0xa0, 0xbe, 0x00,
        ]
    );
}

#[test]
fn insertion_controls_and_a_word_insert() {
    let mut h = Harness::new();
    h.set(4, [0x10, 0, 0, 0]);
    h.exec(ri7(M::Cbd, 3, 4, 5));
    let mut expected = sequence(0x10);
    expected[5] = 0x03;
    assert_eq!(h.get_bytes(3), expected);
    h.exec(ri7(M::Chd, 3, 4, 7));
    let mut expected = sequence(0x10);
    expected[6] = 0x02;
    expected[7] = 0x03;
    assert_eq!(h.get_bytes(3), expected);
    h.exec(ri7(M::Cwd, 3, 4, 6));
    assert_eq!(
        h.get(3),
        [0x1011_1213, 0x0001_0203, 0x1819_1a1b, 0x1c1d_1e1f]
    );
    h.exec(ri7(M::Cdd, 3, 4, 0xc));
    assert_eq!(
        h.get(3),
        [0x1011_1213, 0x1415_1617, 0x0001_0203, 0x0405_0607]
    );
    h.set(5, [0x3ff08, 0, 0, 0]);
    h.exec(rr(M::Cwx, 3, 4, 5));
    // (0x10 + 0x3ff08) & 0xc = 8 -> word slot 2.
    assert_eq!(
        h.get(3),
        [0x1011_1213, 0x1415_1617, 0x0001_0203, 0x1c1d_1e1f]
    );
    h.exec(rr(M::Cbx, 3, 4, 5));
    assert_eq!(h.get_bytes(3)[8], 0x03);
    h.exec(rr(M::Chx, 3, 4, 5));
    assert_eq!(h.get_halfwords(3)[4], 0x0203);
    h.exec(rr(M::Cdx, 3, 4, 5));
    assert_eq!(
        h.get(3),
        [0x1011_1213, 0x1415_1617, 0x0001_0203, 0x0405_0607]
    );

    // Insert $7's preferred word into word 2 of $8 as compiled code does.
    h.set(0, [0; 4]);
    h.exec(ri7(M::Cwd, 9, 0, 8));
    h.set(7, [0xdead_beef, 0x1111_1111, 0, 0]);
    h.set(8, [1, 2, 3, 4]);
    h.exec(rrr(M::Shufb, 10, 7, 8, 9));
    assert_eq!(h.get(10), [1, 2, 0xdead_beef, 4]);
}
