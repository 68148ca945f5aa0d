//! Write -> read: every program in spu/programs, assembled, written as an SPU ELF executable
//! and read back, is the same program: segments, entry, symbols, listing, and the run.

use std::path::Path;

use pmprobe::spu::elf::{ElfNames, ElfWriteError, SpuElf, executable_size, write_executable};
use pmprobe::spu::exec::{LS_SIZE, SpuState};
use pmprobe::spu::isa::asm::{Program, assemble};
use pmprobe::spu::isa::write_listing;

const SYMBOLS: usize = 512;

/// What spu-ld records of a link of `prog.o` into `prog.elf`.
const NAMES: ElfNames<'static> = ElfNames {
    output: "prog.elf",
    objects: &["prog.o"],
};

/// The program written and read back.
fn written<const N: usize>(program: &Program<N>, image: &[u8]) -> Vec<u8> {
    let size = executable_size(program, &NAMES).unwrap();
    let mut file = vec![0u8; size + 7];
    let len = write_executable(program, image, &NAMES, &mut file).unwrap();
    assert_eq!(len, size);
    file.truncate(len);
    file
}

fn programs() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("spu/programs");
    let mut list: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "s"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    list.sort();
    assert!(list.len() >= 10, "the example programs");
    list
}

#[test]
fn every_example_program_survives_write_and_read() {
    for (name, source) in programs() {
        let mut image = vec![0u8; LS_SIZE as usize];
        let program = assemble::<SYMBOLS>(&source, &mut image).unwrap();
        let file = written(&program, &image);
        let elf = SpuElf::parse(&file).unwrap_or_else(|e| panic!("{name}: {e}"));

        assert_eq!(elf.entry(), program.entry, "{name}");
        // spu-ld rounds each segment's size up to 16 bytes (`spu_elf_modify_headers`).
        let text = &elf.segments()[0];
        let text_len = program.text_len.next_multiple_of(16);
        assert_eq!(
            (text.address, text.bytes),
            (0, &image[..text_len]),
            "{name}"
        );
        assert!(text.is_executable());
        if program.data_len > 0 {
            let data = &elf.segments()[1];
            let end = (program.data_start + program.data_len).next_multiple_of(16);
            assert_eq!(data.address as usize, program.data_start, "{name}");
            assert_eq!(data.bytes, &image[program.data_start..end], "{name}");
            assert!(!data.is_executable());
        }

        // Every label but the local ones, and the link's symbols ld writes (`_end`...); the
        // reader leaves out absolute values without a type.
        let mut read: Vec<(&str, u32)> =
            elf.symbols().iter().map(|s| (s.name, s.address)).collect();
        let mut expected: Vec<(&str, u32)> = program
            .symbols
            .iter()
            .filter(|s| s.is_label() && !s.name.starts_with(".L") && !s.name.contains('\u{2}'))
            .map(|s| (s.name.as_str(), s.address))
            .chain(
                program
                    .linker_symbols
                    .iter()
                    .filter(|s| s.in_output && s.section.is_some())
                    .map(|s| (s.name.as_str(), s.value)),
            )
            .collect();
        read.sort();
        expected.sort();
        assert_eq!(read, expected, "{name}");
        for (label, address) in &read {
            assert_eq!(elf.symbols().address_of(label), Some(*address), "{name}");
        }

        // Where one address has one name, the listings agree (with several, each names it
        // by its own order).
        let unambiguous = (0..program.text_len as u32)
            .step_by(4)
            .all(|address| read.iter().filter(|(_, a)| *a == address).count() <= 1);
        if unambiguous {
            let mut from_asm = String::new();
            let mut from_elf = String::new();
            write_listing(&image, 0, program.text_len, &program.symbols, &mut from_asm).unwrap();
            write_listing(&image, 0, program.text_len, elf.symbols(), &mut from_elf).unwrap();
            assert_eq!(from_elf, from_asm, "{name}: the listing");
        }

        let mut assembled = Box::new(SpuState::new(0));
        assembled
            .load_program(&image[..program.len], program.entry)
            .unwrap();
        let mut loaded = Box::new(SpuState::new(0));
        elf.load_into(&mut loaded);
        for address in (0..LS_SIZE).step_by(16) {
            assert_eq!(
                loaded.local_store().load_quadword(address),
                assembled.local_store().load_quadword(address),
                "{name}: LS at {address:#x}"
            );
        }
        let (a, b) = (assembled.run(200_000), loaded.run(200_000));
        assert_eq!(a.end, b.end, "{name}");
        assert_eq!(assembled.registers(), loaded.registers(), "{name}");
        assert_eq!(
            assembled.instructions_retired(),
            loaded.instructions_retired()
        );
    }
}

#[test]
fn local_labels_stay_out_of_the_symbol_table_as_with_gas() {
    // gas manual, "Symbol Names": local symbols (`.L` prefix on ELF targets) and the
    // numeric local labels `N:` are for the assembler's use and are not saved in the
    // object file, so no ELF tool ever shows them.
    let source = "_start: il $3, 2\n1: ai $3, $3, -1\n brnz $3, 1b\n.Lout: br f\nf: stop\n";
    let mut image = vec![0u8; LS_SIZE as usize];
    let program = assemble::<SYMBOLS>(source, &mut image).unwrap();
    let file = written(&program, &image);
    let elf = SpuElf::parse(&file).unwrap();
    let names: Vec<(&str, u32)> = elf.symbols().iter().map(|s| (s.name, s.address)).collect();
    // ld's order: the local symbols, then the global ones (the script's `__bss_start`,
    // `_edata`, `_end` at ALIGN(0x80) past the code, as spu-ld 2.40 wrote them).
    assert_eq!(
        names,
        [
            ("_start", 0),
            ("f", 16),
            ("__bss_start", 0x80),
            ("_edata", 0x80),
            ("_end", 0x80)
        ]
    );
}

#[test]
fn writing_needs_a_buffer_of_the_executable_size_and_some_code() {
    let mut image = [0u8; 64];
    let program = assemble::<4>("_start: stop\n", &mut image).unwrap();
    let size = executable_size(&program, &NAMES).unwrap();
    let mut small = vec![0u8; size - 1];
    assert_eq!(
        write_executable(&program, &image, &NAMES, &mut small),
        Err(ElfWriteError::BufferTooSmall {
            needed: size,
            available: size - 1
        })
    );
    assert_eq!(
        write_executable(&program, &image[..2], &NAMES, &mut vec![0u8; size]),
        Err(ElfWriteError::ImageTooShort {
            needed: 4,
            available: 2
        })
    );
    let data_only = assemble::<4>(".data\n.word 1\n", &mut image).unwrap();
    assert_eq!(
        executable_size(&data_only, &NAMES),
        Err(ElfWriteError::NoCode)
    );
}

#[test]
fn an_entry_point_past_the_code_is_refused_not_written() {
    // spu-ld pads the text segment to 16 bytes: a global `_start` after one instruction is
    // at 4, inside it (ld 2.40 wrote e_entry 4 in a 16-byte segment); after four it is at
    // 16, past the segment, where ld writes a file the reader refuses.
    let mut image = [0u8; 64];
    let inside = assemble::<4>(".global _start\nnop\n_start:\n", &mut image).unwrap();
    let elf_file = written(&inside, &image);
    assert_eq!(SpuElf::parse(&elf_file).unwrap().entry(), 4);
    let past = ".global _start\nnop\nnop\nnop\nnop\n_start:\n";
    let past = assemble::<4>(past, &mut image).unwrap();
    assert_eq!(
        executable_size(&past, &NAMES),
        Err(ElfWriteError::EntryOutsideSegments { entry: 16 })
    );
}

#[test]
fn the_file_header_is_an_elf32_big_endian_spu_executable() {
    let mut image = [0u8; 64];
    let program = assemble::<4>(".global _start\nnop\n_start: stop\n", &mut image).unwrap();
    let file = written(&program, &image);
    // e_ident: magic, ELFCLASS32, ELFDATA2MSB, EV_CURRENT; e_type ET_EXEC, e_machine EM_SPU.
    assert_eq!(&file[..7], b"\x7fELF\x01\x02\x01");
    assert_eq!(&file[16..20], &[0, 2, 0, 23]);
    assert_eq!(&file[24..28], &4u32.to_be_bytes(), "e_entry = _start");
    // e_ehsize 52, e_phentsize 32, e_phnum 2 (the code, spu-ld's PT_NOTE), e_shentsize 40.
    assert_eq!(&file[40..48], &[0, 52, 0, 32, 0, 2, 0, 40]);
}
