//! Write -> read: every program in spu/programs, assembled, written as an SPU ELF executable
//! and read back, is the same program: segments, entry, symbols, listing, and the run.

use std::path::Path;

use pmprobe::spu::elf::{ElfWriteError, SpuElf, executable_size, write_executable};
use pmprobe::spu::exec::{LS_SIZE, SpuState};
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::isa::{SymbolLookup, write_listing};

const SYMBOLS: usize = 512;

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
        let size = executable_size(&program).unwrap();
        let mut file = vec![0u8; size + 7];
        let len = write_executable(&program, &image, &mut file).unwrap();
        assert_eq!(len, size, "{name}");
        let elf = SpuElf::parse(&file[..len]).unwrap_or_else(|e| panic!("{name}: {e}"));

        assert_eq!(elf.entry(), program.entry, "{name}");
        let text = &elf.segments()[0];
        assert_eq!(
            (text.address, text.bytes),
            (0, &image[..program.text_len]),
            "{name}"
        );
        assert!(text.is_executable());
        if program.data_len > 0 {
            let data = &elf.segments()[1];
            let range = program.data_start..program.data_start + program.data_len;
            assert_eq!(data.address as usize, program.data_start, "{name}");
            assert_eq!(data.bytes, &image[range], "{name}");
            assert!(!data.is_executable());
        } else {
            assert_eq!(elf.segments().len(), 1, "{name}");
        }

        let read: Vec<(&str, u32)> = elf.symbols().iter().map(|s| (s.name, s.address)).collect();
        let written: Vec<(&str, u32)> = program
            .symbols
            .iter()
            .filter(|s| s.is_label() && !s.name.starts_with(".L") && !s.name.contains('\u{2}'))
            .map(|s| (s.name.as_str(), s.address))
            .collect();
        assert_eq!(
            read, written,
            "{name}: every label but the local ones, in order"
        );
        for address in (0..program.len as u32 + 4).step_by(4) {
            assert_eq!(
                elf.symbols().symbol_at(address),
                program.symbols.symbol_at(address),
                "{name} at {address:#x}"
            );
        }

        let mut from_asm = String::new();
        let mut from_elf = String::new();
        write_listing(&image, 0, program.text_len, &program.symbols, &mut from_asm).unwrap();
        write_listing(&image, 0, program.text_len, elf.symbols(), &mut from_elf).unwrap();
        assert_eq!(from_elf, from_asm, "{name}: the listing");

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
    let mut file = vec![0u8; executable_size(&program).unwrap()];
    let len = write_executable(&program, &image, &mut file).unwrap();
    let elf = SpuElf::parse(&file[..len]).unwrap();
    let names: Vec<(&str, u32)> = elf.symbols().iter().map(|s| (s.name, s.address)).collect();
    assert_eq!(names, [("_start", 0), ("f", 16)]);
}

#[test]
fn writing_needs_a_buffer_of_the_executable_size_and_some_code() {
    let mut image = [0u8; 64];
    let program = assemble::<4>("_start: stop\n", &mut image).unwrap();
    let size = executable_size(&program).unwrap();
    let mut small = vec![0u8; size - 1];
    assert_eq!(
        write_executable(&program, &image, &mut small),
        Err(ElfWriteError::BufferTooSmall {
            needed: size,
            available: size - 1
        })
    );
    assert_eq!(
        write_executable(&program, &image[..2], &mut vec![0u8; size]),
        Err(ElfWriteError::ImageTooShort {
            needed: 4,
            available: 2
        })
    );
    let data_only = assemble::<4>(".data\n.word 1\n", &mut image).unwrap();
    assert_eq!(executable_size(&data_only), Err(ElfWriteError::NoCode));
}

#[test]
fn the_file_header_is_an_elf32_big_endian_spu_executable() {
    let mut image = [0u8; 64];
    let program = assemble::<4>("nop\n_start: stop\n", &mut image).unwrap();
    let mut file = vec![0u8; executable_size(&program).unwrap()];
    write_executable(&program, &image, &mut file).unwrap();
    // e_ident: magic, ELFCLASS32, ELFDATA2MSB, EV_CURRENT; e_type ET_EXEC, e_machine EM_SPU.
    assert_eq!(&file[..7], b"\x7fELF\x01\x02\x01");
    assert_eq!(&file[16..20], &[0, 2, 0, 23]);
    assert_eq!(&file[24..28], &4u32.to_be_bytes(), "e_entry = _start");
    // e_ehsize 52, e_phentsize 32, e_phnum 1, e_shentsize 40.
    assert_eq!(&file[40..48], &[0, 52, 0, 32, 0, 1, 0, 40]);
}
