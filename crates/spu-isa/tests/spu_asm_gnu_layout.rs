//! Where the SPU assembler puts sections: as spu-ld 2.40's default script (`ld --verbose`)
//! places the sections of one GNU `as` 2.40 object. Expected addresses are worked out here
//! from the script and gas's rules (section attributes from `obj-elf.c` and bfd's special
//! sections, sizes rounded to the section's alignment by `md_section_align`, `.lcomm` in
//! `.bss` subsection 1, `COMMON` in ld's hash table order); each source was also assembled
//! and linked with gas 2.40 + ld 2.40 for spu-elf, which put every symbol at the same address
//! with the same bytes.

use pmprobe_spu_isa::asm::{AsmErrorKind, SectionKind, assemble};

#[path = "support/asm.rs"]
mod asm;
use asm::{asm_err, words};

/// `lnop` and `nop $0`, gas's code padding (`spu_handle_align`).
const LNOP: u32 = 0x001 << 21;
const NOP: u32 = 0x201 << 21;

#[test]
fn output_sections_follow_the_default_script() {
    // Script order: .interrupt, .init, .text (.text.hot before .text), code orphans, .fini,
    // .rodata, read-only orphans; ALIGN(0x80); .tdata, .data, writable orphans, .bss
    // (.bss, then .lcomm room, rounded to 16), zero-initialised orphans; .toe at
    // ALIGN(128). Sections without the `a` flag are placed nowhere.
    let src = "
        .section .toe,\"a\",@progbits
toe1:   .word 0x11
        .data
d1:     .byte 1
        .section .rodata
r1:     .byte 2,3
        .section .ov_a1,\"ax\",@progbits
ov1:    nop
        .section .nonalloc,\"\",@progbits
na:     .word 5
        .section .comment
        .word 7
        .section .mydata,\"aw\",@progbits
md:     .word 8
        .section .myro,\"a\",@progbits
mr:     .word 9
        .section .mybss,\"aw\",@nobits
mb:     .space 8
        .section .bss
b1:     .space 4
        .lcomm lc, 4
        .section .bss
b2:     .space 2
        .section .text.hot,\"ax\"
th:     nop
        .section .fini,\"ax\"
fi:     nop
        .section .init,\"ax\"
in:     nop
        .section .interrupt,\"ax\"
it:     nop
        .text
_start: stop
        .align 3
        .section .data.x,\"aw\"
dx:     .byte 5
        .section .sbss,\"aw\",@nobits
sb:     .space 4
        .section .tdata,\"awT\"
td:     .word 3
";
    let mut image = [0u8; 512];
    let program = assemble::<32>(src, &mut image).unwrap();
    let at = |name: &str| program.symbol(name).unwrap();
    // .interrupt 0, .init 4, .text at 8 (its alignment 8): .text.hot first, then .text.
    assert_eq!(
        (at("it"), at("in"), at("th"), at("_start")),
        (0, 4, 8, 0x10)
    );
    // The code orphan .ov_a1 after .text (0x18, .text being 0x10 long), then .fini.
    assert_eq!((at("ov1"), at("fi")), (0x18, 0x1c));
    // .rodata, then the read-only orphan .myro; the text segment ends at 0x26.
    assert_eq!((at("r1"), at("mr")), (0x20, 0x22));
    assert_eq!(program.text_len, 0x26);
    // ALIGN(0x80): .tdata, .data (.data then .data.x), the writable orphan .mydata. (ld's
    // .symtab gives `td` as 0, its offset in the TLS block; its place is 0x80.)
    assert_eq!(
        (at("td"), at("d1"), at("dx"), at("md")),
        (0x80, 0x84, 0x85, 0x86)
    );
    assert_eq!(program.data_start, 0x80);
    // .bss at its alignment 4 (from `.lcomm lc, 4`): b1, b2, then lc after them.
    assert_eq!((at("b1"), at("b2"), at("lc")), (0x8c, 0x90, 0x94));
    // .bss ends at 0x98, rounded to 16: the orphans .mybss and .sbss follow.
    assert_eq!((at("mb"), at("sb")), (0xa0, 0xa8));
    // .toe at ALIGN(128).
    assert_eq!(at("toe1"), 0x100);
    assert_eq!(words(&image[0x100..], 4), [0x11]);
    // Not allocated: no place in local store, no bytes in the image.
    assert_eq!(
        program.section(".nonalloc").unwrap().kind,
        SectionKind::NotLoaded
    );
    assert_eq!(
        program.section(".comment").unwrap().kind,
        SectionKind::NotLoaded
    );
    assert_eq!(at("na"), 0);
    assert_eq!(program.len, 0x104);
}

#[test]
fn section_sizes_are_rounded_to_their_alignment() {
    // gas's md_section_align: code with nop/lnop, data with zeros. `.text.a` (8 bytes,
    // alignment 1) is followed at once by `.text.b`; `.text.c` aligned to 16 is 4 bytes long,
    // so the next section starts 16 bytes later.
    let src = "
        .section .text.a, \"ax\"
a:      stop 1
        stop 2
        .section .text.b, \"ax\"
b:      stop 3
        .section .text.c, \"ax\"
        .p2align 4
c:      stop 4
        .section .text.d, \"ax\"
d:      stop 5
";
    let mut image = [0u8; 256];
    let program = assemble::<8>(src, &mut image).unwrap();
    let at = |name: &str| program.symbol(name).unwrap();
    assert_eq!((at("a"), at("b"), at("c"), at("d")), (0, 8, 0x10, 0x20));
    assert_eq!(words(&image, 0x24), [1, 2, 3, 0, 4, LNOP, NOP, LNOP, 5]);
}

/// `bfd_hash_hash` (binutils `bfd/hash.c`), 64-bit: ld's global symbol table order.
fn ld_bucket(name: &str) -> u64 {
    let mut hash: u64 = 0;
    for c in name.bytes().map(u64::from) {
        hash = hash.wrapping_add(c.wrapping_add(c << 17));
        hash ^= hash >> 2;
    }
    let len = name.len() as u64;
    hash = hash.wrapping_add(len.wrapping_add(len << 17));
    hash ^= hash >> 2;
    hash % 4051
}

#[test]
fn commons_are_allocated_in_ld_s_order() {
    // ld allocates COMMON by traversing its hash table (`lang_common`), after the `.bss`
    // input sections; each common aligned to its given alignment, else to its size's power
    // of two, at most 16 (elf.c).
    let commons = [
        ("aa", 16),
        ("bb", 16),
        ("cc", 16),
        ("dd", 16),
        ("bitLen", 16),
        ("c1", 4),
        ("c2", 1),
        ("c5", 7),
    ];
    let mut src = String::from("_start: stop\n");
    for (name, size) in commons {
        src.push_str(&format!(".comm {name}, {size}\n"));
    }
    let mut image = [0u8; 512];
    let program = assemble::<16>(&src, &mut image).unwrap();
    let mut order = commons;
    order.sort_by_key(|(name, _)| ld_bucket(name));
    let mut address: u32 = 0x80;
    for (name, size) in order {
        let align = (size as u32).next_power_of_two().min(16);
        address = address.next_multiple_of(align);
        assert_eq!(program.symbol(name), Some(address), "{name}");
        address += size as u32;
    }
    // The order this gives, as ld 2.40 printed it.
    let mut by_address: Vec<_> = commons
        .iter()
        .map(|(n, _)| (program.symbol(n).unwrap(), *n))
        .collect();
    by_address.sort();
    let names: Vec<&str> = by_address.iter().map(|(_, n)| *n).collect();
    assert_eq!(names, ["bitLen", "cc", "c2", "bb", "aa", "c5", "dd", "c1"]);
}

#[test]
fn spu_bss_is_an_lcomm_with_an_alignment() {
    // tc-spu.c: `{"bss", s_lcomm_bytes, 1}`: `.bss symbol, size, alignment` (bytes, required);
    // `.lcomm symbol, size` aligns by size; both go after `.bss`'s own bytes.
    let src = "_start: stop\n.section .bss\nb: .space 3\n.bss x, 2, 16\n.lcomm y, 8\n";
    let mut image = [0u8; 256];
    let program = assemble::<8>(src, &mut image).unwrap();
    let at = |name: &str| program.symbol(name).unwrap();
    // .bss at 0x80 (its alignment 16); b, then x at 16, y at 24.
    assert_eq!((at("b"), at("x"), at("y")), (0x80, 0x90, 0x98));
    // A bare `.bss` is gas's "expected symbol name"; the alignment is required.
    assert!(matches!(
        asm_err(".bss\nnop").kind,
        AsmErrorKind::UnexpectedToken { .. }
    ));
    assert!(matches!(
        asm_err(".bss x, 4").kind,
        AsmErrorKind::UnexpectedToken { .. }
    ));
    assert!(matches!(
        asm_err(".lcomm x, 4, 16").kind,
        AsmErrorKind::UnexpectedToken { .. }
    ));
}
