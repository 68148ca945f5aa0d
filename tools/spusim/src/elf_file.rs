//! The parts of an SPU ELF file the library's reader leaves aside, read with the `elf` crate:
//! the section headers with their names, and every symbol of `.symtab` (section and file
//! symbols, bindings, section indices), as `--objdump` and the listing need them.

use elf::ElfBytes;
use elf::abi;
use elf::endian::BigEndian;

/// One section header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSection {
    pub name: String,
    /// `sh_type`.
    pub kind: u32,
    /// `sh_flags`.
    pub flags: u64,
    pub address: u32,
    pub size: u32,
    /// Its bytes in the file (empty for `SHT_NOBITS`, or when they lie outside the file).
    pub bytes: Vec<u8>,
}

impl FileSection {
    /// Allocated, with bytes in the file (`SHF_ALLOC`, not `SHT_NOBITS`).
    pub fn is_loaded_bytes(&self) -> bool {
        self.flags & u64::from(abi::SHF_ALLOC) != 0 && self.kind != abi::SHT_NOBITS
    }

    /// Code (`SHF_EXECINSTR`).
    pub fn is_code(&self) -> bool {
        self.flags & u64::from(abi::SHF_EXECINSTR) != 0
    }
}

/// One symbol of `.symtab`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSymbol {
    pub name: String,
    pub value: u32,
    pub size: u32,
    /// `STT_*`.
    pub kind: u8,
    /// `STB_*`.
    pub binding: u8,
    /// `st_shndx`.
    pub section: u16,
}

/// The section headers and symbols of `bytes` (an ELF file); empty lists for a file without
/// them, an error message for a file the crate cannot parse.
pub fn read(bytes: &[u8]) -> Result<(Vec<FileSection>, Vec<FileSymbol>), String> {
    let file = ElfBytes::<BigEndian>::minimal_parse(bytes).map_err(|e| e.to_string())?;
    let (headers, names) = file
        .section_headers_with_strtab()
        .map_err(|e| e.to_string())?;
    let mut sections = Vec::new();
    if let Some(headers) = headers {
        for header in headers.iter() {
            let name = names
                .as_ref()
                .and_then(|names| names.get(header.sh_name as usize).ok())
                .unwrap_or("")
                .to_string();
            let bytes = file
                .section_data(&header)
                .map(|(data, _)| data.to_vec())
                .unwrap_or_default();
            sections.push(FileSection {
                name,
                kind: header.sh_type,
                flags: header.sh_flags,
                address: header.sh_addr as u32,
                size: header.sh_size as u32,
                bytes,
            });
        }
    }
    let mut symbols = Vec::new();
    if let Ok(Some((table, strings))) = file.symbol_table() {
        for symbol in table.iter() {
            symbols.push(FileSymbol {
                name: strings
                    .get(symbol.st_name as usize)
                    .unwrap_or("")
                    .to_string(),
                value: symbol.st_value as u32,
                size: symbol.st_size as u32,
                kind: symbol.st_symtype(),
                binding: symbol.st_bind(),
                section: symbol.st_shndx,
            });
        }
    }
    Ok((sections, symbols))
}
