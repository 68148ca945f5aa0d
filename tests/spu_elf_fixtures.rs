//! The SPU ELF files committed for the guest programs (tests/guest/elf/) are what the writer
//! makes of their sources today, so the firmware runs the program its source says.

use pmprobe::spu::elf::{ElfNames, executable_size, write_executable};
use pmprobe::spu::exec::LS_SIZE;
use pmprobe::spu::isa::asm::assemble;

/// `source`'s ELF file as spusim writes it to `output`, with the `.include`s of the runtime
/// files spusim would read inlined (the library reads no files).
fn written(root: &std::path::Path, source: &str, output: &str) -> Vec<u8> {
    let path = root.join(source);
    let mut text = std::fs::read_to_string(&path).unwrap();
    for include in ["lv2.inc", "libspe.inc"] {
        let directive = format!(".include \"{include}\"");
        if text.contains(&directive) {
            let included = std::fs::read_to_string(path.with_file_name(include)).unwrap();
            text = text.replace(&directive, &included);
        }
    }
    let mut image = vec![0u8; LS_SIZE as usize];
    let program = assemble::<64>(&text, &mut image).unwrap();
    // What spusim records: the output as given, the object `gcc -c` would make.
    let stem = path.file_stem().unwrap().to_str().unwrap();
    let object = format!("{stem}.o");
    let names = ElfNames {
        output,
        objects: &[&object],
    };
    let mut file = vec![0u8; executable_size(&program, &names).unwrap()];
    write_executable(&program, &image, &names, &mut file).unwrap();
    file
}

#[test]
fn the_embedded_elf_files_are_written_from_their_sources() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (source, output) in [
        ("spu/programs/dot.s", "tests/guest/elf/dot.elf"),
        (
            "spu/programs/runtime/lv2_print.s",
            "tests/guest/elf/lv2_print.elf",
        ),
    ] {
        let committed = std::fs::read(root.join(output)).unwrap();
        assert!(
            written(root, source, output) == committed,
            "{output} is stale: regenerate it (tests/guest/elf/README.md)"
        );
    }
}
