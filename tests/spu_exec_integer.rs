//! Fixed-point instructions: expected values worked out from the SPU ISA definitions.

mod spu_exec_support;

use pmprobe::spu::exec::{Status, StopReason};
use pmprobe::spu::isa::Mnemonic as M;
use spu_exec_support::*;

#[test]
fn immediate_loads_sign_extend_only_where_the_isa_says() {
    let mut h = Harness::new();
    h.exec(ri16(M::Il, 3, -1));
    assert_eq!(h.get(3), [T; 4], "il sign-extends I16");
    h.exec(ri16(M::Il, 3, 0x7fff));
    assert_eq!(h.get(3), [0x7fff; 4]);
    h.exec(ri16(M::Ilh, 3, 0x8001));
    assert_eq!(h.get(3), [0x8001_8001; 4], "ilh fills halfwords");
    h.exec(ri16(M::Ilhu, 3, 0xffff));
    assert_eq!(h.get(3), [0xffff_0000; 4], "ilhu loads the upper halfword");
    h.exec(ri18(M::Ila, 3, 0x3_ffff));
    assert_eq!(h.get(3), [0x0003_ffff; 4], "ila is not sign-extended");
    h.exec(ri16(M::Ilhu, 4, 0x1234));
    h.exec(ri16(M::Iohl, 4, 0x8765));
    assert_eq!(h.get(4), [0x1234_8765; 4], "iohl ORs the zero-extended I16");
}

#[test]
fn add_and_subtract_immediates() {
    let mut h = Harness::new();
    h.set(4, [0, 1, 0x8000_0000, 5]);
    h.exec(ri10(M::Ai, 3, 4, -1));
    assert_eq!(h.get(3), [0xffff_ffff, 0, 0x7fff_ffff, 4]);
    h.set(4, [3, 11, 0, 0xffff_ffff]);
    h.exec(ri10(M::Sfi, 3, 4, 10));
    assert_eq!(h.get(3), [7, 0xffff_ffff, 10, 11], "sfi computes imm - ra");
    h.set(4, [0x0001_0000, 0x7fff_8000, 0, 0]);
    h.exec(ri10(M::Ahi, 3, 4, -2));
    assert_eq!(
        h.get(3),
        [0xffff_fffe, 0x7ffd_7ffe, 0xfffe_fffe, 0xfffe_fffe]
    );
    h.set(4, [0x0001_0002, 0, 0, 0]);
    h.exec(ri10(M::Sfhi, 3, 4, 1));
    assert_eq!(
        h.get(3),
        [0x0000_ffff, 0x0001_0001, 0x0001_0001, 0x0001_0001]
    );
}

#[test]
fn logical_immediates_use_the_right_width() {
    let mut h = Harness::new();
    h.set(4, [0xf0f1_f2f3, 0xffff_ffff, 0x1234_5678, 0]);
    // Byte forms use the low 8 bits of I10: 0x1f0 -> 0xf0.
    h.exec(ri10(M::Andbi, 3, 4, 0x1f0));
    assert_eq!(h.get(3), [0xf0f0_f0f0, 0xf0f0_f0f0, 0x1030_5070, 0]);
    // Word forms sign-extend: -16 -> 0xfffffff0.
    h.exec(ri10(M::Andi, 3, 4, -16));
    assert_eq!(h.get(3), [0xf0f1_f2f0, 0xffff_fff0, 0x1234_5670, 0]);
    // Halfword forms sign-extend to 16 bits: -512 -> 0xfe00.
    h.exec(ri10(M::Andhi, 3, 4, -512));
    assert_eq!(h.get(3), [0xf000_f200, 0xfe00_fe00, 0x1200_5600, 0]);
    h.exec(ri10(M::Orbi, 3, 4, 0x0f));
    assert_eq!(
        h.get(3),
        [0xffff_ffff, 0xffff_ffff, 0x1f3f_5f7f, 0x0f0f_0f0f]
    );
    h.exec(ri10(M::Orhi, 3, 4, 1));
    assert_eq!(
        h.get(3),
        [0xf0f1_f2f3, 0xffff_ffff, 0x1235_5679, 0x0001_0001]
    );
    h.exec(ri10(M::Ori, 3, 4, -1));
    assert_eq!(h.get(3), [T; 4]);
    h.exec(ri10(M::Xorbi, 3, 4, 0xff));
    assert_eq!(h.get(3), [0x0f0e_0d0c, 0, 0xedcb_a987, 0xffff_ffff]);
    h.exec(ri10(M::Xorhi, 3, 4, -1));
    assert_eq!(h.get(3), [0x0f0e_0d0c, 0, 0xedcb_a987, 0xffff_ffff]);
    h.exec(ri10(M::Xori, 3, 4, 0x100));
    assert_eq!(h.get(3), [0xf0f1_f3f3, 0xffff_feff, 0x1234_5778, 0x100]);
}

#[test]
fn compare_immediates_signed_and_logical() {
    let mut h = Harness::new();
    h.set(4, [0, 0xffff_ffff, 0x8000_0000, 5]);
    h.exec(ri10(M::Cgti, 3, 4, -1));
    assert_eq!(h.get(3), [T, F, F, T]);
    h.exec(ri10(M::Clgti, 3, 4, -1));
    assert_eq!(h.get(3), [F, F, F, F], "clgti compares with 0xffffffff");
    h.exec(ri10(M::Clgti, 3, 4, 5));
    assert_eq!(h.get(3), [F, T, T, F]);
    h.exec(ri10(M::Ceqi, 3, 4, -1));
    assert_eq!(h.get(3), [F, T, F, F]);
    h.set(4, [0x807f_0001, 0xffff_0000, 0, 0]);
    h.exec(ri10(M::Cgtbi, 3, 4, 0x7f));
    assert_eq!(
        h.get(3),
        [0, 0, 0, 0],
        "0x80 is -128 signed; nothing exceeds 127"
    );
    h.exec(ri10(M::Clgtbi, 3, 4, 0x7f));
    assert_eq!(h.get(3), [0xff00_0000, 0xffff_0000, 0, 0]);
    h.exec(ri10(M::Ceqbi, 3, 4, 0xff));
    assert_eq!(h.get(3), [0, 0xffff_0000, 0, 0]);
    h.exec(ri10(M::Ceqhi, 3, 4, -1));
    assert_eq!(h.get(3), [0, 0xffff_0000, 0, 0]);
    h.exec(ri10(M::Cgthi, 3, 4, -2));
    assert_eq!(h.get(3), [0x0000_ffff, T, T, T]);
    h.exec(ri10(M::Clgthi, 3, 4, 1));
    assert_eq!(h.get(3), [0xffff_0000, 0xffff_0000, 0, 0]);
}

#[test]
fn register_add_subtract() {
    let mut h = Harness::new();
    h.set(4, [1, 0xffff_ffff, 10, 0x0001_ffff]);
    h.set(5, [2, 1, 3, 0x0001_0001]);
    h.exec(rr(M::A, 3, 4, 5));
    assert_eq!(h.get(3), [3, 0, 13, 0x0003_0000]);
    h.exec(rr(M::Sf, 3, 4, 5));
    assert_eq!(
        h.get(3),
        [1, 2, 0xffff_fff9, 0xffff_0002],
        "sf computes rb - ra"
    );
    h.exec(rr(M::Ah, 3, 4, 5));
    assert_eq!(
        h.get(3),
        [0x0000_0003, 0xffff_0000, 0x0000_000d, 0x0002_0000]
    );
    h.exec(rr(M::Sfh, 3, 4, 5));
    assert_eq!(
        h.get(3),
        [0x0000_0001, 0x0001_0002, 0x0000_fff9, 0x0000_0002]
    );
}

#[test]
fn carry_and_borrow_generate() {
    let mut h = Harness::new();
    h.set(4, [0xffff_ffff, 0x8000_0000, 1, 0]);
    h.set(5, [1, 0x8000_0000, 2, 0]);
    h.exec(rr(M::Cg, 3, 4, 5));
    assert_eq!(h.get(3), [1, 1, 0, 0]);
    h.set(4, [1, 2, 0xffff_ffff, 0]);
    h.set(5, [1, 1, 0, 0]);
    h.exec(rr(M::Bg, 3, 4, 5));
    assert_eq!(h.get(3), [1, 0, 0, 1], "bg is 1 when rb >= ra (no borrow)");
}

#[test]
fn extended_add_subtract_use_the_low_bit_of_rt() {
    let mut h = Harness::new();
    h.set(4, [1, 0xffff_ffff, 5, 5]);
    h.set(5, [2, 0, 5, 5]);
    h.set(3, [1, 1, 0, 0xffff_fffe]);
    h.exec(rr(M::Addx, 3, 4, 5));
    assert_eq!(h.get(3), [4, 0, 10, 10]);

    h.set(4, [0xffff_ffff, 0xffff_ffff, 0x8000_0000, 0]);
    h.set(5, [0, 0, 0x7fff_ffff, 0]);
    h.set(3, [1, 0, 1, 1]);
    h.exec(rr(M::Cgx, 3, 4, 5));
    assert_eq!(h.get(3), [1, 0, 1, 0]);

    h.set(4, [1, 1, 0, 5]);
    h.set(5, [5, 5, 0, 5]);
    h.set(3, [1, 0, 0, 1]);
    h.exec(rr(M::Sfx, 3, 4, 5));
    assert_eq!(
        h.get(3),
        [4, 3, 0xffff_ffff, 0],
        "sfx: rb - ra - (1 - borrow-in)"
    );

    h.set(4, [5, 5, 0, 3]);
    h.set(5, [5, 5, 0, 4]);
    h.set(3, [1, 0, 0, 0]);
    h.exec(rr(M::Bgx, 3, 4, 5));
    assert_eq!(h.get(3), [1, 0, 0, 1]);
}

#[test]
fn sixty_four_bit_add_with_cg_and_addx() {
    // 0x00000001_ffffffff + 0x00000000_00000001 = 0x00000002_00000000, in words 0 (high) and 1.
    let mut h = Harness::new();
    h.set(4, [1, 0xffff_ffff, 0, 0]);
    h.set(5, [0, 1, 0, 0]);
    h.exec(rr(M::Cg, 6, 4, 5));
    // Move each carry one word left (shlqbyi by 4 bytes) as compiled code does.
    h.exec(ri7(M::Shlqbyi, 6, 6, 4));
    h.exec(rr(M::Addx, 6, 4, 5));
    assert_eq!(h.get(6), [2, 0, 0, 0]);
}

#[test]
fn register_compares() {
    let mut h = Harness::new();
    h.set(4, [0x807f_0102, 0xffff_ffff, 5, 0x8000_0000]);
    h.set(5, [0x7f80_0102, 0, 5, 1]);
    h.exec(rr(M::Cgt, 3, 4, 5));
    assert_eq!(h.get(3), [F, F, F, F]);
    h.exec(rr(M::Clgt, 3, 4, 5));
    assert_eq!(h.get(3), [T, T, F, T]);
    h.exec(rr(M::Ceq, 3, 4, 5));
    assert_eq!(h.get(3), [F, F, T, F]);
    h.exec(rr(M::Cgtb, 3, 4, 5));
    assert_eq!(
        h.get(3),
        [0x00ff_0000, 0, 0, 0],
        "0x7f > 0x80 (-128) signed"
    );
    h.exec(rr(M::Clgtb, 3, 4, 5));
    assert_eq!(h.get(3), [0xff00_0000, 0xffff_ffff, 0, 0xff00_0000]);
    h.exec(rr(M::Ceqb, 3, 4, 5));
    assert_eq!(h.get(3), [0x0000_ffff, 0, T, 0x00ff_ff00]);
    h.exec(rr(M::Cgth, 3, 4, 5));
    assert_eq!(h.get(3), [0, 0, 0, 0]);
    h.exec(rr(M::Clgth, 3, 4, 5));
    assert_eq!(h.get(3), [0xffff_0000, T, 0, 0xffff_0000]);
    h.exec(rr(M::Ceqh, 3, 4, 5));
    assert_eq!(h.get(3), [0x0000_ffff, 0, T, 0]);
}

#[test]
fn bitwise_operations() {
    let mut h = Harness::new();
    h.set(4, [0xffff_0000, 0xf0f0_f0f0, 0, T]);
    h.set(5, [0xff00_ff00, 0x0ff0_0ff0, 0, 0]);
    h.exec(rr(M::And, 3, 4, 5));
    assert_eq!(h.get(3), [0xff00_0000, 0x00f0_00f0, 0, 0]);
    h.exec(rr(M::Nand, 3, 4, 5));
    assert_eq!(h.get(3), [0x00ff_ffff, 0xff0f_ff0f, T, T]);
    h.exec(rr(M::Or, 3, 4, 5));
    assert_eq!(h.get(3), [0xffff_ff00, 0xfff0_fff0, 0, T]);
    h.exec(rr(M::Nor, 3, 4, 5));
    assert_eq!(h.get(3), [0x0000_00ff, 0x000f_000f, T, 0]);
    h.exec(rr(M::Xor, 3, 4, 5));
    assert_eq!(h.get(3), [0x00ff_ff00, 0xff00_ff00, 0, T]);
    h.exec(rr(M::Eqv, 3, 4, 5));
    assert_eq!(h.get(3), [0xff00_00ff, 0x00ff_00ff, T, 0]);
    h.exec(rr(M::Andc, 3, 4, 5));
    assert_eq!(h.get(3), [0x00ff_0000, 0xf000_f000, 0, T]);
    h.exec(rr(M::Orc, 3, 4, 5));
    assert_eq!(h.get(3), [0xffff_00ff, 0xf0ff_f0ff, T, T]);
    h.set(6, [0xffff_0000, 0, T, 0x0f0f_0f0f]);
    h.set(4, [0xaaaa_aaaa; 4]);
    h.set(5, [0x5555_5555; 4]);
    h.exec(rrr(M::Selb, 3, 4, 5, 6));
    assert_eq!(
        h.get(3),
        [0x5555_aaaa, 0xaaaa_aaaa, 0x5555_5555, 0xa5a5_a5a5]
    );
}

#[test]
fn counting_and_sign_extension() {
    let mut h = Harness::new();
    h.set(4, [0, 1, 0x8000_0000, 0x0001_0000]);
    h.exec(rr(M::Clz, 3, 4, 0));
    assert_eq!(h.get(3), [32, 31, 0, 15]);
    h.set(4, [0xff00_0103, 0, 0xffff_ffff, 0x8040_2010]);
    h.exec(rr(M::Cntb, 3, 4, 0));
    assert_eq!(h.get(3), [0x0800_0102, 0, 0x0808_0808, 0x0101_0101]);
    h.set(4, [0x0080_127f, 0, 0x1234_8000, 0x8000_0000]);
    h.exec(rr(M::Xsbh, 3, 4, 0));
    assert_eq!(h.get(3), [0xff80_007f, 0, 0x0034_0000, 0x0000_0000]);
    h.exec(rr(M::Xshw, 3, 4, 0));
    assert_eq!(h.get(3), [0x0000_127f, 0, 0xffff_8000, 0]);
    h.set(4, [0x1234_5678, 0x8000_0000, 0xffff_ffff, 0x7fff_ffff]);
    h.exec(rr(M::Xswd, 3, 4, 0));
    assert_eq!(h.get(3), [0xffff_ffff, 0x8000_0000, 0, 0x7fff_ffff]);
}

#[test]
fn byte_operations() {
    let mut h = Harness::new();
    h.set(4, [0x10ff_0100, 0x0102_0304, 0, 0]);
    h.set(5, [0xf0ff_0201, 0xffff_ffff, 0, 0]);
    h.exec(rr(M::Absdb, 3, 4, 5));
    assert_eq!(h.get(3), [0xe000_0101, 0xfefd_fcfb, 0, 0]);
    h.exec(rr(M::Avgb, 3, 4, 5));
    // (a + b + 1) >> 1 per byte: 0x10,0xf0 -> 0x80; 0xff,0xff -> 0xff; 1,2 -> 2; 0,1 -> 1
    assert_eq!(h.get(3), [0x80ff_0201, 0x8081_8182, 0, 0]);
    h.exec(rr(M::Sumb, 3, 4, 5));
    // Left halfword: sum of rb's bytes; right halfword: sum of ra's bytes.
    assert_eq!(h.get(3), [(0x1f2 << 16) | 0x110, (0x3fc << 16) | 10, 0, 0]);
}

#[test]
fn multiplies() {
    let mut h = Harness::new();
    h.set(4, [0x1234_ffff, 0x0000_ffff, 0x0003_0000, 0x0000_4000]);
    h.set(5, [0x5678_0002, 0x0000_ffff, 0x0000_0005, 0x0000_4000]);
    h.exec(rr(M::Mpy, 3, 4, 5));
    assert_eq!(h.get(3), [0xffff_fffe, 1, 0, 0x1000_0000]);
    h.exec(rr(M::Mpyu, 3, 4, 5));
    assert_eq!(h.get(3), [0x0001_fffe, 0xfffe_0001, 0, 0x1000_0000]);
    h.exec(rr(M::Mpyh, 3, 4, 5));
    // (high(a) * low(b)) << 16
    assert_eq!(h.get(3), [0x2468_0000, 0, 0x000f_0000, 0]);
    h.exec(rr(M::Mpys, 3, 4, 5));
    assert_eq!(h.get(3), [0xffff_ffff, 0, 0, 0x0000_1000]);

    h.set(4, [0xffff_0000, 0x8000_0000, 0, 0]);
    h.set(5, [0x0002_0000, 0x8000_0000, 0, 0]);
    h.exec(rr(M::Mpyhh, 3, 4, 5));
    assert_eq!(h.get(3), [0xffff_fffe, 0x4000_0000, 0, 0]);
    h.exec(rr(M::Mpyhhu, 3, 4, 5));
    assert_eq!(h.get(3), [0x0001_fffe, 0x4000_0000, 0, 0]);
    h.set(3, [10, 1, 0, 0]);
    h.exec(rr(M::Mpyhha, 3, 4, 5));
    assert_eq!(h.get(3), [8, 0x4000_0001, 0, 0]);
    h.set(3, [10, 1, 0, 0]);
    h.exec(rr(M::Mpyhhau, 3, 4, 5));
    assert_eq!(h.get(3), [0x0001_fffe + 10, 0x4000_0001, 0, 0]);

    h.set(4, [7, 0xffff_0002, 0, 0]);
    h.exec(ri10(M::Mpyi, 3, 4, -3));
    assert_eq!(h.get(3), [0xffff_ffeb, 0xffff_fffa, 0, 0]);
    h.exec(ri10(M::Mpyui, 3, 4, -1));
    // I10 = -1 sign-extends to 16 bits 0xffff, then multiplies unsigned.
    assert_eq!(h.get(3), [0x0006_fff9, 0x0001_fffe, 0, 0]);

    h.set(4, [3, 0xffff, 0, 0]);
    h.set(5, [4, 2, 0, 0]);
    h.set(6, [100, 0, 1, 0]);
    h.exec(rrr(M::Mpya, 3, 4, 5, 6));
    assert_eq!(h.get(3), [112, 0xffff_fffe, 1, 0]);
}

#[test]
fn form_select_masks_and_gathers() {
    let mut h = Harness::new();
    h.exec(ri16(M::Fsmbi, 3, 0x8001));
    assert_eq!(h.get(3), [0xff00_0000, 0, 0, 0x0000_00ff]);
    h.set(4, [0xffff_fff5, 0, 0, 0]);
    h.exec(rr(M::Fsm, 3, 4, 0));
    assert_eq!(h.get(3), [F, T, F, T]);
    h.set(4, [0x0000_0181, 0, 0, 0]);
    h.exec(rr(M::Fsmh, 3, 4, 0));
    assert_eq!(h.get(3), [0xffff_0000, 0, 0, 0x0000_ffff]);
    h.set(4, [0xffff_0003, 0, 0, 0]);
    h.exec(rr(M::Fsmb, 3, 4, 0));
    assert_eq!(h.get(3), [0, 0, 0, 0x0000_ffff]);

    h.set(4, [1, 2, 3, 0xffff_ffff]);
    h.exec(rr(M::Gb, 3, 4, 0));
    assert_eq!(h.get(3), [0b1011, 0, 0, 0]);
    h.set(4, [0x0001_0000, 0x0003_0002, 0, 0xffff_0001]);
    h.exec(rr(M::Gbh, 3, 4, 0));
    assert_eq!(h.get(3), [0b1010_0011, 0, 0, 0]);
    h.set(4, [0x0101_0000, 0, 0, 0x0000_0001]);
    h.exec(rr(M::Gbb, 3, 4, 0));
    assert_eq!(h.get(3), [0b1100_0000_0000_0001, 0, 0, 0]);
    h.set(4, [1, 2, 4, 8]);
    h.exec(rr(M::Orx, 3, 4, 0));
    assert_eq!(h.get(3), [15, 0, 0, 0]);
}

#[test]
fn halts_stop_the_spu_only_when_the_condition_holds() {
    let mut h = Harness::new();
    h.set(4, [5, 0, 0, 0]);
    h.set(5, [5, 1, 1, 1]);
    let executed = h.exec_at(0x40, rr(M::Heq, 0, 4, 5));
    assert_eq!(
        executed.status,
        Status::Stopped(StopReason::Halt { pc: 0x40 })
    );

    let cases = [
        (rr(M::Hgt, 0, 4, 5), false),   // 5 > 5
        (rr(M::Hlgt, 0, 4, 5), false),  // 5 > 5 unsigned
        (ri10(M::Heqi, 0, 4, 5), true), // 5 == 5
        (ri10(M::Hgti, 0, 4, 4), true), // 5 > 4
        (ri10(M::Hgti, 0, 4, -1), true),
        (ri10(M::Hlgti, 0, 4, -1), false), // 5 > 0xffffffff unsigned
        (ri10(M::Heqi, 0, 4, 4), false),
    ];
    for (word, halts) in cases {
        let mut h2 = Harness::new();
        h2.set(4, [5, 0, 0, 0]);
        h2.set(5, [5, 1, 1, 1]);
        let executed = h2.exec(word);
        assert_eq!(
            matches!(executed.status, Status::Stopped(StopReason::Halt { .. })),
            halts,
            "word {word:#010x}"
        );
    }
}
