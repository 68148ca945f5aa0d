//! What in an SPU executable says which toolchain built it: spu-ld's `SPUNAME` note (every
//! spu-ld writes one, the PS3 SDK's and GNU binutils' alike) and the sections only the PS3
//! SDK's linker scripts add.

use elf::ElfBytes;
use elf::abi;
use elf::endian::BigEndian;

/// The note name spu-ld writes into `.note.spu_name` (its own `PT_NOTE` segment; binutils
/// calls it `SPU_PLUGIN_NAME`): the output file's name follows as the descriptor.
pub const SPU_NAME_NOTE: &[u8; 8] = b"SPUNAME\0";

/// Sections the PS3 SDK's SPU linker script adds and GNU binutils' default script does not:
/// the image's GUID and the SDK version it was built with.
pub const PS3_SDK_SECTIONS: [&str; 2] = [".SpuGUID", ".sceversion"];

/// Whether a `PT_NOTE` segment holds an `SPUNAME` note. A note that cannot be read (outside the
/// file, sizes that do not fit) is no note: the answer only picks a default runtime.
pub(super) fn has_spu_name_note(file: &ElfBytes<'_, BigEndian>, data: &[u8]) -> bool {
    let Some(table) = file.segments() else {
        return false;
    };
    table
        .iter()
        .filter(|header| header.p_type == abi::PT_NOTE)
        .any(|header| {
            let start = usize::try_from(header.p_offset).ok();
            let len = usize::try_from(header.p_filesz).ok();
            let Some(bytes) = start
                .zip(len)
                .and_then(|(start, len)| data.get(start..start.checked_add(len)?))
            else {
                return false;
            };
            // namesz, descsz, type (big-endian words), then the name.
            let word = |at: usize| {
                bytes
                    .get(at..at + 4)
                    .and_then(|b| <[u8; 4]>::try_from(b).ok())
                    .map(u32::from_be_bytes)
            };
            word(0) == Some(SPU_NAME_NOTE.len() as u32)
                && bytes.get(12..12 + SPU_NAME_NOTE.len()) == Some(&SPU_NAME_NOTE[..])
        })
}

/// Whether the file has one of the [`PS3_SDK_SECTIONS`]. Unreadable section headers are none:
/// as for the note, the answer only picks a default runtime.
pub(super) fn has_ps3_sdk_section(file: &ElfBytes<'_, BigEndian>) -> bool {
    let Ok((Some(headers), Some(names))) = file.section_headers_with_strtab() else {
        return false;
    };
    headers.iter().any(|header| {
        names
            .get(header.sh_name as usize)
            .is_ok_and(|name| PS3_SDK_SECTIONS.contains(&name))
    })
}
