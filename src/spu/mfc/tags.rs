//! Tag groups: `MFC_WrTagMask`, `MFC_RdTagMask`, `MFC_WrTagUpdate` and `MFC_RdTagStat`.
//!
//! A tag-status update request names a condition on the groups in the mask: *immediate*
//! (now), *any* (one masked group has no command left), *all* (every masked group has none).
//! When it holds, the status (the masked groups that are complete) becomes readable on
//! `MFC_RdTagStat`, whose count goes to 1, and the `Tg` event occurs. A new request replaces a
//! pending one; a mask write re-evaluates it (so *any* with an empty mask waits until a mask is
//! written, as on a Cell).

/// `MFC_WrTagUpdate` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TagUpdate {
    /// 0: the status now.
    Immediate,
    /// 1: when any masked group completes.
    Any,
    /// 2: when every masked group completes.
    All,
}

impl TagUpdate {
    /// The condition a written value asks for (only values 0..=2 are defined).
    pub fn from_value(value: u32) -> Option<TagUpdate> {
        match value {
            0 => Some(TagUpdate::Immediate),
            1 => Some(TagUpdate::Any),
            2 => Some(TagUpdate::All),
            _ => None,
        }
    }
}

/// A pending request. `repr(u8)` gives `None` tag 0: an `Option<TagUpdate>`, or this enum
/// without it, would store "none" in `TagUpdate`'s niche, not as zero bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
enum Request {
    #[default]
    None,
    Pending(TagUpdate),
}

/// The tag-group channels of one SPU. All-zero bits is the reset state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TagGroups {
    mask: u32,
    request: Request,
    status: u32,
    available: bool,
}

impl TagGroups {
    /// Empty mask, no request, no status.
    pub const fn new() -> Self {
        TagGroups {
            mask: 0,
            request: Request::None,
            status: 0,
            available: false,
        }
    }

    /// `MFC_WrTagMask`.
    pub fn write_mask(&mut self, mask: u32) {
        self.mask = mask;
    }

    /// `MFC_RdTagMask`.
    pub fn mask(&self) -> u32 {
        self.mask
    }

    /// `MFC_WrTagUpdate` with a defined condition.
    pub fn request(&mut self, condition: TagUpdate) {
        self.request = Request::Pending(condition);
    }

    /// Whether a request waits for its condition.
    pub fn pending(&self) -> bool {
        self.request != Request::None
    }

    /// Evaluates the pending request against the groups with a command left (`busy`); `true`
    /// when it was satisfied now (the `Tg` event).
    pub fn evaluate(&mut self, busy: u32) -> bool {
        let Request::Pending(condition) = self.request else {
            return false;
        };
        let complete = self.mask & !busy;
        let holds = match condition {
            TagUpdate::Immediate => true,
            TagUpdate::Any => complete != 0,
            TagUpdate::All => complete == self.mask,
        };
        if holds {
            self.status = complete;
            self.available = true;
            self.request = Request::None;
        }
        holds
    }

    /// `MFC_RdTagStat`: the status, or `None` (the read waits) while none is available.
    pub fn read_status(&mut self) -> Option<u32> {
        if !self.available {
            return None;
        }
        self.available = false;
        Some(self.status)
    }

    /// The `MFC_RdTagStat` channel count.
    pub fn status_available(&self) -> bool {
        self.available
    }
}
