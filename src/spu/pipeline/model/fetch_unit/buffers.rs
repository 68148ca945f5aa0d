//! What the real fetch unit holds: line requests and the four-deep request queue, the
//! half-line instruction buffers, the predicted path buffer and the hint register. The
//! behaviour that moves lines between them is in [`FetchUnit`](super::FetchUnit).

use crate::spu::main_memory;

/// Bytes in an instruction line: the Cell's line ([`main_memory::LINE_BYTES`]), as the fetch
/// unit's `u32` local-store addresses use it.
pub(in crate::spu::pipeline) const LINE_BYTES: u32 = main_memory::LINE_BYTES as u32;
/// Bytes in a half-line.
pub(in crate::spu::pipeline) const HALF_BYTES: u32 = 64;
/// Instructions in a half-line.
pub(in crate::spu::pipeline) const HALF_WORDS: usize = 16;
/// Stages of the load/store pipe used by line fetches.
pub(in crate::spu::pipeline) const LS_PIPE_STAGES: usize = 6;
/// Depth of the pre-fetch request queue.
pub(in crate::spu::pipeline) const PREFETCH_QUEUE_DEPTH: usize = 4;

/// Where a line request goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(in crate::spu::pipeline) enum Destination {
    /// Inline prefetch buffer 1 (trace `1-`).
    Ilb1,
    /// Inline prefetch buffer 2 (trace `2-`).
    Ilb2,
    /// Hint target buffer (trace `3-`).
    Ilbh,
}

/// The hint register: the hinted instruction and its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(in crate::spu::pipeline) struct Hint {
    /// Address of the hinted branch.
    pub branch: u32,
    /// The hint target.
    pub target: u32,
    /// ilbh holds the target's line (trace `*`).
    pub loaded: bool,
}

/// One line request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) struct LineRequest {
    /// 128-byte aligned LS address.
    pub line: u32,
    /// Destination buffer.
    pub(in crate::spu::pipeline) destination: Destination,
    /// An inline request made before a hint triggered (trace `?`): processed normally if it
    /// enters the LS pipe, flushed from the queue once the hinted branch reaches stage g.
    pub stale: bool,
}

/// One half-line of an instruction buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::spu::pipeline) struct HalfLine {
    /// 64-byte aligned LS address.
    pub address: u32,
    /// Holds instructions (trace `=`) or not (`X`).
    pub valid: bool,
    pub(in crate::spu::pipeline) words: [u32; HALF_WORDS],
}

/// An invalid half-line.
pub(in crate::spu::pipeline) const EMPTY_HALF: HalfLine = HalfLine {
    address: 0,
    valid: false,
    words: [0; HALF_WORDS],
};

/// The predicted path buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::spu::pipeline) struct PathBuffer {
    /// The half-line it holds.
    pub half: HalfLine,
    /// Byte offset of the next fetch group in the half-line.
    pub offset: u32,
}

/// The prefetch request queue, oldest first and packed (no gap before the last request).
/// A request that finds it full is dropped: the fetch unit requests a half-line again when
/// the predicted path misses it and no live request will bring it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::spu::pipeline) struct RequestQueue([Option<LineRequest>; PREFETCH_QUEUE_DEPTH]);

impl RequestQueue {
    /// No requests.
    pub(in crate::spu::pipeline) const EMPTY: RequestQueue =
        RequestQueue([None; PREFETCH_QUEUE_DEPTH]);

    /// The oldest request, the next to enter the LS pipe.
    pub(in crate::spu::pipeline) fn head(&self) -> Option<&LineRequest> {
        self.0[0].as_ref()
    }

    /// Appends `request` as the newest (dropped if the queue is full).
    pub(in crate::spu::pipeline) fn push(&mut self, request: LineRequest) {
        if let Some(slot) = self.0.iter_mut().find(|slot| slot.is_none()) {
            *slot = Some(request);
        }
    }

    /// Puts `request` ahead of every queued one (a hint fetch); the newest request is
    /// dropped if the queue was full.
    pub(in crate::spu::pipeline) fn push_front(&mut self, request: LineRequest) {
        self.0.rotate_right(1);
        self.0[0] = Some(request);
    }

    /// Takes the oldest request.
    pub(in crate::spu::pipeline) fn pop(&mut self) -> Option<LineRequest> {
        let head = self.0[0].take();
        self.0.rotate_left(1);
        head
    }

    /// Keeps only the requests `keep` accepts, in order.
    pub(in crate::spu::pipeline) fn retain(&mut self, keep: impl Fn(&LineRequest) -> bool) {
        let mut packed = [None; PREFETCH_QUEUE_DEPTH];
        for (to, from) in packed.iter_mut().zip(self.iter().filter(|r| keep(r))) {
            *to = Some(*from);
        }
        self.0 = packed;
    }

    /// The requests, oldest first.
    pub(in crate::spu::pipeline) fn iter(&self) -> impl DoubleEndedIterator<Item = &LineRequest> {
        self.0.iter().flatten()
    }

    /// The requests, oldest first, to change them in place.
    pub(in crate::spu::pipeline) fn iter_mut(&mut self) -> impl Iterator<Item = &mut LineRequest> {
        self.0.iter_mut().flatten()
    }
}
