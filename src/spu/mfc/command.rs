//! MFC command opcodes as the SPU writes them to `MFC_Cmd`, and what each one does.
//!
//! The opcode values are the CBEA's (as `spu_mfcio.h` names them): a base command with
//! modifier bits, `0x01` barrier (`b`), `0x02` fence (`f`), `0x04` list (`l`), `0x10` the `r`
//! forms, which on the Cell behave like the plain ones. The `s` forms (`0x08`, start the SPU)
//! and the storage-cache commands exist only on the PPE's proxy queue and are refused here.

/// What a command moves or orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CommandKind {
    /// Main memory to local store.
    Get,
    /// Local store to main memory.
    Put,
    /// A list of gets (`MFC_EAL` is the list's LS address, `MFC_Size` its length).
    GetList,
    /// A list of puts.
    PutList,
    /// Load a 128-byte line and reserve it (immediate, no tag).
    Getllar,
    /// Store a line if the reservation holds (immediate, no tag).
    Putllc,
    /// Store a line unconditionally (immediate, no tag).
    Putlluc,
    /// Store a line unconditionally, queued with a tag.
    Putqlluc,
    /// A 4-byte put to a signal-notification register.
    Sndsig,
    /// Every later command of the queue waits for every earlier one.
    Barrier,
    /// `mfceieio`: a barrier within its tag group (and storage ordering, a no-op here).
    Eieio,
    /// `mfcsync`: a barrier within its tag group (and storage ordering, a no-op here).
    Sync,
}

/// How a command is ordered within its tag group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Ordering {
    /// No ordering beyond the queue's.
    None,
    /// `f`: starts after every earlier command of its tag group completed.
    Fence,
    /// `b`: as a fence, and every later command of its tag group also waits for it.
    Barrier,
}

/// A decoded `MFC_Cmd` opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Command {
    /// The opcode as written (its low 16 bits; the class IDs above are ignored).
    pub opcode: u16,
    /// What it does.
    pub kind: CommandKind,
    /// Its ordering modifier.
    pub ordering: Ordering,
}

impl Command {
    /// Decodes the opcode field of an `MFC_Cmd` value (bits 16..31; the transfer and
    /// replacement class IDs in bits 0..15 steer bus allocation and are never checked, as in
    /// the CBEA). `None` for an opcode the SPU's queue does not take.
    pub fn decode(value: u32) -> Option<Command> {
        let opcode = (value & 0xFFFF) as u16;
        if opcode > 0xFF {
            return None;
        }
        let byte = opcode as u8;
        let ordering = match byte & 0x3 {
            0 => Ordering::None,
            1 => Ordering::Barrier,
            2 => Ordering::Fence,
            _ => return None,
        };
        let with = |kind| {
            Some(Command {
                opcode,
                kind,
                ordering,
            })
        };
        let exact = |kind| {
            (ordering == Ordering::None).then_some(Command {
                opcode,
                kind,
                ordering,
            })
        };
        // The `r` modifier (0x10) is the plain command on the Cell; lists take it too.
        match byte & !0x13 {
            0x20 => with(CommandKind::Put),
            0x24 => with(CommandKind::PutList),
            0x40 if byte & 0x10 == 0 => with(CommandKind::Get),
            0x44 if byte & 0x10 == 0 => with(CommandKind::GetList),
            0xA0 if byte & 0x10 == 0 => with(CommandKind::Sndsig),
            _ => match byte {
                0xB0 => exact(CommandKind::Putlluc),
                0xB4 => exact(CommandKind::Putllc),
                0xB8 => exact(CommandKind::Putqlluc),
                0xC0 => exact(CommandKind::Barrier),
                0xC8 => exact(CommandKind::Eieio),
                0xCC => exact(CommandKind::Sync),
                0xD0 => exact(CommandKind::Getllar),
                _ => None,
            },
        }
    }

    /// The command's name as `spu_mfcio.h` spells it (`getf`, `putlb`, `getllar`, ...).
    pub fn name(&self) -> &'static str {
        command_name(self.opcode)
    }

    /// Whether it is one of the immediate atomic commands, which bypass the queue.
    pub fn is_immediate_atomic(&self) -> bool {
        matches!(
            self.kind,
            CommandKind::Getllar | CommandKind::Putllc | CommandKind::Putlluc
        )
    }

    /// Whether it is a list command.
    pub fn is_list(&self) -> bool {
        matches!(self.kind, CommandKind::GetList | CommandKind::PutList)
    }

    /// Whether data goes from main memory to the local store.
    pub fn is_get(&self) -> bool {
        matches!(
            self.kind,
            CommandKind::Get | CommandKind::GetList | CommandKind::Getllar
        )
    }

    /// Whether it moves data at all (the barrier commands move none).
    pub fn moves_data(&self) -> bool {
        !matches!(
            self.kind,
            CommandKind::Barrier | CommandKind::Eieio | CommandKind::Sync
        )
    }
}

/// The name of an `MFC_Cmd` opcode (`"unknown"` for one the SPU's queue does not take).
pub fn command_name(opcode: u16) -> &'static str {
    match opcode {
        0x20 => "put",
        0x21 => "putb",
        0x22 => "putf",
        0x30 => "putr",
        0x31 => "putrb",
        0x32 => "putrf",
        0x24 => "putl",
        0x25 => "putlb",
        0x26 => "putlf",
        0x34 => "putrl",
        0x35 => "putrlb",
        0x36 => "putrlf",
        0x40 => "get",
        0x41 => "getb",
        0x42 => "getf",
        0x44 => "getl",
        0x45 => "getlb",
        0x46 => "getlf",
        0xA0 => "sndsig",
        0xA1 => "sndsigb",
        0xA2 => "sndsigf",
        0xB0 => "putlluc",
        0xB4 => "putllc",
        0xB8 => "putqlluc",
        0xC0 => "barrier",
        0xC8 => "mfceieio",
        0xCC => "mfcsync",
        0xD0 => "getllar",
        0x28..=0x2A => "puts (proxy only)",
        0x48..=0x4A => "gets (proxy only)",
        0x80..=0x8F => "sdcr (proxy only)",
        _ => "unknown",
    }
}
