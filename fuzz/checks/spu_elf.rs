//! Checks of the `spu_elf` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): arbitrary bytes through the SPU ELF reader, and assembled
//! programs through the writer and back.
//!
//! An input that starts with the ELF magic is a file as it is; one whose first byte is odd is
//! an assembly source after that byte; any other gets an ELF32 big-endian identification in
//! front of it, so random bytes reach the header fields and tables.
//!
//! Reading: no panic, and the work is bounded by the input's size (no allocation; the reader
//! is zero-copy). A refusal is a typed error that displays as a message; a truncation names
//! the file's real length and an end past it. A file read is loadable: 1 to
//! `MAX_LOAD_SEGMENTS` segments, each inside the local store with its bytes borrowed from the
//! input and no more of them than its memory size, no two overlapping; the entry a word inside
//! one; every symbol name at most `MAX_NAME_LEN` bytes, found again by its address and its
//! name. Loading it leaves each segment's bytes in the local store, zeros after them up to its
//! memory size, and the PC at the entry.
//!
//! Writing: a program that assembles and has code, written, reads back with the same entry,
//! segments and labels; the writer refuses only a program without code or one whose entry
//! point lies in no segment, which the reader would refuse.
use std::cell::RefCell;

use pmprobe::spu::elf::{
    ELF_MAGIC, ElfError, ElfNames, ElfWriteError, LOCAL_STORE_BYTES, MAX_LOAD_SEGMENTS,
    MAX_NAME_LEN, SpuElf, executable_size, write_executable,
};
use pmprobe::spu::exec::SpuState;
use pmprobe::spu::isa::SymbolLookup;
use pmprobe::spu::isa::asm::{SectionKind, SymbolValue, assemble};

/// Symbols checked one by one at most (each look-up is a linear search).
const CHECKED_SYMBOLS: usize = 64;

thread_local! {
    /// One SPU for every input: loading does not depend on what an earlier one left.
    static SPU: RefCell<Box<SpuState>> = RefCell::new(Box::new(SpuState::new(0)));
}

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    if data.starts_with(&ELF_MAGIC) {
        check_file(data);
        return;
    }
    match data.split_first() {
        Some((first, rest)) if first & 1 == 1 => check_written(rest),
        _ => {
            let mut file = ELF_MAGIC.to_vec();
            file.extend_from_slice(&[1, 2, 1]);
            file.extend_from_slice(data.get(1..).unwrap_or_default());
            check_file(&file);
        }
    }
}

fn check_file(data: &[u8]) {
    let elf = match SpuElf::parse(data) {
        Ok(elf) => elf,
        Err(error) => {
            assert!(!error.to_string().is_empty());
            if let ElfError::Truncated {
                needs_end,
                file_len,
                ..
            } = error
            {
                assert_eq!(file_len, data.len(), "{error}");
                assert!(needs_end > file_len as u64, "{error}");
            }
            return;
        }
    };
    let segments = elf.segments();
    assert!((1..=MAX_LOAD_SEGMENTS).contains(&segments.len()));
    let file = data.as_ptr_range();
    for (position, segment) in segments.iter().enumerate() {
        assert!(segment.end() <= LOCAL_STORE_BYTES && segment.address <= segment.end());
        assert!(segment.bytes.len() as u64 <= u64::from(segment.memory_size));
        let bytes = segment.bytes.as_ptr_range();
        assert!(
            segment.bytes.is_empty() || (file.start <= bytes.start && bytes.end <= file.end),
            "segment bytes borrowed from the input"
        );
        for earlier in &segments[..position] {
            let overlap = earlier.address < segment.end() && segment.address < earlier.end();
            assert!(
                !overlap || earlier.memory_size == 0 || segment.memory_size == 0,
                "segments {} and {} overlap",
                earlier.index,
                segment.index
            );
        }
    }
    let entry = elf.entry();
    assert!(entry % 4 == 0);
    assert!(
        segments
            .iter()
            .any(|s| (s.address..s.end()).contains(&entry))
    );
    for symbol in elf.symbols().iter().take(CHECKED_SYMBOLS) {
        assert!(!symbol.name.is_empty() && symbol.name.len() <= MAX_NAME_LEN);
        assert!(elf.symbols().symbol_at(symbol.address).is_some());
        assert!(elf.symbols().address_of(symbol.name).is_some());
        let (containing, offset) = elf.symbols().containing(symbol.address).unwrap();
        assert_eq!(containing.address + offset, symbol.address);
    }
    SPU.with(|spu| {
        let mut spu = spu.borrow_mut();
        elf.load_into(&mut spu);
        assert_eq!(spu.pc(), entry);
        let ls = spu.local_store();
        for segment in segments {
            for (offset, &byte) in segment.bytes.iter().enumerate() {
                assert_eq!(ls.load_byte(segment.address + offset as u32), byte);
            }
            let zeroed = segment.address + segment.bytes.len() as u32..segment.end();
            assert!(zeroed.into_iter().all(|a| ls.load_byte(a) == 0));
        }
    });
}

fn check_written(text: &[u8]) {
    let source = String::from_utf8_lossy(text);
    let mut image = vec![0u8; 4096];
    let Ok(program) = assemble::<64>(&source, &mut image) else {
        return;
    };
    let names = ElfNames {
        output: "fuzz.elf",
        objects: &["fuzz.o"],
    };
    let size = match executable_size(&program, &names) {
        Ok(size) => size,
        Err(ElfWriteError::NoCode) => {
            assert_eq!(program.text_len, 0, "only a program without code is NoCode");
            return;
        }
        Err(ElfWriteError::EntryOutsideSegments { entry }) => {
            // The text segment is the code rounded up to 16 bytes.
            let text_end = program.text_len.next_multiple_of(16) as u32;
            assert!(
                entry % 4 != 0 || entry >= text_end,
                "entry {entry:#x} refused though inside the code"
            );
            return;
        }
        Err(error) => panic!("the writer refused a program with code: {error}"),
    };
    let mut file = vec![0u8; size];
    let len =
        write_executable(&program, &image, &names, &mut file).expect("the sized buffer is enough");
    assert_eq!(len, size);
    let elf = SpuElf::parse(&file).unwrap_or_else(|e| panic!("the written file is refused: {e}"));
    assert_eq!(
        elf.entry(),
        program.entry,
        "the entry as the source runs it"
    );
    let text = elf.segments()[0].bytes;
    assert_eq!(text, &image[..text.len()]);
    assert!(text.len() >= program.text_len && text.len() % 16 == 0);
    // Every label of the program that GNU `as` keeps (not `.L` names nor numeric labels), in
    // a section with bytes or room, is read back at its address.
    let kind_present = |kind| {
        kind == SectionKind::Code
            || program
                .sections
                .iter()
                .any(|s| s.kind == kind && s.size > 0)
    };
    for symbol in program.symbols.iter() {
        let SymbolValue::Label { section, .. } = symbol.value else {
            continue;
        };
        let own = program
            .sections
            .iter()
            .filter(|s| s.file == symbol.file)
            .nth(usize::from(section));
        let kept = own.is_some_and(|s| kind_present(s.kind) && s.output_section().is_some());
        if kept && !symbol.name.starts_with(".L") && !symbol.name.contains('\u{2}') {
            let found = elf
                .symbols()
                .iter()
                .any(|s| s.name == symbol.name.as_str() && s.address == symbol.address);
            assert!(
                found,
                "{} at {:#x} is not in the file",
                symbol.name, symbol.address
            );
        }
    }
    check_file(&file);
}
