//! ELF32 big-endian files built by hand for the reader's tests, field by field at the offsets
//! of the System V gABI (Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr, Elf32_Sym), independently of the
//! library's writer.
#![allow(dead_code)]

/// `e_ident` class, data, version; `e_type`, `e_machine` of an SPU executable.
pub const ELFCLASS32: u8 = 1;
pub const ELFCLASS64: u8 = 2;
pub const ELFDATA2LSB: u8 = 1;
pub const ELFDATA2MSB: u8 = 2;
pub const ET_EXEC: u16 = 2;
pub const ET_DYN: u16 = 3;
pub const EM_386: u16 = 3;
pub const EM_SPU: u16 = 23;
pub const PT_LOAD: u32 = 1;
pub const PT_NOTE: u32 = 4;
pub const PF_X: u32 = 1;
pub const PF_W: u32 = 2;
pub const PF_R: u32 = 4;
pub const SHT_PROGBITS: u32 = 1;
pub const SHT_SYMTAB: u32 = 2;
pub const SHT_STRTAB: u32 = 3;
pub const STT_NOTYPE: u8 = 0;
pub const STT_OBJECT: u8 = 1;
pub const STT_FUNC: u8 = 2;
pub const STT_SECTION: u8 = 3;
pub const STB_LOCAL: u8 = 0;
pub const STB_GLOBAL: u8 = 1;
pub const SHN_UNDEF: u16 = 0;
pub const SHN_ABS: u16 = 0xfff1;

/// Where the payload (the segments' file bytes) starts in the file.
pub const PAYLOAD_OFFSET: u32 = 0x100;

/// One program header.
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    pub kind: u32,
    /// Offset of its bytes within the payload.
    pub payload_offset: u32,
    pub address: u32,
    pub file_size: u32,
    pub memory_size: u32,
    pub flags: u32,
}

impl Segment {
    pub fn load(payload_offset: u32, address: u32, file_size: u32, memory_size: u32) -> Self {
        Segment {
            kind: PT_LOAD,
            payload_offset,
            address,
            file_size,
            memory_size,
            flags: PF_R | PF_X,
        }
    }
}

/// One `Elf32_Sym`.
#[derive(Clone, Copy, Debug)]
pub struct Sym {
    pub name: u32,
    pub value: u32,
    pub size: u32,
    pub info: u8,
    pub shndx: u16,
}

/// A file to build: header fields, program headers over a payload, and optionally a
/// `.symtab` with its `.strtab`.
#[derive(Clone, Debug)]
pub struct TestElf {
    pub class: u8,
    pub data: u8,
    pub version: u8,
    pub e_type: u16,
    pub machine: u16,
    pub entry: u32,
    pub segments: Vec<Segment>,
    pub payload: Vec<u8>,
    pub symbols: Option<(Vec<Sym>, Vec<u8>)>,
    /// `sh_type` of the section `.symtab` links to.
    pub strtab_type: u32,
}

impl TestElf {
    /// `il $3,42; stop 0` at address 0 (binutils: il is RI16 opcode 0x081, stop is 0x000).
    pub fn minimal() -> Self {
        TestElf {
            class: ELFCLASS32,
            data: ELFDATA2MSB,
            version: 1,
            e_type: ET_EXEC,
            machine: EM_SPU,
            entry: 0,
            segments: vec![Segment::load(0, 0, 8, 8)],
            payload: [0x4080_1503u32, 0x0000_0000]
                .iter()
                .flat_map(|w| w.to_be_bytes())
                .collect(),
            symbols: None,
            strtab_type: SHT_STRTAB,
        }
    }

    /// The same with a symbol table: `symbols` and the string table `strings`.
    pub fn with_symbols(mut self, symbols: Vec<Sym>, strings: &[u8]) -> Self {
        self.symbols = Some((symbols, strings.to_vec()));
        self
    }

    pub fn build(&self) -> Vec<u8> {
        let mut f = vec![0u8; PAYLOAD_OFFSET as usize];
        f.extend_from_slice(&self.payload);
        // .symtab, .strtab, .shstrtab, then the section headers.
        let shstrtab = b"\0.symtab\0.strtab\0.shstrtab\0";
        let mut sections: Vec<[u32; 10]> = vec![[0; 10]];
        if let Some((symbols, strings)) = &self.symbols {
            align(&mut f, 4);
            let symtab_offset = f.len() as u32;
            f.extend_from_slice(&[0u8; 16]);
            for s in symbols {
                push32(&mut f, s.name);
                push32(&mut f, s.value);
                push32(&mut f, s.size);
                f.push(s.info);
                f.push(0);
                f.extend_from_slice(&s.shndx.to_be_bytes());
            }
            let symtab_size = f.len() as u32 - symtab_offset;
            let strtab_offset = f.len() as u32;
            f.extend_from_slice(strings);
            // name, type, flags, addr, offset, size, link, info, addralign, entsize
            sections.push([1, SHT_SYMTAB, 0, 0, symtab_offset, symtab_size, 2, 1, 4, 16]);
            sections.push([
                9,
                self.strtab_type,
                0,
                0,
                strtab_offset,
                strings.len() as u32,
                0,
                0,
                1,
                0,
            ]);
        }
        let shstrtab_offset = f.len() as u32;
        f.extend_from_slice(shstrtab);
        sections.push([
            17,
            SHT_STRTAB,
            0,
            0,
            shstrtab_offset,
            shstrtab.len() as u32,
            0,
            0,
            1,
            0,
        ]);
        align(&mut f, 4);
        let shoff = f.len() as u32;
        for section in &sections {
            for field in section {
                push32(&mut f, *field);
            }
        }
        // Elf32_Ehdr.
        f[..4].copy_from_slice(b"\x7fELF");
        f[4] = self.class;
        f[5] = self.data;
        f[6] = self.version;
        put16(&mut f, 16, self.e_type);
        put16(&mut f, 18, self.machine);
        put32(&mut f, 20, u32::from(self.version));
        put32(&mut f, 24, self.entry);
        put32(&mut f, 28, 52);
        put32(&mut f, 32, shoff);
        put16(&mut f, 40, 52);
        put16(&mut f, 42, 32);
        put16(&mut f, 44, self.segments.len() as u16);
        put16(&mut f, 46, 40);
        put16(&mut f, 48, sections.len() as u16);
        put16(&mut f, 50, sections.len() as u16 - 1);
        // Elf32_Phdr, right after the header.
        for (index, s) in self.segments.iter().enumerate() {
            let at = 52 + 32 * index;
            assert!(
                at + 32 <= PAYLOAD_OFFSET as usize,
                "too many segments for the layout"
            );
            for (field, value) in [
                s.kind,
                PAYLOAD_OFFSET + s.payload_offset,
                s.address,
                s.address,
                s.file_size,
                s.memory_size,
                s.flags,
                16,
            ]
            .into_iter()
            .enumerate()
            {
                put32(&mut f, at + 4 * field, value);
            }
        }
        f
    }
}

fn align(f: &mut Vec<u8>, to: usize) {
    while !f.len().is_multiple_of(to) {
        f.push(0);
    }
}

fn push32(f: &mut Vec<u8>, value: u32) {
    f.extend_from_slice(&value.to_be_bytes());
}

pub fn put16(f: &mut [u8], at: usize, value: u16) {
    f[at..at + 2].copy_from_slice(&value.to_be_bytes());
}

pub fn put32(f: &mut [u8], at: usize, value: u32) {
    f[at..at + 4].copy_from_slice(&value.to_be_bytes());
}

/// `st_info` of a symbol.
pub fn info(bind: u8, kind: u8) -> u8 {
    (bind << 4) | kind
}
