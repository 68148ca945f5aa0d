//! [`DmaRace`]: what the checker reports, the `DmaRace` probe point's payload.

use core::fmt;

use super::span::Span;
use crate::spu::isa::{NoSymbols, SymbolLookup};
use crate::spu::mfc::{Command, CommandKind};

/// Which rule a race broke (`docs/dma-races.md` has each rule and its source).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RaceKind {
    /// A load read local-store bytes that a pending get writes.
    LoadFromGet,
    /// A store wrote local-store bytes that a pending get writes.
    StoreToGet,
    /// An instruction was fetched from local-store bytes that a pending get writes.
    FetchFromGet,
    /// A store wrote local-store bytes that a pending put reads.
    StoreToPut,
    /// A store wrote a pending list's elements, which the MFC reads.
    StoreToList,
    /// Two pending commands of one SPU, neither ordered before the other, on overlapping
    /// local store, at least one of them writing it.
    LocalStore,
    /// Two pending commands of one SPU, neither ordered before the other, on overlapping main
    /// memory, at least one of them writing it.
    MainMemory,
    /// A put and another SPU's get or put of overlapping main memory, nothing ordering them.
    AcrossSpus,
}

impl RaceKind {
    /// The rule in a few words, as the report line names it.
    pub const fn describe(self) -> &'static str {
        match self {
            RaceKind::LoadFromGet => "load from LS a pending get writes",
            RaceKind::StoreToGet => "store to LS a pending get writes",
            RaceKind::FetchFromGet => "instruction fetch from LS a pending get writes",
            RaceKind::StoreToPut => "store to LS a pending put reads",
            RaceKind::StoreToList => "store to a pending list's elements",
            RaceKind::LocalStore => "unordered commands on one LS range",
            RaceKind::MainMemory => "unordered commands on one EA range",
            RaceKind::AcrossSpus => "unordered commands of two SPUs on one EA range",
        }
    }
}

/// A DMA transfer as a race names it: the command that moves it and where it was issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TransferInfo {
    /// The SPU that issued it.
    pub spu: u8,
    /// The command.
    pub command: Command,
    /// Its tag group (`None` for the immediate atomic commands, which have none).
    pub tag: Option<u8>,
    /// The local-store bytes it moves (for a list command racing through its elements: the
    /// elements' bytes).
    pub ls: Span,
    /// The main-memory bytes it moves (empty for `sndsig` and the commands without data).
    pub ea: Span,
    /// For a list: the element.
    pub element: Option<u16>,
    /// The PC of the `wrch MFC_Cmd` that issued it.
    pub pc: u32,
    /// The cycle it was issued in.
    pub cycle: u64,
}

/// What raced with an earlier transfer: an instruction's access or another transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LaterAccess {
    /// A load (quadword) of these local-store bytes.
    Load(Span),
    /// A store (quadword) to these local-store bytes.
    Store(Span),
    /// The fetch of the instruction word at these bytes.
    Fetch(Span),
    /// A transfer of a command issued later.
    Transfer(TransferInfo),
}

/// A race: the access or command that met a pending transfer it is not ordered with.
///
/// `spu`, `cycle` and `pc` are the later access's: the instruction that did it (for a
/// command, its `wrch MFC_Cmd`; for a list element read at an acknowledgement, the
/// `wrch MFC_WrListStallAck`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DmaRace {
    /// The rule.
    pub kind: RaceKind,
    /// The SPU of the later access.
    pub spu: u8,
    /// Its cycle (that SPU's clock).
    pub cycle: u64,
    /// Its instruction's address.
    pub pc: u32,
    /// The later access.
    pub later: LaterAccess,
    /// The earlier transfer, still pending (or, across SPUs, not known to be complete).
    pub earlier: TransferInfo,
}

impl DmaRace {
    /// The report line with the PCs named by `symbols` (`pc 0x00048 <loop+0x8>`), as
    /// [`Display`](fmt::Display) writes it with none:
    ///
    /// `DMA race (load from LS a pending get writes): SPU0 cycle 9 pc 0x00024: load of LS
    /// 0x01000..0x01010 races with get tag 3 LS 0x01000..0x01400 EA 0x010000..0x010400,
    /// issued by SPU0 at cycle 4 pc 0x00010, not yet seen complete by a tag-status read`
    /// (one line).
    pub fn display_with<'a, S: SymbolLookup + ?Sized>(
        &'a self,
        symbols: &'a S,
    ) -> impl fmt::Display + 'a {
        Named {
            race: self,
            symbols,
        }
    }
}

impl fmt::Display for DmaRace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Named {
            race: self,
            symbols: &NoSymbols,
        }
        .fmt(f)
    }
}

struct Named<'a, S: ?Sized> {
    race: &'a DmaRace,
    symbols: &'a S,
}

impl<S: SymbolLookup + ?Sized> Named<'_, S> {
    fn pc(&self, f: &mut fmt::Formatter<'_>, pc: u32) -> fmt::Result {
        write!(f, "pc {pc:#07x}")?;
        match self.symbols.symbol_before(pc) {
            Some((name, at)) if at == pc => write!(f, " <{name}>"),
            Some((name, at)) => write!(f, " <{name}+{:#x}>", pc.wrapping_sub(at)),
            None => Ok(()),
        }
    }

    fn transfer(&self, f: &mut fmt::Formatter<'_>, transfer: &TransferInfo) -> fmt::Result {
        f.write_str(transfer.command.name())?;
        if let Some(tag) = transfer.tag {
            write!(f, " tag {tag}")?;
        }
        if let Some(element) = transfer.element {
            write!(f, " element {element}")?;
        }
        write!(f, " LS {}", transfer.ls)?;
        if !transfer.ea.is_empty() {
            write!(
                f,
                " EA {:#08x}..{:#08x}",
                transfer.ea.start, transfer.ea.end
            )?;
        }
        Ok(())
    }
}

impl<S: SymbolLookup + ?Sized> fmt::Display for Named<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let race = self.race;
        write!(
            f,
            "DMA race ({}): SPU{} cycle {} ",
            race.kind.describe(),
            race.spu,
            race.cycle
        )?;
        self.pc(f, race.pc)?;
        f.write_str(": ")?;
        match &race.later {
            LaterAccess::Load(span) => write!(f, "load of LS {span}")?,
            LaterAccess::Store(span) => write!(f, "store to LS {span}")?,
            LaterAccess::Fetch(span) => write!(f, "fetch of LS {span}")?,
            LaterAccess::Transfer(transfer) => self.transfer(f, transfer)?,
        }
        f.write_str(" races with ")?;
        let earlier = &race.earlier;
        self.transfer(f, earlier)?;
        write!(
            f,
            ", issued by SPU{} at cycle {} ",
            earlier.spu, earlier.cycle
        )?;
        self.pc(f, earlier.pc)?;
        f.write_str(match (race.kind, earlier.tag) {
            (RaceKind::AcrossSpus, _) => {
                ", with no tag wait, signal, mailbox or atomic ordering them"
            }
            (RaceKind::LocalStore | RaceKind::MainMemory, _) => {
                ", pending and not ordered before it by a fence, barrier or tag wait"
            }
            (_, None) => ", not yet seen complete by an atomic-status read",
            (_, Some(_)) => ", not yet seen complete by a tag-status read",
        })
    }
}

/// Whether `command` writes the local store (a get of any kind).
pub(super) fn writes_local_store(command: &Command) -> bool {
    command.is_get()
}

/// Whether `command` reads the local store to move data out of it.
pub(super) fn reads_local_store(command: &Command) -> bool {
    matches!(
        command.kind,
        CommandKind::Put
            | CommandKind::PutList
            | CommandKind::Sndsig
            | CommandKind::Putllc
            | CommandKind::Putlluc
            | CommandKind::Putqlluc
    )
}
