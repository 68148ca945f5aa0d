//! The notes of an SPU executable that say which toolchain built it.

use elf::ElfBytes;
use elf::abi;
use elf::endian::BigEndian;

/// The note name the PS3 SDK's SPU linker writes into `.note.spu_name` (its own `PT_NOTE`
/// segment): the image's name follows as the descriptor.
pub const SPU_NAME_NOTE: &[u8] = b"SPUNAME\0";

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
                && bytes.get(12..12 + SPU_NAME_NOTE.len()) == Some(SPU_NAME_NOTE)
        })
}
