//! Decoder and opcode-table tests. Expected values come from the SPU encoding rules and the
//! opcode list of binutils `include/opcode/spu-insns.h` (see `docs/spu-timing-model.md`,
//! Sources), embedded below as text, never from the decoder's own output.

use pmprobe_spu_isa::{
    DECODE_TABLE, Format, IClass, ILLEGAL_INDEX, MNEMONIC_COUNT, Mnemonic, OPCODES, VARIANTS,
};
use pmprobe_spu_isa::{IllegalInstruction, decode};

/// The binutils opcode list, one line per pipe class: `name FORMAT hex11/opbits`.
const REFERENCE: &str = "FX2: il RI16 204/010000001; ilh RI16 20c/010000011; ilhu RI16 208/010000010; ila RI18 210/0100001; iohl RI16 304/011000001; andbi RI10 0b0/00010110; andhi RI10 0a8/00010101; andi RI10 0a0/00010100; orbi RI10 030/00000110; orhi RI10 028/00000101; ori RI10 020/00000100; xorbi RI10 230/01000110; xorhi RI10 228/01000101; xori RI10 220/01000100; ahi RI10 0e8/00011101; ai RI10 0e0/00011100; sfhi RI10 068/00001101; sfi RI10 060/00001100; cgtbi RI10 270/01001110; cgthi RI10 268/01001101; cgti RI10 260/01001100; clgtbi RI10 2f0/01011110; clgthi RI10 2e8/01011101; clgti RI10 2e0/01011100; ceqbi RI10 3f0/01111110; ceqhi RI10 3e8/01111101; ceqi RI10 3e0/01111100; hgti RI10 278/01001111; hlgti RI10 2f8/01011111; heqi RI10 3f8/01111111; clz RR 2a5/01010100101; xsbh RR 2b6/01010110110; xshw RR 2ae/01010101110; xswd RR 2a6/01010100110; a RR 0c0/00011000000; ah RR 0c8/00011001000; sf RR 040/00001000000; sfh RR 048/00001001000; cgt RR 240/01001000000; cgtb RR 250/01001010000; cgth RR 248/01001001000; clgt RR 2c0/01011000000; clgtb RR 2d0/01011010000; clgth RR 2c8/01011001000; ceq RR 3c0/01111000000; ceqb RR 3d0/01111010000; ceqh RR 3c8/01111001000; hgt RR 258/01001011000; hlgt RR 2d8/01011011000; heq RR 3d8/01111011000; fceq RR 3c2/01111000010; fcmeq RR 3ca/01111001010; fcgt RR 2c2/01011000010; fcmgt RR 2ca/01011001010; and RR 0c1/00011000001; nand RR 0c9/00011001001; or RR 041/00001000001; nor RR 049/00001001001; xor RR 241/01001000001; eqv RR 249/01001001001; andc RR 2c1/01011000001; orc RR 2c9/01011001001; addx RR 340/01101000000; cg RR 0c2/00011000010; cgx RR 342/01101000010; sfx RR 341/01101000001; bg RR 042/00001000010; bgx RR 343/01101000011; dfceq RR 3c3/01111000011; dfcmeq RR 3cb/01111001011; dfcgt RR 2c3/01011000011; dfcmgt RR 2cb/01011001011; dftsv RI7 3bf/01110111111; selb RRR 400/1000\n\
FX3: roti RI7 078/00001111000; rotmi RI7 079/00001111001; rotmai RI7 07a/00001111010; shli RI7 07b/00001111011; rothi RI7 07c/00001111100; rothmi RI7 07d/00001111101; rotmahi RI7 07e/00001111110; shlhi RI7 07f/00001111111; rot RR 058/00001011000; rotm RR 059/00001011001; rotma RR 05a/00001011010; shl RR 05b/00001011011; roth RR 05c/00001011100; rothm RR 05d/00001011101; rotmah RR 05e/00001011110; shlh RR 05f/00001011111\n\
FXB: cntb RR 2b4/01010110100; absdb RR 053/00001010011; avgb RR 0d3/00011010011; sumb RR 253/01001010011\n\
FP6: fa RR 2c4/01011000100; fs RR 2c5/01011000101; fm RR 2c6/01011000110; fma RRR 700/1110; fms RRR 780/1111; fnms RRR 680/1101\n\
FP7: mpyi RI10 3a0/01110100; mpyui RI10 3a8/01110101; cflts RI8 3b0/0111011000; cfltu RI8 3b2/0111011001; csflt RI8 3b4/0111011010; cuflt RI8 3b6/0111011011; fscrwr RR 3ba/01110111010; mpy RR 3c4/01111000100; mpyh RR 3c5/01111000101; mpyhh RR 3c6/01111000110; mpyhhu RR 3ce/01111001110; mpys RR 3c7/01111000111; mpyu RR 3cc/01111001100; fi RR 3d4/01111010100; mpyhha RR 346/01101000110; mpyhhau RR 34e/01101001110; mpya RRR 600/1100\n\
FPD: fesd RR 3b8/01110111000; frds RR 3b9/01110111001; fscrrd RR 398/01110011000; dfa RR 2cc/01011001100; dfs RR 2cd/01011001101; dfm RR 2ce/01011001110; dfma RR 35c/01101011100; dfms RR 35d/01101011101; dfnms RR 35e/01101011110; dfnma RR 35f/01101011111\n\
NOP: nop RR 201/01000000001\n\
SHUF: fsmbi RI16 194/001100101; frest RR 1b8/00110111000; frsqest RR 1b9/00110111001; fsm RR 1b4/00110110100; fsmh RR 1b5/00110110101; fsmb RR 1b6/00110110110; gb RR 1b0/00110110000; gbh RR 1b1/00110110001; gbb RR 1b2/00110110010; cbd RI7 1f4/00111110100; chd RI7 1f5/00111110101; cwd RI7 1f6/00111110110; cdd RI7 1f7/00111110111; rotqbii RI7 1f8/00111111000; rotqmbii RI7 1f9/00111111001; shlqbii RI7 1fb/00111111011; rotqbyi RI7 1fc/00111111100; rotqmbyi RI7 1fd/00111111101; shlqbyi RI7 1ff/00111111111; cbx RR 1d4/00111010100; chx RR 1d5/00111010101; cwx RR 1d6/00111010110; cdx RR 1d7/00111010111; rotqbi RR 1d8/00111011000; rotqmbi RR 1d9/00111011001; shlqbi RR 1db/00111011011; rotqby RR 1dc/00111011100; rotqmby RR 1dd/00111011101; shlqby RR 1df/00111011111; rotqbybi RR 1cc/00111001100; rotqmbybi RR 1cd/00111001101; shlqbybi RR 1cf/00111001111; shufb RRR 580/1011\n\
LS: lqa RI16 184/001100001; lqr RI16 19c/001100111; stqa RI16 104/001000001; stqr RI16 11c/001000111; lqd RI10 1a0/00110100; stqd RI10 120/00100100; lqx RR 1c4/00111000100; stqx RR 144/00101000100; hbra LBT 080/0001000; hbrr LBT 090/0001001; hbr LBTI 1ac/00110101100\n\
BR: br RI16 190/001100100; brsl RI16 198/001100110; bra RI16 180/001100000; brasl RI16 188/001100010; brz RI16 100/001000000; brnz RI16 108/001000010; brhz RI16 110/001000100; brhnz RI16 118/001000110; bi RR 1a8/00110101000; bisl RR 1a9/00110101001; iret RR 1aa/00110101010; bisled RR 1ab/00110101011; biz RR 128/00100101000; binz RR 129/00100101001; bihz RR 12a/00100101010; bihnz RR 12b/00100101011; stop RR 000/00000000000; stopd RR 140/00101000000; sync RR 002/00000000010; dsync RR 003/00000000011; orx RR 1f0/00111110000\n\
SPR: mfspr RR 00c/00000001100; rdch RR 00d/00000001101; rchcnt RR 00f/00000001111; mtspr RR 10c/00100001100; wrch RR 10d/00100001101\n\
LNOP: lnop RR 001/00000000001";

struct RefOp {
    class: &'static str,
    name: &'static str,
    format: &'static str,
    opcode: u16,
    op_bits: u32,
    op_value: u32,
}

fn reference() -> Vec<RefOp> {
    let mut out = Vec::new();
    for line in REFERENCE.lines() {
        let (class, rest) = line.split_once(": ").unwrap();
        for entry in rest.split("; ") {
            let mut parts = entry.split(' ');
            let name = parts.next().unwrap();
            let format = parts.next().unwrap();
            let (hex, bin) = parts.next().unwrap().split_once('/').unwrap();
            out.push(RefOp {
                class,
                name,
                format,
                opcode: u16::from_str_radix(hex, 16).unwrap(),
                op_bits: bin.len() as u32,
                op_value: u32::from_str_radix(bin, 2).unwrap(),
            });
        }
    }
    out
}

fn format_name(f: Format) -> &'static str {
    match f {
        Format::Rr => "RR",
        Format::Rrr => "RRR",
        Format::Ri7 => "RI7",
        Format::Ri8 => "RI8",
        Format::Ri10 => "RI10",
        Format::Ri16 => "RI16",
        Format::Ri18 => "RI18",
        Format::Lbt => "LBT",
        Format::Lbti => "LBTI",
    }
}

/// Field at ISA bits `first..=last` (bit 0 = MSB).
fn bits(word: u32, first: u32, last: u32) -> u32 {
    let width = last - first + 1;
    (word >> (31 - last)) & ((1u32 << width) - 1)
}

fn sext(value: u32, width: u32) -> i32 {
    ((value << (32 - width)) as i32) >> (32 - width)
}

struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

#[test]
fn table_has_exactly_199_base_mnemonics_with_unique_names() {
    assert_eq!(MNEMONIC_COUNT, 199);
    assert_eq!(OPCODES.len(), 199);
    assert_eq!(Mnemonic::ALL.len(), 199);
    for (i, row) in OPCODES.iter().enumerate() {
        assert_eq!(row.mnemonic as usize, i);
        assert_eq!(Mnemonic::ALL[i], row.mnemonic);
        assert_eq!(
            OPCODES.iter().filter(|r| r.name == row.name).count(),
            1,
            "{}",
            row.name
        );
        assert!(VARIANTS.iter().all(|v| v.name != row.name), "{}", row.name);
    }
    // Variant names are unique too.
    for v in VARIANTS.iter() {
        assert_eq!(
            VARIANTS.iter().filter(|w| w.name == v.name).count(),
            1,
            "{}",
            v.name
        );
    }
}

#[test]
fn table_matches_the_binutils_reference_list() {
    let reference = reference();
    assert_eq!(reference.len(), 199);
    for r in &reference {
        let m = Mnemonic::from_name(r.name).unwrap_or_else(|| panic!("missing {}", r.name));
        let info = m.info();
        assert_eq!(info.name, r.name);
        assert_eq!(m.name(), r.name);
        assert_eq!(m.to_string(), r.name);
        assert_eq!(info.class.to_string(), r.class);
        assert_eq!(format_name(info.format), r.format, "{}", r.name);
        assert_eq!(info.opcode, r.opcode, "{}", r.name);
        assert_eq!(info.class.name(), r.class, "{}", r.name);
        assert_eq!(info.format.opcode_bits(), r.op_bits, "{}", r.name);
        assert_eq!(
            u32::from(r.opcode),
            r.op_value << (11 - r.op_bits),
            "{}",
            r.name
        );
    }
}

#[test]
fn opcode_ranges_never_overlap_and_the_table_covers_exactly_them() {
    let reference = reference();
    let mut owner: Vec<Option<&str>> = vec![None; 2048];
    for r in &reference {
        let span = 1usize << (11 - r.op_bits);
        for k in 0..span {
            let slot = &mut owner[r.opcode as usize + k];
            assert!(slot.is_none(), "{} overlaps {:?}", r.name, slot);
            *slot = Some(r.name);
        }
    }
    for (index, expected) in owner.iter().enumerate() {
        let entry = DECODE_TABLE[index];
        match expected {
            None => assert_eq!(entry, ILLEGAL_INDEX, "top bits {index:#x}"),
            Some(name) => assert_eq!(OPCODES[entry as usize].name, *name, "top bits {index:#x}"),
        }
    }
}

#[test]
fn every_uncovered_opcode_pattern_is_illegal_with_its_word() {
    let reference = reference();
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut illegal_patterns = 0;
    for top in 0u32..2048 {
        let covered = reference.iter().any(|r| {
            let span = 1u32 << (11 - r.op_bits);
            top >= u32::from(r.opcode) && top < u32::from(r.opcode) + span
        });
        let word = (top << 21) | (rng.next() & 0x1f_ffff);
        if covered {
            assert!(decode(word).is_ok(), "{word:#x}");
        } else {
            illegal_patterns += 1;
            assert_eq!(decode(word), Err(IllegalInstruction { word }));
        }
    }
    assert!(illegal_patterns > 0);
    assert_eq!(
        decode(0x0080_0000),
        Err(IllegalInstruction { word: 0x0080_0000 })
    );
    assert_eq!(decode(0xffff_ffff).map(|i| i.mnemonic), Ok(Mnemonic::Fms));
}

#[test]
fn random_fields_decode_per_format() {
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    for r in reference() {
        let m = Mnemonic::from_name(r.name).unwrap();
        for _ in 0..64 {
            let low_mask = (1u32 << (32 - r.op_bits)) - 1;
            let word = (r.op_value << (32 - r.op_bits)) | (rng.next() & low_mask);
            let i = decode(word).unwrap();
            assert_eq!(i.mnemonic, m, "{word:#x}");
            assert_eq!(i.word, word);
            let (rt, ra, rb, rc, imm, ho): (u32, u32, u32, u32, i32, i32) = match r.format {
                "RR" => (
                    bits(word, 25, 31),
                    bits(word, 18, 24),
                    bits(word, 11, 17),
                    0,
                    0,
                    0,
                ),
                "RRR" => (
                    bits(word, 4, 10),
                    bits(word, 18, 24),
                    bits(word, 11, 17),
                    bits(word, 25, 31),
                    0,
                    0,
                ),
                "RI7" => (
                    bits(word, 25, 31),
                    bits(word, 18, 24),
                    0,
                    0,
                    sext(bits(word, 11, 17), 7),
                    0,
                ),
                "RI8" => (
                    bits(word, 25, 31),
                    bits(word, 18, 24),
                    0,
                    0,
                    bits(word, 10, 17) as i32,
                    0,
                ),
                "RI10" => (
                    bits(word, 25, 31),
                    bits(word, 18, 24),
                    0,
                    0,
                    sext(bits(word, 8, 17), 10),
                    0,
                ),
                "RI16" => (bits(word, 25, 31), 0, 0, 0, sext(bits(word, 9, 24), 16), 0),
                "RI18" => (bits(word, 25, 31), 0, 0, 0, bits(word, 7, 24) as i32, 0),
                "LBT" => (
                    0,
                    0,
                    0,
                    0,
                    sext(bits(word, 9, 24), 16),
                    sext((bits(word, 7, 8) << 7) | bits(word, 25, 31), 9),
                ),
                "LBTI" => (
                    0,
                    bits(word, 18, 24),
                    0,
                    0,
                    0,
                    sext((bits(word, 16, 17) << 7) | bits(word, 25, 31), 9),
                ),
                other => panic!("format {other}"),
            };
            assert_eq!(
                (
                    u32::from(i.rt),
                    u32::from(i.ra),
                    u32::from(i.rb),
                    u32::from(i.rc),
                    i.imm,
                    i32::from(i.hint_offset)
                ),
                (rt, ra, rb, rc, imm, ho),
                "{} {word:#010x}",
                r.name
            );
        }
    }
}

#[test]
fn known_words() {
    // fma $50,$51,$12,$52: op 1110, RT(dest)=50 in bits 4-10, RB=12, RA=51, RC=52.
    let fma = 0b1110u32 << 28 | 50 << 21 | 12 << 14 | 51 << 7 | 52;
    let i = decode(fma).unwrap();
    assert_eq!(
        (i.mnemonic, i.rt, i.ra, i.rb, i.rc),
        (Mnemonic::Fma, 50, 51, 12, 52)
    );
    assert_eq!(i.target(), Some(50));
    assert_eq!(i.sources(), [Some(51), Some(12), Some(52)]);
    assert_eq!(i.class(), IClass::Fp6);

    // nop / lnop per the reference; RT of nop is ignored.
    let nop = decode(0x4020_0000).unwrap();
    assert_eq!((nop.mnemonic, nop.class()), (Mnemonic::Nop, IClass::Nop));
    assert_eq!(decode(0x4020_007f).unwrap().mnemonic, Mnemonic::Nop);
    assert_eq!(decode(0x4020_007f).unwrap().target(), None);
    assert_eq!(decode(0x4020_007f).unwrap().sources(), [None, None, None]);
    let lnop = decode(0x0020_0000).unwrap();
    assert_eq!(
        (lnop.mnemonic, lnop.class()),
        (Mnemonic::Lnop, IClass::Lnop)
    );

    // prof_cp30 = and $30,$30,$30 = 0x18278F1E.
    let cp = decode(0x1827_8f1e).unwrap();
    assert_eq!(
        (cp.mnemonic, cp.rt, cp.ra, cp.rb),
        (Mnemonic::And, 30, 30, 30)
    );

    // lqd $3,16($1): I10 = 16>>4 = 1.
    let lqd = decode(0x1a0 << 21 | 1 << 14 | 1 << 7 | 3).unwrap();
    assert_eq!(
        (lqd.mnemonic, lqd.rt, lqd.ra, lqd.imm),
        (Mnemonic::Lqd, 3, 1, 1)
    );
    assert!(lqd.is_load() && !lqd.is_store());
    assert_eq!(lqd.target(), Some(3));
    assert_eq!(lqd.sources(), [Some(1), None, None]);

    // stqd $5,-32($1): stores read RT and RA, write nothing.
    let stqd = decode(0x120 << 21 | (0x3fe << 14) | 1 << 7 | 5).unwrap();
    assert_eq!((stqd.mnemonic, stqd.imm), (Mnemonic::Stqd, -2));
    assert!(stqd.is_store());
    assert_eq!(stqd.target(), None);
    assert_eq!(stqd.sources(), [Some(1), Some(5), None]);

    // stop with signal 0x2000 (bits 18-31); bits 11-17 ignored.
    let stop = decode(0x0000_2000 | 0x7f << 14).unwrap();
    assert_eq!(
        (stop.mnemonic, stop.stop_signal()),
        (Mnemonic::Stop, 0x2000)
    );
}

#[test]
fn immediates_are_extended_per_format() {
    // ai $2,$3,-512: I10 = 0x200.
    assert_eq!(
        decode(0x0e0 << 21 | 0x200 << 14 | 3 << 7 | 2).unwrap().imm,
        -512
    );
    // ila $2,262143: zero-extended I18.
    assert_eq!(decode(0x210 << 21 | 0x3ffff << 7 | 2).unwrap().imm, 262_143);
    // cflts I8 = 0xff stays 255.
    assert_eq!(decode(0x3b0 << 21 | 0xff << 14).unwrap().imm, 255);
    // roti I7 = 0x40 -> -64.
    assert_eq!(decode(0x078 << 21 | 0x40 << 14).unwrap().imm, -64);
    // il I16 = 0x8000 -> -32768.
    assert_eq!(decode(0x204 << 21 | 0x8000 << 7).unwrap().imm, -32768);
    // hbrr ROH=0b10 ROL=0 -> 9-bit 0x100 -> -256 words; I16 = 0xffff -> -1.
    let h = decode(0x090 << 21 | 0b10 << 23 | 0xffff << 7).unwrap();
    assert_eq!(
        (h.mnemonic, h.hint_offset, h.imm),
        (Mnemonic::Hbrr, -256, -1)
    );
    assert!(h.is_hint() && !h.is_branch());
    // hbr ROH (bits 16-17) = 0b01, ROL = 0x7f -> 0xff = 255 words.
    let h = decode(0x1ac << 21 | 0b01 << 14 | 9 << 7 | 0x7f).unwrap();
    assert_eq!((h.mnemonic, h.hint_offset, h.ra), (Mnemonic::Hbr, 255, 9));
}

#[test]
fn feature_bits_and_variants() {
    // bid $0: bi + D (bit 12).
    let bid = decode(0x1a8 << 21 | 1 << (31 - 12)).unwrap();
    assert_eq!((bid.mnemonic, bid.feature_bits()), (Mnemonic::Bi, 0x20));
    assert!(bid.is_branch());
    // bie: E (bit 13).
    assert_eq!(
        decode(0x1a8 << 21 | 1 << (31 - 13)).unwrap().feature_bits(),
        0x10
    );
    // syncc: C (bit 11).
    let syncc = decode(0x002 << 21 | 1 << (31 - 11)).unwrap();
    assert_eq!(
        (syncc.mnemonic, syncc.feature_bits()),
        (Mnemonic::Sync, 0x40)
    );
    // hbrp: P (bit 11) on hbr.
    let hbrp = decode(0x1ac << 21 | 1 << (31 - 11)).unwrap();
    assert!(hbrp.is_hint() && hbrp.is_hbrp());
    // No feature bits on ordinary instructions even if RB has the same bits set.
    assert_eq!(decode(0x0c0 << 21 | 0x70 << 14).unwrap().feature_bits(), 0);
}

#[test]
fn dependencies_follow_binutils() {
    let word = |op: u32, rt: u32, ra: u32, rb: u32| op << 21 | rb << 14 | ra << 7 | rt;
    // brz $4,... reads RT only.
    let brz = decode(0x100 << 21 | 4).unwrap();
    assert_eq!((brz.target(), brz.sources()), (None, [Some(4), None, None]));
    // iohl reads and writes RT.
    let iohl = decode(0x304 << 21 | 7).unwrap();
    assert_eq!(
        (iohl.target(), iohl.sources()),
        (Some(7), [Some(7), None, None])
    );
    // mpyhha $1,$2,$3 reads RA, RB and RT.
    let m = decode(word(0x346, 1, 2, 3)).unwrap();
    assert_eq!(
        (m.target(), m.sources()),
        (Some(1), [Some(2), Some(3), Some(1)])
    );
    // brsl writes RT, reads nothing.
    let brsl = decode(0x198 << 21).unwrap();
    assert_eq!(
        (brsl.target(), brsl.sources()),
        (Some(0), [None, None, None])
    );
    assert!(brsl.is_branch());
    // wrch reads RT; rdch writes RT.
    assert_eq!(
        decode(word(0x10d, 5, 28, 0)).unwrap().sources(),
        [Some(5), None, None]
    );
    assert_eq!(decode(word(0x00d, 5, 29, 0)).unwrap().target(), Some(5));
    // heq reads RA and RB, writes nothing.
    let heq = decode(word(0x3d8, 0, 8, 9)).unwrap();
    assert_eq!(
        (heq.target(), heq.sources()),
        (None, [Some(8), Some(9), None])
    );
    // stop, orx, stopd classes.
    assert_eq!(decode(0).unwrap().class(), IClass::Br);
    assert!(!decode(0).unwrap().is_branch());
    assert_eq!(decode(word(0x1f0, 1, 2, 0)).unwrap().class(), IClass::Br);
}

#[test]
fn classes_and_pipes() {
    let even = ["FX2", "FX3", "FXB", "FP6", "FP7", "FPD", "NOP"];
    let names: Vec<&str> = IClass::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(
        names,
        [
            "FX2", "SHUF", "FX3", "LS", "BR", "SPR", "LNOP", "NOP", "FXB", "FP6", "FP7", "FPD"
        ]
    );
    for c in IClass::ALL {
        assert_eq!(
            c.pipe(),
            if even.contains(&c.name()) { 0 } else { 1 },
            "{}",
            c.name()
        );
    }
}
