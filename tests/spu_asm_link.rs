//! Linking several sources: the program and its ELF file are those spu-as + spu-ld 2.40 make
//! of the same sources. tests/data/spu_link/ holds this project's own sources, and for each
//! link of cases.txt the executable spu-ld wrote and the text spu-objdump -d printed
//! (tools/oracles/spu-link-fixtures.sh regenerates them with the real tools).

use std::path::{Path, PathBuf};

use pmprobe::spu::elf::{ElfNames, SpuElf, executable_size, write_executable};
use pmprobe::spu::exec::LS_SIZE;
use pmprobe::spu::isa::asm::{AsmErrorKind, Binding, Program, link};

const SYMBOLS: usize = 256;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/spu_link")
}

/// One line of cases.txt: the output name, the sources, the `--defsym` values.
struct Case {
    name: String,
    sources: Vec<String>,
    definitions: Vec<String>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(data().join("cases.txt")).unwrap();
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (name, rest) = line.split_once(':').unwrap();
            let mut words = rest.split_whitespace();
            let mut case = Case {
                name: name.to_string(),
                sources: Vec::new(),
                definitions: Vec::new(),
            };
            while let Some(word) = words.next() {
                if word == "--defsym" {
                    case.definitions.push(words.next().unwrap().to_string());
                } else {
                    case.sources.push(word.to_string());
                }
            }
            case
        })
        .collect()
}

/// The case linked by pmprobe, with its image.
fn linked(case: &Case) -> (Box<Program<SYMBOLS>>, Vec<u8>) {
    let texts: Vec<String> = case
        .sources
        .iter()
        .map(|s| std::fs::read_to_string(data().join(s)).unwrap())
        .collect();
    let sources: Vec<&str> = texts.iter().map(String::as_str).collect();
    let definitions: Vec<&str> = case.definitions.iter().map(String::as_str).collect();
    let mut image = vec![0u8; LS_SIZE as usize];
    let program = link::<SYMBOLS>(&sources, &definitions, &mut image)
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    (Box::new(program), image)
}

#[test]
fn every_link_writes_the_file_spu_ld_wrote() {
    let cases = cases();
    assert!(cases.len() >= 6, "the cases");
    for case in &cases {
        let (program, image) = linked(case);
        let objects: Vec<String> = case
            .sources
            .iter()
            .map(|s| format!("{}.o", s.rsplit_once('.').unwrap().0))
            .collect();
        let objects: Vec<&str> = objects.iter().map(String::as_str).collect();
        let names = ElfNames {
            output: &case.name,
            objects: &objects,
        };
        let mut file = vec![0u8; executable_size(&program, &names).unwrap()];
        write_executable(&program, &image, &names, &mut file).unwrap();
        let expected = std::fs::read(data().join(format!("{}.elf", case.name))).unwrap();
        if file != expected {
            let at = file.iter().zip(&expected).position(|(a, b)| a != b);
            panic!(
                "{}: {} bytes written, spu-ld wrote {}; first difference at {at:?}",
                case.name,
                file.len(),
                expected.len()
            );
        }
    }
}

#[test]
fn symbols_resolve_across_sources_as_in_the_file_spu_ld_wrote() {
    let case = cases().into_iter().find(|c| c.name == "crt").unwrap();
    let (program, image) = linked(&case);
    let bytes = std::fs::read(data().join("crt.elf")).unwrap();
    let elf = SpuElf::parse(&bytes).unwrap();
    // Every symbol spu-ld wrote is where the link put it: `main` (main.s) called from
    // crt0.s, `helper` from util.s, the common `shared` merged from two sources, and the
    // script's `_end` and `__stack`.
    for symbol in elf.symbols().iter() {
        assert_eq!(
            program.symbol(symbol.name),
            Some(symbol.address),
            "{}",
            symbol.name
        );
    }
    // The loaded bytes are spu-ld's.
    for segment in elf.segments() {
        let start = segment.address as usize;
        assert_eq!(segment.bytes, &image[start..start + segment.bytes.len()]);
    }
    assert_eq!(program.entry, elf.entry());
    // `loop` is util.s's own: not global, so no other source could use it.
    let looped = program.symbols.iter().find(|s| s.name == "loop").unwrap();
    assert_eq!(
        (looped.file, looped.attributes.binding),
        (2, Binding::Local)
    );
}

#[test]
fn a_name_no_source_defines_is_an_error_in_the_source_that_uses_it() {
    // spu-ld: "crt0.o: in function `_start': undefined reference to `main'" (no main).
    let crt0 = ".global _start\n_start: brsl $lr, main\n stop\n";
    let other = "nop\n";
    let mut image = vec![0u8; 1024];
    let error = link::<16>(&[other, crt0], &[], &mut image).unwrap_err();
    assert_eq!((error.file, error.line, error.column), (1, 2, 19));
    assert!(matches!(error.kind, AsmErrorKind::UnknownLabel(name) if name.as_str() == "main"));
    // A local symbol of another source does not count.
    let local_main = "main: bi $lr\n";
    let error = link::<16>(&[crt0, local_main], &[], &mut image).unwrap_err();
    assert_eq!((error.file, error.line), (0, 2));
    // A weak name nobody defines is 0 (spu-ld 2.40 linked `ila $3, w` with `.weak w` to
    // `ila $3,0`).
    let weak = ".weak w\n ila $3, w\n";
    link::<16>(&[weak], &[], &mut image).unwrap();
    assert_eq!(&image[..4], &0x4200_0003u32.to_be_bytes());
}

#[test]
fn a_global_two_sources_define_is_a_multiple_definition() {
    // spu-ld: "multiple definition of `f'; a.o:(.text+0x0): first defined here".
    let a = ".global f\nf: bi $lr\n";
    let b = "nop\n.global f\nf: bi $lr\n";
    let mut image = vec![0u8; 1024];
    let error = link::<16>(&[a, b], &[], &mut image).unwrap_err();
    assert_eq!((error.file, error.line), (1, 3));
    assert!(matches!(
        error.kind,
        AsmErrorKind::MultipleDefinition { name, first_file: 0 } if name.as_str() == "f"
    ));
    // A weak definition gives way to a global one (`weak` of cases.txt), and two local ones
    // of one name are two symbols.
    let local = "f: bi $lr\n";
    let program = link::<16>(&[local, local, a], &[], &mut image).unwrap();
    assert_eq!(program.symbols.iter().filter(|s| s.name == "f").count(), 3);
    assert_eq!(program.symbol("f"), Some(8));
}

#[test]
fn link_definitions_are_checked_where_they_are_written() {
    let mut image = vec![0u8; 1024];
    let uses = "il $3, K\n";
    let program = link::<16>(&[uses], &["K=0x12"], &mut image).unwrap();
    assert_eq!(program.symbol("K"), Some(0x12));
    // The definition's errors are in "source" 1 (the one past the sources), at its column.
    let error = link::<16>(&[uses], &["K=nowhere"], &mut image).unwrap_err();
    assert_eq!((error.file, error.line, error.column), (1, 1, 3));
    let error = link::<16>(&[uses], &["=4"], &mut image).unwrap_err();
    assert_eq!((error.file, error.kind), (1, AsmErrorKind::BadDefinition));
}
