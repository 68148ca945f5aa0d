//! Each operation of both implementations against its lane-by-lane definition (the SPU
//! ISA's element operations, written here on the lanes `Quadword::words` and its kin
//! give), on edge values and pseudo-random quadwords.

use super::super::quadword::Quadword;
use super::portable;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use super::sse2;

type Binary = fn(Quadword, Quadword) -> Quadword;
type Shift = fn(Quadword, u32) -> Quadword;

/// Runs `$check` on the portable implementation of `$name` and on SSE2's where it is
/// built.
macro_rules! both {
    ($check:ident, $name:ident, $($reference:tt)*) => {
        $check(concat!("portable::", stringify!($name)), portable::$name, $($reference)*);
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        $check(concat!("sse2::", stringify!($name)), sse2::$name, $($reference)*);
    };
}

const EDGES: [u128; 8] = [
    0,
    u128::MAX,
    0x8000_0000_8000_0000_8000_0000_8000_0000,
    0x7fff_ffff_7fff_ffff_7fff_ffff_7fff_ffff,
    0x8000_7fff_0080_ff7f_0000_0001_ffff_fffe,
    0x0001_0002_0003_0004_0005_0006_0007_0008,
    0x8080_8080_7f7f_7f7f_0101_0101_fefe_fefe,
    0xdead_beef_0123_4567_89ab_cdef_f00d_cafe,
];

/// The edge values and 2 000 pseudo-random quadwords (xorshift).
fn quadwords() -> impl Iterator<Item = Quadword> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let random: [u128; 2000] =
        core::array::from_fn(|_| u128::from(next()) << 64 | u128::from(next()));
    EDGES.into_iter().chain(random).map(Quadword)
}

fn pairs() -> impl Iterator<Item = (Quadword, Quadword)> {
    quadwords().zip(quadwords().skip(7)).chain(
        EDGES
            .into_iter()
            .flat_map(|a| EDGES.into_iter().map(move |b| (Quadword(a), Quadword(b)))),
    )
}

fn per_word(a: Quadword, b: Quadword, f: impl Fn(u32, u32) -> u32) -> Quadword {
    let (a, b) = (a.words(), b.words());
    Quadword::from_words(core::array::from_fn(|i| f(a[i], b[i])))
}

fn per_halfword(a: Quadword, b: Quadword, f: impl Fn(u16, u16) -> u16) -> Quadword {
    let (a, b) = (a.halfwords(), b.halfwords());
    Quadword::from_halfwords(core::array::from_fn(|i| f(a[i], b[i])))
}

fn per_byte(a: Quadword, b: Quadword, f: impl Fn(u8, u8) -> u8) -> Quadword {
    let (a, b) = (a.bytes(), b.bytes());
    Quadword::from_bytes(core::array::from_fn(|i| f(a[i], b[i])))
}

fn check_binary(name: &str, operation: Binary, reference: impl Fn(Quadword, Quadword) -> Quadword) {
    for (a, b) in pairs() {
        assert_eq!(operation(a, b), reference(a, b), "{name}({a:x?}, {b:x?})");
    }
}

fn check_shift(
    name: &str,
    operation: Shift,
    counts: core::ops::Range<u32>,
    reference: impl Fn(Quadword, u32) -> Quadword,
) {
    for a in quadwords().take(200) {
        for count in counts.clone() {
            assert_eq!(
                operation(a, count),
                reference(a, count),
                "{name}({a:x?}, {count})"
            );
        }
    }
}

#[test]
fn adds_and_subtracts_wrap_in_each_lane() {
    both!(check_binary, add_words, |a, b| per_word(
        a,
        b,
        u32::wrapping_add
    ));
    both!(check_binary, add_halfwords, |a, b| per_halfword(
        a,
        b,
        u16::wrapping_add
    ));
    both!(check_binary, subtract_words, |a, b| per_word(
        a,
        b,
        u32::wrapping_sub
    ));
    both!(check_binary, subtract_halfwords, |a, b| per_halfword(
        a,
        b,
        u16::wrapping_sub
    ));
    both!(check_binary, add_bytes, |a, b| per_byte(
        a,
        b,
        u8::wrapping_add
    ));
    both!(check_binary, subtract_bytes, |a, b| per_byte(
        a,
        b,
        u8::wrapping_sub
    ));
}

#[test]
fn compares_give_all_ones_where_they_hold() {
    let word = |holds: bool| if holds { 0xffff_ffff } else { 0 };
    let half = |holds: bool| if holds { 0xffff } else { 0 };
    let byte = |holds: bool| if holds { 0xff } else { 0 };
    both!(check_binary, words_equal, |a, b| per_word(a, b, |x, y| {
        word(x == y)
    }));
    both!(check_binary, halfwords_equal, |a, b| per_halfword(
        a,
        b,
        |x, y| half(x == y)
    ));
    both!(check_binary, bytes_equal, |a, b| per_byte(a, b, |x, y| {
        byte(x == y)
    }));
    both!(check_binary, words_greater, |a, b| per_word(
        a,
        b,
        |x, y| { word(x as i32 > y as i32) }
    ));
    both!(check_binary, halfwords_greater, |a, b| per_halfword(
        a,
        b,
        |x, y| { half(x as i16 > y as i16) }
    ));
    both!(check_binary, bytes_greater, |a, b| per_byte(
        a,
        b,
        |x, y| { byte(x as i8 > y as i8) }
    ));
    both!(check_binary, words_greater_unsigned, |a, b| per_word(
        a,
        b,
        |x, y| word(x > y)
    ));
    both!(check_binary, halfwords_greater_unsigned, |a, b| {
        per_halfword(a, b, |x, y| half(x > y))
    });
    both!(check_binary, bytes_greater_unsigned, |a, b| per_byte(
        a,
        b,
        |x, y| byte(x > y)
    ));
}

#[test]
fn bitwise_operations_and_select() {
    both!(check_binary, and, |a, b| Quadword(a.0 & b.0));
    both!(check_binary, or, |a, b| Quadword(a.0 | b.0));
    both!(check_binary, xor, |a, b| Quadword(a.0 ^ b.0));
    both!(check_binary, and_not, |a, b| Quadword(a.0 & !b.0));
    both!(check_binary, or_not, |a, b| Quadword(a.0 | !b.0));
    both!(check_binary, nand, |a, b| Quadword(!(a.0 & b.0)));
    both!(check_binary, nor, |a, b| Quadword(!(a.0 | b.0)));
    both!(check_binary, eqv, |a, b| Quadword(!(a.0 ^ b.0)));
    // selb: each bit from `b` where the mask has a one, else from `a`; the mask's bits
    // one by one.
    let select_bit_by_bit = |a: Quadword, b: Quadword, mask: Quadword| {
        Quadword((0..128).fold(0, |result, bit| {
            let from = if mask.0 >> bit & 1 == 1 { b.0 } else { a.0 };
            result | (from & 1 << bit)
        }))
    };
    let select = |name: &str, operation: fn(Quadword, Quadword, Quadword) -> Quadword| {
        for ((a, b), mask) in pairs().zip(quadwords().skip(3)).take(500) {
            assert_eq!(
                operation(a, b, mask),
                select_bit_by_bit(a, b, mask),
                "{name}"
            );
        }
    };
    select("portable::select", portable::select);
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    select("sse2::select", sse2::select);
}

#[test]
fn shifts_take_the_count_whole_and_rotates_wrap() {
    let words = |a: Quadword, f: &dyn Fn(u32) -> u32| Quadword::from_words(a.words().map(f));
    let halves =
        |a: Quadword, f: &dyn Fn(u16) -> u16| Quadword::from_halfwords(a.halfwords().map(f));
    both!(check_shift, shift_words_left, 0..70, |a, n| words(
        a,
        &|w| { if n < 32 { w << n } else { 0 } }
    ));
    both!(check_shift, shift_words_right, 0..70, |a, n| words(
        a,
        &|w| { if n < 32 { w >> n } else { 0 } }
    ));
    both!(check_shift, shift_words_right_arithmetic, 0..70, |a, n| {
        words(a, &|w| {
            if n < 32 {
                ((w as i32) >> n) as u32
            } else {
                0u32.wrapping_sub(w >> 31)
            }
        })
    });
    both!(check_shift, shift_halfwords_left, 0..40, |a, n| halves(
        a,
        &|h| { if n < 16 { h << n } else { 0 } }
    ));
    both!(check_shift, shift_halfwords_right, 0..40, |a, n| halves(
        a,
        &|h| { if n < 16 { h >> n } else { 0 } }
    ));
    both!(
        check_shift,
        shift_halfwords_right_arithmetic,
        0..40,
        |a, n| halves(a, &|h| {
            if n < 16 {
                ((h as i16) >> n) as u16
            } else {
                0u16.wrapping_sub(h >> 15)
            }
        })
    );
    both!(check_shift, rotate_words, 0..32, |a, n| words(a, &|w| {
        (w << n) | (w >> 1 >> (31 - n))
    }));
    both!(check_shift, rotate_halfwords, 0..16, |a, n| halves(
        a,
        &|h| { (h << n) | (h >> 1 >> (15 - n)) }
    ));
}

#[test]
fn copy_moves_every_bit() {
    for value in quadwords().take(100) {
        let mut to = Quadword(!value.0);
        portable::copy(&value, &mut to);
        assert_eq!(to, value);
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            let mut to = Quadword(!value.0);
            sse2::copy(&value, &mut to);
            assert_eq!(to, value);
        }
    }
}

#[test]
fn splats_fill_every_lane() {
    for value in [
        0u32,
        1,
        0x7f,
        0x80,
        0xff,
        0x8000,
        0xffff,
        0x8000_0000,
        0xdead_beef,
    ] {
        for (name, splat) in [
            (
                "portable::splat_word",
                portable::splat_word as fn(u32) -> Quadword,
            ),
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            ("sse2::splat_word", sse2::splat_word),
        ] {
            assert_eq!(splat(value).words(), [value; 4], "{name}({value:#x})");
        }
        let half = value as u16;
        assert_eq!(portable::splat_halfword(half).halfwords(), [half; 8]);
        let byte = value as u8;
        assert_eq!(portable::splat_byte(byte).bytes(), [byte; 16]);
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            assert_eq!(sse2::splat_halfword(half).halfwords(), [half; 8]);
            assert_eq!(sse2::splat_byte(byte).bytes(), [byte; 16]);
        }
    }
}
