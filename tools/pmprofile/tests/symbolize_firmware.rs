//! Symbolization against the real aarch64 demo firmware, built for the test: the ELF symbol
//! table (read by `object` in the test) and the DWARF frames (addr2line in the tool) are two
//! independent sources that must agree.
mod common;

use object::{Object, ObjectSymbol};
use pmprofile::{Symbolizer, UNKNOWN, demangle};

/// Function symbols of the firmware by demangled name: (address, size, name).
fn functions(elf: &[u8]) -> Vec<(u64, u64, String)> {
    let file = object::File::parse(elf).unwrap();
    assert_eq!(file.architecture(), object::Architecture::Aarch64);
    file.symbols()
        .filter(|s| s.kind() == object::SymbolKind::Text && s.size() >= 16)
        .map(|s| {
            let name = rustc_demangle::demangle(s.name().unwrap());
            (s.address(), s.size(), format!("{name:#}"))
        })
        .collect()
}

#[test]
fn pipeline_functions_resolve_to_their_rust_names() {
    let elf = std::fs::read(common::firmware_elf()).unwrap();
    let symbolizer = Symbolizer::new(&elf).unwrap();
    let pipeline: Vec<_> = functions(&elf)
        .into_iter()
        .filter(|(_, _, name)| name.starts_with("pmprobe::spu::pipeline::"))
        .collect();
    assert!(
        pipeline.len() >= 5,
        "the firmware has pipeline functions: {pipeline:?}"
    );
    let (mut probes, mut with_line) = (0, 0);
    for (address, size, name) in &pipeline {
        // The entry, the middle (word aligned) and the last instruction.
        for probe in [*address, (address + size / 2) & !3, address + size - 4] {
            let frames = symbolizer.frames(probe);
            let outer = frames.last().unwrap();
            assert_eq!(&outer.function, name, "at {probe:#x}: {frames:?}");
            assert!(!outer.inlined);
            assert!(frames[..frames.len() - 1].iter().all(|f| f.inlined));
            probes += 1;
            // Compiler-generated instructions (often the epilogue) have line 0, no line;
            // most have one.
            with_line += usize::from(frames[0].line.is_some());
        }
    }
    println!(
        "{} pipeline functions agree; {with_line} of {probes} addresses have a line",
        pipeline.len()
    );
    assert!(
        with_line * 4 >= probes * 3,
        "{with_line} of {probes} with a line"
    );
}

#[test]
fn inlined_frames_are_reported() {
    // With LTO, the firmware's functions are full of inlined code: some address of the
    // pipeline must resolve to more than one frame, the inner ones named by DWARF.
    let elf = std::fs::read(common::firmware_elf()).unwrap();
    let symbolizer = Symbolizer::new(&elf).unwrap();
    let (address, size, _) = functions(&elf)
        .into_iter()
        .filter(|(_, _, name)| name.starts_with("pmprobe::spu::pipeline::"))
        .max_by_key(|&(_, size, _)| size)
        .unwrap();
    let deepest = (address..address + size)
        .step_by(4)
        .map(|a| symbolizer.frames(a))
        .max_by_key(Vec::len)
        .unwrap();
    assert!(deepest.len() >= 2, "{deepest:?}");
    assert!(deepest.iter().all(|f| f.function != UNKNOWN));
}

#[test]
fn addresses_outside_the_code_are_unknown() {
    let elf = std::fs::read(common::firmware_elf()).unwrap();
    let symbolizer = Symbolizer::new(&elf).unwrap();
    let frames = symbolizer.frames(0x10);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].function, UNKNOWN);
    assert_eq!(
        demangle("_ZN7pmprobe3spu8pipeline4Pipe4step17h0123456789abcdefE"),
        "pmprobe::spu::pipeline::Pipe::step"
    );
    assert!(Symbolizer::new(b"not an elf").is_err());
}
