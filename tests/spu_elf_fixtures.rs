//! The SPU ELF files committed for the guest programs (tests/guest/elf/) are what the writer
//! makes of their sources today, so the firmware runs the program its source says.

use pmprobe::spu::elf::{ElfNames, executable_size, write_executable};
use pmprobe::spu::exec::LS_SIZE;
use pmprobe::spu::isa::asm::assemble;

#[test]
fn the_embedded_dot_elf_is_written_from_dot_s() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(root.join("spu/programs/dot.s")).unwrap();
    let committed = std::fs::read(root.join("tests/guest/elf/dot.elf")).unwrap();
    let mut image = vec![0u8; LS_SIZE as usize];
    let program = assemble::<64>(&source, &mut image).unwrap();
    // What spusim records: the output as given, the object `gcc -c` would make.
    let names = ElfNames {
        output: "tests/guest/elf/dot.elf",
        objects: &["dot.o"],
    };
    let mut file = vec![0u8; executable_size(&program, &names).unwrap()];
    write_executable(&program, &image, &names, &mut file).unwrap();
    assert!(
        file == committed,
        "tests/guest/elf/dot.elf is stale: regenerate it (tests/guest/elf/README.md)"
    );
}
