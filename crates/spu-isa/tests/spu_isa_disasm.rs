//! Disassembler text, per format. The expected objdump text is GNU objdump 2.40's (built for
//! spu-elf) for each word at the address given (`objdump -D -b binary -m spu -EB
//! --adjust-vma=PC`); the symbol case from an ELF made with `objcopy --add-symbol`. The listing
//! and compact renderings are checked against objdump's text and by reassembling.

// Words are spelled field by field, zero fields included, to mirror the ISA layout.
#![allow(clippy::identity_op)]

use pmprobe_spu_isa::asm::assemble;
use pmprobe_spu_isa::{NoSymbols, SymbolLookup, Syntax, decode, disassemble, disassemble_word};

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
/// Feature bit `bit` of the SPU ISA numbering (bit 0 the most significant).
fn fb(bit: u32) -> u32 {
    1 << (31 - bit)
}

#[track_caller]
fn objdump(word: u32, pc: u32, expected: &str) {
    let mut text = String::new();
    disassemble(&decode(word).unwrap(), pc, &NoSymbols, &mut text).unwrap();
    assert_eq!(text, expected, "{word:#010x} at {pc:#x}");
}

fn listing(word: u32, pc: u32) -> String {
    let inst = decode(word).unwrap();
    inst.display_as(pc, &NoSymbols, Syntax::Listing).to_string()
}

/// Assembles `text` at `pc` and returns the word.
fn reassemble(text: &str, pc: u32) -> u32 {
    let mut image = vec![0u8; pc as usize + 4];
    assemble::<1>(&format!(".space {pc}\n{text}"), &mut image)
        .unwrap_or_else(|e| panic!("`{text}`: {e}"));
    u32::from_be_bytes(image[pc as usize..].try_into().unwrap())
}

#[test]
fn register_formats() {
    objdump(rr(0x0c0, 5, 4, 3), 0x0, "a\t$3,$4,$5");
    objdump(rr(0x2a5, 0, 9, 8), 0x0, "clz\t$8,$9");
    objdump(rr(0x398, 0, 0, 7), 0x0, "fscrrd\t$7");
    objdump(rrr(0b1110, 50, 12, 51, 52), 0x0, "fma\t$50,$51,$12,$52");
    objdump(rrr(0b1011, 1, 2, 3, 4), 0x0, "shufb\t$1,$3,$2,$4");
    objdump(rr(0x00c, 0, 2, 3), 0x0, "mfspr\t$3,$sp2");
    objdump(rr(0x00d, 0, 29, 3), 0x0, "rdch\t$3,$ch29");
    objdump(rr(0x10d, 0, 28, 3), 0x0, "wrch\t$ch28,$3");
    objdump(rr(0x10c, 0, 5, 3), 0x0, "mtspr\t$sp5,$3");
}

#[test]
fn immediates_sign_extended_by_field_and_echoed_in_hex_above_16() {
    objdump(ri10(0x1a0, 1, 1, 3), 0x0, "lqd\t$3,16($1)");
    objdump(ri10(0x1a0, 2, 1, 3), 0x0, "lqd\t$3,32($1)\t# 20");
    objdump(ri10(0x120, -2, 1, 5), 0x0, "stqd\t$5,-32($1)");
    objdump(ri10(0x0e0, -1, 3, 3), 0x0, "ai\t$3,$3,-1");
    objdump(ri10(0x0e0, 16, 3, 3), 0x0, "ai\t$3,$3,16");
    objdump(ri10(0x0e0, 17, 3, 3), 0x0, "ai\t$3,$3,17\t# 11");
    objdump(ri10(0x0b0, 255, 4, 3), 0x0, "andbi\t$3,$4,255\t# ff");
    objdump(ri10(0x0b0, 256, 4, 3), 0x0, "andbi\t$3,$4,256\t# 100");
    objdump(ri16(0x204, -5, 3), 0x0, "il\t$3,-5");
    objdump(ri16(0x208, 0xffff, 3), 0x0, "ilhu\t$3,65535\t# ffff");
    objdump(ri16(0x304, 0x8000, 3), 0x0, "iohl\t$3,32768\t# 8000");
    objdump(
        0x210 << 21 | 0x3ffff << 7 | 4,
        0x0,
        "ila\t$4,262143\t# 3ffff",
    );
    objdump(ri7(0x078, -3, 2, 1), 0x0, "roti\t$1,$2,-3");
    objdump(ri7(0x07b, -1, 2, 1), 0x0, "shli\t$1,$2,-1");
    objdump(ri7(0x07b, 20, 2, 1), 0x0, "shli\t$1,$2,20\t# 14");
    objdump(ri7(0x1ff, -1, 2, 1), 0x0, "shlqbyi\t$1,$2,-1");
    objdump(ri7(0x07d, 42, 2, 1), 0x0, "rothmi\t$1,$2,42\t# 2a");
    objdump(ri7(0x3bf, -1, 2, 1), 0x0, "dftsv\t$1,$2,-1");
    objdump(ri7(0x1f6, 4, 1, 6), 0x0, "cwd\t$6,4($1)");
    objdump(ri7(0x1f4, -1, 1, 6), 0x0, "cbd\t$6,-1($1)");
    objdump(
        0x3b0 << 21 | (173 - 32) << 14 | 2 << 7 | 1,
        0x0,
        "cflts\t$1,$2,32",
    );
    objdump(0x3b0 << 21 | 0 << 14 | 2 << 7 | 1, 0x0, "cflts\t$1,$2,173");
    objdump(0x3b4 << 21 | 155 << 14 | 2 << 7 | 1, 0x0, "csflt\t$1,$2,0");
    objdump(
        0x3b4 << 21 | 255 << 14 | 2 << 7 | 1,
        0x0,
        "csflt\t$1,$2,-100",
    );
}

#[test]
fn addresses_absolute_in_hex_zero_offsets_as_0() {
    objdump(ri16(0x108, -4, 3), 0x100, "brnz\t$3,0xf0\t# f0");
    objdump(ri16(0x190, 8, 0), 0x40, "br\t0x60\t# 60");
    objdump(ri16(0x190, 1, 0), 0x8, "br\t0xc");
    objdump(ri16(0x190, 0, 0), 0x40, "br\t0");
    objdump(ri16(0x190, -1, 0), 0x0, "br\t0x3fffc");
    objdump(ri16(0x180, 0x10, 0), 0x1000, "bra\t0x40");
    objdump(ri16(0x180, 0, 0), 0x1000, "bra\t0");
    objdump(ri16(0x198, 2, 0), 0x8, "brsl\t$0,0x10");
    objdump(ri16(0x19c, 1, 9), 0x20, "lqr\t$9,0x24\t# 24");
    objdump(ri16(0x184, 0x20, 9), 0x20, "lqa\t$9,0x80");
    objdump(
        0x090 << 21 | ((-4i32 as u32) & 0xffff) << 7 | 3,
        0x10,
        "hbrr\t0x1c,0x0",
    );
    objdump(0x090 << 21 | 0 << 7 | 3, 0x10, "hbrr\t0x1c,0");
    objdump(
        0x080 << 21 | 0b11 << 23 | (0x200 >> 2) << 7 | 0x7f,
        0x100,
        "hbra\t0xfc,0x200",
    );
    objdump(
        0x1ac << 21 | (65 >> 7) << 14 | 7 << 7 | (65 & 0x7f),
        0x0,
        "hbr\t0x104,$7",
    );
    objdump(0x1ac << 21 | 0b10 << 14 | 7 << 7, 0x0, "hbr\t0xfffffc00,$7");
}

#[test]
fn feature_letters_and_the_first_table_entrys_operands() {
    objdump(0x1a8 << 21 | fb(12), 0x0, "bid\t$0");
    objdump(0x1a8 << 21 | fb(13) | 5 << 7, 0x0, "bie\t$5");
    objdump(0x1a8 << 21 | fb(12) | fb(13), 0x0, "bide\t$0");
    objdump(0x1a8 << 21 | fb(11), 0x0, "bip\t$0");
    objdump(0x1a9 << 21 | fb(12) | 2 << 7, 0x0, "bisld\t$0,$2");
    objdump(0x1ab << 21 | fb(12) | 2 << 7 | 1, 0x0, "bisledd\t$1,$2");
    objdump(0x002 << 21 | fb(11), 0x0, "syncc");
    objdump(0x002 << 21 | fb(12), 0x0, "syncd");
    objdump(0x1ac << 21 | fb(11), 0x20, "hbrp\t0x20,$0");
    objdump(0x1ac << 21 | fb(12) | 3 << 7 | 4, 0x0, "hbrd\t0x10,$3");
    objdump(0x1aa << 21 | fb(12), 0x0, "iretd\t$0");
    objdump(0x128 << 21 | fb(13) | 4 << 7 | 3, 0x0, "bize\t$3,$4");
    objdump(0x12b << 21 | fb(12) | 4 << 7 | 3, 0x0, "bihnzd\t$3,$4");
    objdump(0x129 << 21 | 4 << 7 | 3, 0x0, "binz\t$3,$4");
    objdump(ri10(0x020, 0, 4, 3), 0x0, "ori\t$3,$4,0");
    objdump(0x4020_0000, 0x0, "nop\t$0");
    objdump(0x4020_007f, 0x0, "nop\t$127");
    objdump(0x0020_0000, 0x0, "lnop");
    objdump(0, 0x0, "stop");
    objdump(0x2000, 0x0, "stop");
    objdump(rr(0x3d8, 6, 5, 0), 0x0, "heq\t$0,$5,$6");
    objdump(rr(0x258, 5, 4, 0), 0x0, "hgt\t$0,$4,$5");
    objdump(ri10(0x278, -3, 5, 0), 0x0, "hgti\t$0,$5,-3");
    objdump(rr(0x1aa, 0, 0, 0), 0x0, "iret\t$0");
    objdump(rr(0x1aa, 0, 4, 0), 0x0, "iret\t$4");
    objdump(rr(0x3ba, 0, 4, 0), 0x0, "fscrwr\t$0,$4");
    objdump(0x002 << 21, 0x0, "sync");
    objdump(0x003 << 21, 0x0, "dsync");
}

#[test]
fn undecodable_words_are_long_without_leading_zeros() {
    let mut text = String::new();
    disassemble_word(0x0080_0000, 0, &NoSymbols, &mut text).unwrap();
    assert_eq!(text, ".long 0x800000");
    text.clear();
    disassemble_word(0x35a0_0040, 0, &NoSymbols, &mut text).unwrap();
    assert_eq!(text, ".long 0x35a00040");
}

/// Symbols as objcopy made them for the ELF: the file's start (0) and end (0x1c) and two
/// added with `--add-symbol`; objdump names an address by the nearest symbol at or below it.
struct ElfSymbols;
const ELF_SYMBOLS: [(&str, u32); 4] = [
    ("_binary__tmp_s_bin_start", 0x0),
    ("loop", 0x8),
    ("far", 0x10),
    ("_binary__tmp_s_bin_end", 0x1c),
];
impl SymbolLookup for ElfSymbols {
    fn symbol_at(&self, address: u32) -> Option<&str> {
        ELF_SYMBOLS
            .iter()
            .find(|(_, a)| *a == address)
            .map(|(n, _)| *n)
    }
    fn symbol_before(&self, address: u32) -> Option<(&str, u32)> {
        ELF_SYMBOLS
            .iter()
            .rev()
            .find(|(_, a)| *a <= address)
            .copied()
    }
}

#[test]
fn addresses_with_symbols_as_objdump_names_them() {
    let cases = [
        (0x00, 0x2100_0203, "brnz\t$3,10 <far>"),
        (0x04, 0x3200_0200, "br\t14 <far+0x4>\t# 14"),
        (
            0x08,
            0x127f_ff02,
            "hbrr\t10 <far>,0 <_binary__tmp_s_bin_start>",
        ),
        // binutils prints an ila value as an address when a symbol is at address 0.
        (0x0c, 0x4200_0a03, "ila\t$3,14 <far+0x4>"),
        (
            0x10,
            0x3080_0c03,
            "lqa\t$3,60 <_binary__tmp_s_bin_end+0x44>",
        ),
        (0x14, 0x3200_0000, "br\t0"),
        (0x18, 0x337f_fd00, "brsl\t$0,0 <_binary__tmp_s_bin_start>"),
    ];
    for (pc, word, expected) in cases {
        let mut text = String::new();
        disassemble(&decode(word).unwrap(), pc, &ElfSymbols, &mut text).unwrap();
        assert_eq!(text, expected, "{word:#010x} at {pc:#x}");
    }
    // The listing names exact symbols by label and keeps ila's number.
    let inst = decode(0x2100_0203).unwrap();
    let text = inst.display_as(0, &ElfSymbols, Syntax::Listing).to_string();
    assert_eq!(text, "brnz\t$3,far");
    let inst = decode(0x4200_0a03).unwrap();
    let text = inst
        .display_as(0xc, &ElfSymbols, Syntax::Listing)
        .to_string();
    assert_eq!(text, "ila\t$3,20\t# 14");
}

#[test]
fn an_assembled_programs_labels_name_addresses_as_elf_symbols_do() {
    // The same symbol layout as ELF_SYMBOLS, from labels: objdump's names above must come
    // out of the assembler's own table too (nearest label at or below; values never).
    let mut image = [0u8; 0x40];
    let program = assemble::<8>(
        "_binary__tmp_s_bin_start: nop\n nop\nloop: nop\n nop\nfar: nop\n nop\n nop\n\
         _binary__tmp_s_bin_end: nop\n.set far_value, 0x14\n",
        &mut image,
    )
    .unwrap();
    for (pc, word, expected) in [
        (0x04, 0x3200_0200, "br\t14 <far+0x4>\t# 14"),
        (
            0x10,
            0x3080_0c03,
            "lqa\t$3,60 <_binary__tmp_s_bin_end+0x44>",
        ),
        (0x18, 0x337f_fd00, "brsl\t$0,0 <_binary__tmp_s_bin_start>"),
    ] {
        let mut text = String::new();
        disassemble(&decode(word).unwrap(), pc, &program.symbols, &mut text).unwrap();
        assert_eq!(text, expected, "{word:#010x} at {pc:#x}");
    }
}

#[test]
fn compact_is_objdump_on_one_line_without_the_hex_comment() {
    let ai = decode(ri10(0x0e0, 100, 3, 3)).unwrap();
    assert_eq!(ai.display_at(0).to_string(), "ai $3,$3,100");
    let br = decode(ri16(0x190, 8, 0)).unwrap();
    assert_eq!(br.display_at(0x40).to_string(), "br 0x60");
    assert_eq!(
        decode(0x4020_0000).unwrap().display_at(0).to_string(),
        "nop $0"
    );
    assert_eq!(
        decode(0x0020_0000).unwrap().display_at(0).to_string(),
        "lnop"
    );
}

/// The listing: objdump's text where it reassembles; what it changes, each line assembling
/// back to its word.
#[test]
fn listing_lines_reassemble_to_their_word() {
    let cases = [
        // objdump's text as is.
        (0, ri10(0x0e0, 17, 3, 3), "ai\t$3,$3,17\t# 11"),
        (0, rr(0x258, 5, 4, 0), "hgt\t$0,$4,$5"),
        (0, 0x1a8 << 21 | fb(12), "bid\t$0"),
        // pc-relative operands as distances from `.`: GNU `as` 2.40 takes a number there as
        // the byte offset itself (`br 0x14` at 8 branches to 0x1c), an address as the target.
        (0x100, ri16(0x108, -4, 3), "brnz\t$3,.-0x10\t# f0"),
        (0x40, ri16(0x190, 0, 0), "br\t."),
        (0x0, ri16(0x190, -1, 0), "br\t.-0x4"),
        (0x8, ri16(0x190, 5, 0), "br\t.+0x14\t# 1c"),
        (0x0, 0x1ac << 21 | 0b10 << 14 | 7 << 7, "hbr\t.-0x400,$7"),
        // `nop` alone: gas reads `nop $0` as its `.nop` pseudo-op, whose operand is a byte
        // count (here a symbol `$0`), one `nop` all the same; `nop 127` would be 32 of them.
        (0, 0x4020_0000, "nop"),
        // `stop`'s signal, which objdump leaves out.
        (0, 0x2000, "stop\t8192\t# 2000"),
        (0, 0, "stop"),
        // GNU `as` refuses a negative shift count (`shli`, `shlhi`, `shlqbyi`): the same 7
        // bits unsigned.
        (0, ri7(0x07b, -1, 2, 1), "shli\t$1,$2,127\t# 7f"),
        (0, ri7(0x1f4, -1, 1, 6), "cbd\t$6,127($1)\t# 7f"),
        (0, ri7(0x3bf, -2, 2, 1), "dftsv\t$1,$2,126\t# 7e"),
        // hbrp is GNU's name without operands.
        (0x20, 0x1ac << 21 | fb(11), "hbrp"),
        // No form says these: a set bit in an ignored field, a feature combination GNU has no
        // name for, a value GNU refuses.
        (0, 0x4020_4000, ".long 0x40204000\t# nop $0"),
        // A `nop` with a register: gas has no spelling for it.
        (0, 0x4020_007f, ".long 0x4020007f\t# nop $127"),
        (
            0,
            0x1a8 << 21 | fb(12) | fb(13),
            ".long 0x350c0000\t# bide $0",
        ),
        (
            0,
            0x1ac << 21 | fb(11) | 3 << 7,
            ".long 0x35900180\t# hbrp 0x0,$3",
        ),
        (0, 0x002 << 21 | fb(12), ".long 0x00480000\t# syncd"),
        (
            0,
            ri7(0x07d, 42, 2, 1),
            ".long 0x0faa8101\t# rothmi $1,$2,42",
        ),
        (
            0,
            0x3b0 << 21 | 0 << 14 | 2 << 7 | 1,
            ".long 0x76000101\t# cflts $1,$2,173",
        ),
    ];
    for (pc, word, expected) in cases {
        let text = listing(word, pc);
        assert_eq!(text, expected, "{word:#010x} at {pc:#x}");
        assert_eq!(reassemble(&text, pc), word, "`{text}` at {pc:#x}");
    }
}
