//! An instruction's local-store access against the SPU's pending commands: a load, store or
//! instruction fetch of bytes a pending get writes, a store to bytes a pending put (or a
//! pending list's element array) reads.

use super::pending::Pending;
use super::race::{
    DmaRace, LaterAccess, RaceKind, TransferInfo, reads_local_store, writes_local_store,
};
use super::span::Span;
use super::state::{FOUND_PER_EVENT, Found, SpuCheck, State};

/// What an instruction did to the local store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Touch {
    Load,
    Store,
    Fetch,
}

impl State {
    /// Whether SPU `spu` has a pending command that writes the local store (then instruction
    /// fetches are checked too).
    pub fn writes_pending(&self, spu: u8) -> bool {
        self.spus
            .get(usize::from(spu))
            .is_some_and(|check| !check.writes_ls.is_empty())
    }

    /// SPU `spu`'s instruction at `pc` touched `bytes` of its local store in `cycle`.
    pub fn access(
        &mut self,
        spu: u8,
        touch: Touch,
        bytes: Span,
        pc: u32,
        cycle: u64,
        found: &mut Found,
    ) {
        let Some(check) = self.spus.get_mut(usize::from(spu)) else {
            return;
        };
        let may_meet_a_reader = touch == Touch::Store && check.reads_ls.overlaps(&bytes);
        if !check.writes_ls.overlaps(&bytes) && !may_meet_a_reader {
            return;
        }
        let mut hits: heapless::Vec<(usize, RaceKind, TransferInfo), FOUND_PER_EVENT> =
            heapless::Vec::new();
        for (index, command) in check.pending.commands().iter().enumerate() {
            if let Some((kind, earlier)) = meets(check, spu, index, command, touch, &bytes)
                && hits.push((index, kind, earlier)).is_err()
            {
                self.stats.races += 1;
                self.stats.unreported += 1;
            }
        }
        let later = match touch {
            Touch::Load => LaterAccess::Load(bytes),
            Touch::Store => LaterAccess::Store(bytes),
            Touch::Fetch => LaterAccess::Fetch(bytes),
        };
        for (index, kind, earlier) in hits {
            let first = self
                .spus
                .get_mut(usize::from(spu))
                .and_then(|check| check.pending.get_mut(index))
                .and_then(|command| command.first_report_at(pc));
            match first {
                Some(true) => {
                    let race = DmaRace {
                        kind,
                        spu,
                        cycle,
                        pc,
                        later,
                        earlier,
                    };
                    self.found(found, race);
                }
                Some(false) => self.stats.repeated += 1,
                None => {
                    self.stats.races += 1;
                    self.stats.unreported += 1;
                }
            }
        }
    }
}

/// How an access of `touch` to `bytes` meets pending command `index`, if it does: one of the
/// command's transfers writes those bytes (or reads them, for a store), or, for a store, the
/// command is a list whose elements the MFC reads there.
fn meets(
    check: &SpuCheck,
    spu: u8,
    index: usize,
    command: &Pending,
    touch: Touch,
    bytes: &Span,
) -> Option<(RaceKind, TransferInfo)> {
    let writes = writes_local_store(&command.command);
    let reads = reads_local_store(&command.command) && touch == Touch::Store;
    if writes || reads {
        let transfer = check
            .pending
            .transfers(command)
            .iter()
            .find(|t| t.ls().overlaps(bytes));
        if let Some(info) = transfer.and_then(|t| check.info(spu, index, t)) {
            let kind = match (touch, writes) {
                (Touch::Load, _) => RaceKind::LoadFromGet,
                (Touch::Fetch, _) => RaceKind::FetchFromGet,
                (Touch::Store, true) => RaceKind::StoreToGet,
                (Touch::Store, false) => RaceKind::StoreToPut,
            };
            return Some((kind, info));
        }
    }
    let list = command.list?;
    if touch != Touch::Store || !list.elements_read().overlaps(bytes) {
        return None;
    }
    let info = TransferInfo {
        spu,
        command: command.command,
        tag: command.tag,
        ls: list.elements_read(),
        ea: Span::EMPTY,
        element: None,
        pc: command.pc,
        cycle: command.cycle,
    };
    Some((RaceKind::StoreToList, info))
}
