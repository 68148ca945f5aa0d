//! The SPU ELF reader on files built by hand (tests/spu_elf_support): what it loads, the
//! symbols it names, and the typed error of each kind of bad file.

mod spu_elf_support;

use pmprobe::spu::elf::{ElfError, ElfPart, NameProblem, SpuElf, SymbolKind};
use pmprobe::spu::exec::{RunEnd, SpuState, StopReason};
use pmprobe::spu::isa::SymbolLookup;
use spu_elf_support::*;

fn parse(file: &TestElf) -> Result<(), ElfError> {
    SpuElf::parse(&file.build()).map(|_| ())
}

#[test]
fn a_minimal_executable_loads_and_runs_from_its_entry() {
    let bytes = TestElf::minimal().build();
    let elf = SpuElf::parse(&bytes).unwrap();
    assert_eq!(elf.entry(), 0);
    assert_eq!(elf.segments().len(), 1);
    let mut spu = Box::new(SpuState::new(0));
    elf.load_into(&mut spu);
    assert_eq!(spu.local_store().load_word(0), 0x4080_1503);
    let outcome = spu.run(100);
    assert!(matches!(
        outcome.end,
        RunEnd::Stopped(StopReason::Stop { pc: 4, .. })
    ));
    assert_eq!(spu.register(3).0 >> 96, 42, "il $3,42 ran");
}

#[test]
fn memory_size_beyond_file_size_is_zeroed_and_execution_starts_at_e_entry() {
    let mut file = TestElf::minimal();
    // Code at 0x200 (entry), data at 0x1000: 8 file bytes, 0x40 in memory.
    file.payload.extend_from_slice(&[0xaa; 8]);
    file.segments = vec![
        Segment::load(0, 0x200, 8, 8),
        Segment {
            flags: PF_R | PF_W,
            ..Segment::load(8, 0x1000, 8, 0x40)
        },
    ];
    file.entry = 0x200;
    let bytes = file.build();
    let elf = SpuElf::parse(&bytes).unwrap();
    let mut spu = Box::new(SpuState::new(0));
    for address in 0x1000..0x1040 {
        spu.local_store_mut().store_byte(address, 0x55);
    }
    elf.load_into(&mut spu);
    assert_eq!(spu.pc(), 0x200);
    let ls = spu.local_store();
    assert_eq!(ls.load_word(0x200), 0x4080_1503);
    assert!((0x1000..0x1008).all(|a| ls.load_byte(a) == 0xaa));
    assert!(
        (0x1008..0x1040).all(|a| ls.load_byte(a) == 0),
        "p_memsz past p_filesz is zero"
    );
    assert_eq!(ls.load_byte(0x1040), 0, "nothing written past p_memsz");
    assert!(elf.segments()[0].is_executable() && !elf.segments()[1].is_executable());
}

#[test]
fn other_program_headers_are_ignored() {
    let mut file = TestElf::minimal();
    file.segments.push(Segment {
        kind: PT_NOTE,
        ..Segment::load(0, 0x3_0000_u32, 0, 0)
    });
    let bytes = file.build();
    assert_eq!(SpuElf::parse(&bytes).unwrap().segments().len(), 1);
}

fn symbol_file() -> Vec<u8> {
    let strings = b"\0_start\0loop\0table\0.text\0undef\0";
    TestElf::minimal()
        .with_symbols(
            vec![
                Sym {
                    name: 19,
                    value: 0,
                    size: 0,
                    info: info(STB_LOCAL, STT_SECTION),
                    shndx: 1,
                },
                Sym {
                    name: 1,
                    value: 0,
                    size: 8,
                    info: info(STB_GLOBAL, STT_FUNC),
                    shndx: 1,
                },
                Sym {
                    name: 8,
                    value: 4,
                    size: 0,
                    info: info(STB_LOCAL, STT_NOTYPE),
                    shndx: 1,
                },
                Sym {
                    name: 13,
                    value: 0x100,
                    size: 16,
                    info: info(STB_GLOBAL, STT_OBJECT),
                    shndx: SHN_ABS,
                },
                Sym {
                    name: 25,
                    value: 0,
                    size: 0,
                    info: info(STB_GLOBAL, STT_NOTYPE),
                    shndx: SHN_UNDEF,
                },
            ],
            strings,
        )
        .build()
}

#[test]
fn symbols_name_addresses_as_the_disassembler_asks() {
    let bytes = symbol_file();
    let elf = SpuElf::parse(&bytes).unwrap();
    let symbols = elf.symbols();
    let names: Vec<(&str, u32, SymbolKind)> = symbols
        .iter()
        .map(|s| (s.name, s.address, s.kind))
        .collect();
    assert_eq!(
        names,
        [
            ("_start", 0, SymbolKind::Function),
            ("loop", 4, SymbolKind::Label),
            ("table", 0x100, SymbolKind::Object),
        ],
        "the section symbol and the undefined one name nothing"
    );
    assert_eq!(symbols.symbol_at(0), Some("_start"));
    assert_eq!(symbols.symbol_at(4), Some("loop"));
    assert_eq!(symbols.symbol_at(8), None);
    assert_eq!(symbols.address_of("table"), Some(0x100));
    assert_eq!(symbols.address_of("undef"), None);
    // The sized function covers 0..8; past it, the closest symbol below.
    let containing = |pc| symbols.containing(pc).map(|(s, offset)| (s.name, offset));
    assert_eq!(containing(4), Some(("_start", 4)));
    assert_eq!(containing(0x40), Some(("loop", 0x3c)));
    assert_eq!(containing(0x108), Some(("table", 8)));
    // Through the disassembler: `br` to 4 (RI16 opcode 0x064, offset 1 word) names `loop` the
    // way objdump writes a target: its address in hex, then the symbol.
    let br = pmprobe::spu::isa::decode(0x3200_0080).unwrap();
    assert_eq!(br.display_with(0, symbols).to_string(), "br 4 <loop>");
}

#[test]
fn an_absolute_symbol_without_a_type_is_a_value_not_an_address() {
    // gas writes `.set K, 5` as an absolute (SHN_ABS) NOTYPE symbol: a number, which must
    // not name local-store address 5. A typed absolute symbol stays (see symbol_file).
    let strings = b"\0K\0here\0";
    let bytes = TestElf::minimal()
        .with_symbols(
            vec![
                Sym {
                    name: 1,
                    value: 4,
                    size: 0,
                    info: info(STB_GLOBAL, STT_NOTYPE),
                    shndx: SHN_ABS,
                },
                Sym {
                    name: 3,
                    value: 4,
                    size: 0,
                    info: info(STB_GLOBAL, STT_NOTYPE),
                    shndx: 1,
                },
            ],
            strings,
        )
        .build();
    let elf = SpuElf::parse(&bytes).unwrap();
    assert_eq!(elf.symbols().symbol_at(4), Some("here"));
    assert_eq!(elf.symbols().address_of("K"), None);
}

#[test]
fn a_file_without_a_symbol_table_has_no_symbols() {
    let bytes = TestElf::minimal().build();
    let elf = SpuElf::parse(&bytes).unwrap();
    assert!(elf.symbols().is_empty());
    assert_eq!(elf.symbols().symbol_at(0), None);
}

#[test]
fn every_truncation_is_refused_with_a_typed_error() {
    for bytes in [TestElf::minimal().build(), symbol_file()] {
        for len in 0..bytes.len() {
            let error = SpuElf::parse(&bytes[..len]).unwrap_err();
            let expected_part = match len {
                0..4 => None,
                4..52 => Some(ElfPart::FileHeader),
                // One program header after the file header; the section headers end the file.
                52..84 => Some(ElfPart::ProgramHeaders),
                _ => Some(ElfPart::SectionHeaders),
            };
            match (error, expected_part) {
                (ElfError::NotElf, None) if len == 0 => {}
                (
                    ElfError::Truncated {
                        part,
                        file_len,
                        needs_end,
                    },
                    Some(p),
                ) => {
                    assert_eq!((part, file_len), (p, len));
                    assert!(needs_end > len as u64);
                }
                (
                    ElfError::Truncated {
                        part: ElfPart::FileHeader,
                        ..
                    },
                    None,
                ) => {}
                other => panic!("{len} bytes: {other:?}"),
            }
        }
    }
}

#[test]
fn wrong_class_byte_order_version_machine_and_type_are_named() {
    let mut file = TestElf::minimal();
    file.class = ELFCLASS64;
    assert_eq!(parse(&file), Err(ElfError::WrongClass { found: 2 }));
    let mut file = TestElf::minimal();
    file.data = ELFDATA2LSB;
    assert_eq!(parse(&file), Err(ElfError::WrongByteOrder { found: 1 }));
    let mut file = TestElf::minimal();
    file.version = 0;
    assert_eq!(parse(&file), Err(ElfError::WrongVersion { found: 0 }));
    let mut file = TestElf::minimal();
    file.machine = EM_386;
    assert_eq!(parse(&file), Err(ElfError::WrongMachine { found: 3 }));
    let mut file = TestElf::minimal();
    file.e_type = ET_DYN;
    assert_eq!(parse(&file), Err(ElfError::WrongType { found: 3 }));
    let mut bytes = TestElf::minimal().build();
    bytes[1] = b'e';
    assert_eq!(SpuElf::parse(&bytes).unwrap_err(), ElfError::NotElf);
    let message = ElfError::WrongMachine { found: 3 }.to_string();
    assert!(
        message.contains("e_machine is 3") && message.contains("23 (EM_SPU)"),
        "{message}"
    );
}

#[test]
fn segments_outside_the_local_store_or_overlapping_are_refused() {
    let mut file = TestElf::minimal();
    file.segments = vec![Segment::load(0, 0x3_fff8, 8, 0x10)];
    assert_eq!(
        parse(&file),
        Err(ElfError::SegmentOutsideLocalStore {
            index: 0,
            start: 0x3_fff8,
            end: 0x4_0008
        })
    );
    // Ending exactly at 256 KiB is inside.
    file.segments = vec![Segment::load(0, 0x3_fff8, 8, 8)];
    file.entry = 0x3_fff8;
    assert_eq!(parse(&file), Ok(()));

    let mut file = TestElf::minimal();
    file.segments = vec![Segment::load(0, 0, 8, 0x20), Segment::load(0, 0x1c, 4, 4)];
    assert_eq!(
        parse(&file),
        Err(ElfError::SegmentsOverlap {
            first: 0,
            second: 1
        })
    );
    // Touching is not overlapping.
    file.segments[1] = Segment::load(0, 0x20, 4, 4);
    assert_eq!(parse(&file), Ok(()));

    let mut file = TestElf::minimal();
    file.segments = vec![Segment::load(0, 0, 8, 4)];
    assert_eq!(
        parse(&file),
        Err(ElfError::FileSizeAboveMemorySize {
            index: 0,
            file_size: 8,
            memory_size: 4
        })
    );
}

#[test]
fn segment_bytes_outside_the_file_are_truncation() {
    let mut file = TestElf::minimal();
    file.segments = vec![Segment::load(0x10_0000, 0, 8, 8)];
    let bytes = file.build();
    assert_eq!(
        SpuElf::parse(&bytes).unwrap_err(),
        ElfError::Truncated {
            part: ElfPart::Segment(0),
            needs_end: u64::from(PAYLOAD_OFFSET) + 0x10_0008,
            file_len: bytes.len(),
        }
    );
}

#[test]
fn the_entry_must_be_a_word_inside_a_segment() {
    let mut file = TestElf::minimal();
    file.entry = 8;
    assert_eq!(parse(&file), Err(ElfError::BadEntry { entry: 8 }));
    file.entry = 2;
    assert_eq!(parse(&file), Err(ElfError::BadEntry { entry: 2 }));
}

#[test]
fn a_file_without_load_segments_or_with_too_many_is_refused() {
    let mut file = TestElf::minimal();
    file.segments.clear();
    assert_eq!(parse(&file), Err(ElfError::NoLoadSegment));
    file.segments = vec![Segment {
        kind: PT_NOTE,
        ..Segment::load(0, 0, 8, 8)
    }];
    assert_eq!(parse(&file), Err(ElfError::NoLoadSegment));

    // 33 empty PT_LOAD headers appended at the end of a file, e_phoff pointing there.
    let mut bytes = TestElf::minimal().build();
    let phoff = bytes.len() as u32;
    for _ in 0..33 {
        for value in [PT_LOAD, 0, 0, 0, 0, 0, PF_R, 16] {
            bytes.extend_from_slice(&value.to_be_bytes());
        }
    }
    put32(&mut bytes, 28, phoff);
    put16(&mut bytes, 44, 33);
    assert_eq!(
        SpuElf::parse(&bytes).unwrap_err(),
        ElfError::TooManyLoadSegments { found: 33 }
    );
}

#[test]
fn header_tables_with_foreign_entry_sizes_are_refused() {
    let mut bytes = TestElf::minimal().build();
    put16(&mut bytes, 42, 56); // an ELF64 program header
    assert_eq!(
        SpuElf::parse(&bytes).unwrap_err(),
        ElfError::BadEntrySize {
            part: ElfPart::ProgramHeaders,
            found: 56,
            expected: 32
        }
    );
    let mut bytes = TestElf::minimal().build();
    put16(&mut bytes, 46, 64); // an ELF64 section header
    assert_eq!(
        SpuElf::parse(&bytes).unwrap_err(),
        ElfError::BadEntrySize {
            part: ElfPart::SectionHeaders,
            found: 64,
            expected: 40
        }
    );
}

fn one_symbol(name: u32, strings: &[u8]) -> TestElf {
    TestElf::minimal().with_symbols(
        vec![Sym {
            name,
            value: 0,
            size: 0,
            info: info(STB_GLOBAL, STT_NOTYPE),
            shndx: 1,
        }],
        strings,
    )
}

#[test]
fn bad_string_tables_are_refused() {
    let bad = |symbol_name, strings: &[u8]| parse(&one_symbol(symbol_name, strings));
    let problem = |problem, offset| {
        Err(ElfError::BadSymbolName {
            symbol: 1,
            offset,
            problem,
        })
    };
    assert_eq!(bad(1, b"\0start\0"), Ok(()));
    assert_eq!(
        bad(40, b"\0start\0"),
        problem(NameProblem::OffsetOutside, 40)
    );
    assert_eq!(bad(7, b"\0start\0"), problem(NameProblem::OffsetOutside, 7));
    assert_eq!(bad(1, b"\0start"), problem(NameProblem::MissingNul, 1));
    assert_eq!(bad(1, b"\0st\xffrt\0"), problem(NameProblem::NotUtf8, 1));
    let mut long = vec![0u8];
    long.extend(std::iter::repeat_n(b'a', 2000));
    long.push(0);
    assert_eq!(bad(1, &long), problem(NameProblem::TooLong, 1));

    let mut file = one_symbol(1, b"\0start\0");
    file.strtab_type = SHT_PROGBITS;
    assert_eq!(parse(&file), Err(ElfError::BadSymbolTableLink { link: 2 }));
}

#[test]
fn a_symbol_table_of_partial_entries_or_outside_the_file_is_refused() {
    let bytes = one_symbol(1, b"\0start\0").build();
    // Section 1 is .symtab: its header is at e_shoff + 40; sh_size at +20, sh_offset at +16.
    let shoff = u32::from_be_bytes(bytes[32..36].try_into().unwrap()) as usize;
    let mut odd = bytes.clone();
    put32(&mut odd, shoff + 40 + 20, 20);
    assert_eq!(
        SpuElf::parse(&odd).unwrap_err(),
        ElfError::BadSymbolTableSize { size: 20 }
    );
    let mut outside = bytes.clone();
    put32(&mut outside, shoff + 40 + 16, 0x10_0000);
    assert!(matches!(
        SpuElf::parse(&outside).unwrap_err(),
        ElfError::Truncated {
            part: ElfPart::SymbolTable,
            ..
        }
    ));
    let mut link = bytes;
    put32(&mut link, shoff + 40 + 24, 9);
    assert_eq!(
        SpuElf::parse(&link).unwrap_err(),
        ElfError::BadSymbolTableLink { link: 9 }
    );
}
