//! Disassembler text. Words are built here from the field layout of the SPU ISA (bit 0 = MSB)
//! and the binutils opcodes; the expected strings follow the objdump spelling.

// Words are spelled field by field, zero fields included, to mirror the ISA layout.
#![allow(clippy::identity_op)]

use pmprobe::spu::isa::decode;
use pmprobe::spu::isa::{NoSymbols, SymbolLookup, disassemble};

fn rr(op: u32, rb: u32, ra: u32, rt: u32) -> u32 {
    op << 21 | rb << 14 | ra << 7 | rt
}
fn rrr(op4: u32, rt: u32, rb: u32, ra: u32, rc: u32) -> u32 {
    op4 << 28 | rt << 21 | rb << 14 | ra << 7 | rc
}
fn ri10(op: u32, i10: i32, ra: u32, rt: u32) -> u32 {
    op << 21 | ((i10 as u32) & 0x3ff) << 14 | ra << 7 | rt
}
fn ri16(op: u32, i16: i32, rt: u32) -> u32 {
    op << 21 | ((i16 as u32) & 0xffff) << 7 | rt
}
fn ri7(op: u32, i7: i32, ra: u32, rt: u32) -> u32 {
    op << 21 | ((i7 as u32) & 0x7f) << 14 | ra << 7 | rt
}

fn text(word: u32, pc: u32) -> String {
    decode(word).unwrap().display_at(pc).to_string()
}

struct Labels(&'static [(&'static str, u32)]);
impl SymbolLookup for Labels {
    fn symbol_at(&self, address: u32) -> Option<&str> {
        self.0.iter().find(|(_, a)| *a == address).map(|(n, _)| *n)
    }
}

#[test]
fn register_formats() {
    assert_eq!(text(rrr(0b1110, 50, 12, 51, 52), 0), "fma $50,$51,$12,$52");
    assert_eq!(text(rrr(0b1011, 1, 2, 3, 4), 0), "shufb $1,$3,$2,$4");
    assert_eq!(text(rr(0x0c0, 5, 4, 3), 0), "a $3,$4,$5");
    assert_eq!(text(rr(0x0c1, 30, 30, 30), 0), "and $30,$30,$30");
    assert_eq!(text(rr(0x2a5, 0, 9, 8), 0), "clz $8,$9");
    assert_eq!(text(rr(0x398, 0, 0, 7), 0), "fscrrd $7");
}

#[test]
fn immediates_and_offsets() {
    assert_eq!(text(ri10(0x1a0, 1, 1, 3), 0), "lqd $3,16($1)");
    assert_eq!(text(ri10(0x120, -2, 1, 5), 0), "stqd $5,-32($1)");
    assert_eq!(text(ri10(0x0e0, -1, 3, 3), 0), "ai $3,$3,-1");
    assert_eq!(text(ri16(0x204, -5, 3), 0), "il $3,-5");
    // ilhu prints its 16 bits unsigned.
    assert_eq!(text(ri16(0x208, 0xffff, 3), 0), "ilhu $3,65535");
    assert_eq!(text(0x210 << 21 | 0x3ffff << 7 | 4, 0), "ila $4,262143");
    assert_eq!(text(ri7(0x078, -3, 2, 1), 0), "roti $1,$2,-3");
    assert_eq!(text(ri7(0x07b, 100, 2, 1), 0), "shli $1,$2,100");
    assert_eq!(text(ri7(0x1f6, 4, 1, 6), 0), "cwd $6,4($1)");
    // cflts: I8 = 173 - scale; csflt: I8 = 155 - scale.
    assert_eq!(
        text(0x3b0 << 21 | (173 - 32) << 14 | 2 << 7 | 1, 0),
        "cflts $1,$2,32"
    );
    assert_eq!(
        text(0x3b4 << 21 | (155 - 0) << 14 | 2 << 7 | 1, 0),
        "csflt $1,$2,0"
    );
    assert_eq!(text(ri10(0x0b0, 255, 4, 3), 0), "andbi $3,$4,255");
    assert_eq!(text(rr(0x00d, 0, 29, 3), 0), "rdch $3,$ch29");
    assert_eq!(text(rr(0x10d, 0, 28, 3), 0), "wrch $ch28,$3");
    assert_eq!(text(rr(0x00c, 0, 2, 3), 0), "mfspr $3,$sp2");
}

#[test]
fn branch_targets_are_absolute() {
    // brnz $3 at 0x100, I16 = -4 words -> 0xf0.
    assert_eq!(text(ri16(0x108, -4, 3), 0x100), "brnz $3,0xf0");
    // br +8 words at 0x40 -> 0x60.
    assert_eq!(text(ri16(0x190, 8, 0), 0x40), "br 0x60");
    // bra I16 = 0x10 -> address 0x40 regardless of pc.
    assert_eq!(text(ri16(0x180, 0x10, 0), 0x1000), "bra 0x40");
    assert_eq!(text(ri16(0x198, 2, 0), 0x8), "brsl $0,0x10");
    // lqr is pc-relative, lqa absolute.
    assert_eq!(text(ri16(0x19c, 1, 9), 0x20), "lqr $9,0x24");
    assert_eq!(text(ri16(0x184, 0x20, 9), 0x20), "lqa $9,0x80");
}

#[test]
fn hints_with_and_without_symbols() {
    // hbrr at 0x10: branch at +3 words (ROL = 3), target at -4 words (I16 = -4).
    let hbrr = 0x090 << 21 | ((-4i32 as u32) & 0xffff) << 7 | 3;
    assert_eq!(text(hbrr, 0x10), "hbrr 0x1c,0x0");
    let labels = Labels(&[(".L2", 0x0), (".L5", 0x1c)]);
    let inst = decode(hbrr).unwrap();
    assert_eq!(inst.display_with(0x10, &labels).to_string(), "hbrr .L5,.L2");
    // hbra: branch offset -1 word via ROH = 0b11, ROL = 0x7f; target absolute 0x200.
    let hbra = 0x080 << 21 | 0b11 << 23 | (0x200 >> 2) << 7 | 0x7f;
    assert_eq!(text(hbra, 0x100), "hbra 0xfc,0x200");
    // hbr: ROH in bits 16-17; branch +0x104 bytes = 65 words = 0b0_1000001.
    let hbr = 0x1ac << 21 | (65 >> 7) << 14 | 7 << 7 | (65 & 0x7f);
    assert_eq!(text(hbr, 0), "hbr 0x104,$7");
    let mut s = String::new();
    disassemble(&decode(hbr).unwrap(), 0, &NoSymbols, &mut s).unwrap();
    assert_eq!(s, "hbr 0x104,$7");
}

#[test]
fn feature_variants_print_by_name() {
    let fb = |bit: u32| 1u32 << (31 - bit);
    assert_eq!(text(0x1a8 << 21 | fb(12), 0), "bid $0");
    assert_eq!(text(0x1a8 << 21 | fb(13) | 5 << 7, 0), "bie $5");
    assert_eq!(text(0x1a9 << 21 | fb(12) | 2 << 7 | 0, 0), "bisld $0,$2");
    assert_eq!(text(0x002 << 21 | fb(11), 0), "syncc");
    assert_eq!(text(0x1ac << 21 | fb(11), 0), "hbrp");
    assert_eq!(text(0x1aa << 21 | fb(12), 0), "iretd");
    assert_eq!(text(0x128 << 21 | fb(13) | 4 << 7 | 3, 0), "bize $3,$4");
    assert_eq!(text(0x12b << 21 | fb(12) | 4 << 7 | 3, 0), "bihnzd $3,$4");
    // Combinations binutils does not name: base name plus a comment.
    assert_eq!(
        text(0x1a8 << 21 | fb(12) | fb(13), 0),
        "bi $0 # feature bits 0x30"
    );
    assert_eq!(text(0x002 << 21 | fb(12), 0), "sync # feature bits 0x20");
}

#[test]
fn optional_operands_are_omitted_only_when_zero() {
    assert_eq!(text(0x4020_0000, 0), "nop");
    assert_eq!(text(0x4020_007f, 0), "nop $127");
    assert_eq!(text(0x0020_0000, 0), "lnop");
    assert_eq!(text(0, 0), "stop");
    assert_eq!(text(0x2000, 0), "stop 8192");
    assert_eq!(text(rr(0x3d8, 6, 5, 0), 0), "heq $5,$6");
    assert_eq!(text(rr(0x3d8, 6, 5, 1), 0), "heq $1,$5,$6");
    assert_eq!(text(ri10(0x278, -3, 5, 0), 0), "hgti $5,-3");
    assert_eq!(text(rr(0x1aa, 0, 0, 0), 0), "iret");
    assert_eq!(text(rr(0x1aa, 0, 4, 0), 0), "iret $4");
    assert_eq!(text(rr(0x3ba, 0, 4, 0), 0), "fscrwr $4");
    assert_eq!(text(0x002 << 21, 0), "sync");
    assert_eq!(text(0x003 << 21, 0), "dsync");
}

#[test]
fn synonyms_print_their_base_name() {
    // lr $3,$4 is ori $3,$4,0.
    assert_eq!(text(ri10(0x020, 0, 4, 3), 0), "ori $3,$4,0");
    // bit (binz) prints as binz.
    assert_eq!(text(0x129 << 21 | 4 << 7 | 3, 0), "binz $3,$4");
}
