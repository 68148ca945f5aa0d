//! One sample: where the core was, the call stack that led there, and the counter value the
//! sampling handler read.

/// The most return addresses a sample keeps.
pub const MAX_STACK_DEPTH: usize = 32;

/// Why a frame-pointer walk stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WalkEnd {
    /// The chain ended normally: a null frame pointer or a null return address (the outermost
    /// frame of a runtime that zeroes x29/x30 at entry).
    Complete,
    /// The sample's depth limit was reached; outer frames are missing.
    DepthLimit,
    /// A frame pointer that is not 8-byte aligned (not a frame record: corrupt chain or code
    /// built without frame pointers).
    Misaligned,
    /// A frame pointer outside the stack bounds given to the walker.
    OutOfBounds,
    /// A frame pointer at or below the previous one: frame records must move toward the stack
    /// base, so this is a loop or a corrupt chain.
    NotAscending,
    /// The memory reader refused an address inside the bounds.
    Unreadable,
}

impl WalkEnd {
    /// The wire-format code.
    pub const fn code(self) -> u8 {
        match self {
            Self::Complete => 0,
            Self::DepthLimit => 1,
            Self::Misaligned => 2,
            Self::OutOfBounds => 3,
            Self::NotAscending => 4,
            Self::Unreadable => 5,
        }
    }

    /// From a wire-format code.
    pub const fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            0 => Self::Complete,
            1 => Self::DepthLimit,
            2 => Self::Misaligned,
            3 => Self::OutOfBounds,
            4 => Self::NotAscending,
            5 => Self::Unreadable,
            _ => return None,
        })
    }
}

/// A sample taken by the sampling interrupt handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Sample {
    /// The interrupted instruction (ELR_EL1).
    pub pc: u64,
    /// The sampling counter as the handler read it, before reloading it. The counter is loaded
    /// so that it wraps through zero at the programmed trigger, so this is the number of events
    /// (or timer ticks) that happened between the trigger and the handler: the skid.
    pub counter: u64,
    /// The interrupted code's link register (x30), 0 when unknown. When the sample was taken
    /// in a function that has not stored its frame record (its prologue, its epilogue, or a
    /// function built without frame pointers such as `memcpy`), the frame-pointer chain skips
    /// that function's caller, and x30 is the return address into it; the host tool decides
    /// from the function's code whether to use it.
    pub lr: u64,
    /// Why the stack walk stopped.
    pub walk_end: WalkEnd,
    /// The core the sample was taken on (its index in the runtime's numbering; 0 on a single
    /// core). Each core has its own sampling interrupt and its own buffer; one profile merges
    /// them.
    pub core: u8,
    depth: u8,
    frames: [u64; MAX_STACK_DEPTH],
}

impl Sample {
    /// A sample at `pc` with no call stack, on core 0.
    pub const fn new(pc: u64, counter: u64) -> Self {
        Self {
            pc,
            counter,
            lr: 0,
            walk_end: WalkEnd::Complete,
            core: 0,
            depth: 0,
            frames: [0; MAX_STACK_DEPTH],
        }
    }

    /// A sample with the given return addresses (innermost caller first); addresses past
    /// [`MAX_STACK_DEPTH`] are dropped and the walk end becomes [`WalkEnd::DepthLimit`].
    pub fn with_frames(pc: u64, counter: u64, frames: &[u64], walk_end: WalkEnd) -> Self {
        let mut sample = Self::new(pc, counter);
        sample.walk_end = walk_end;
        for &frame in frames {
            if !sample.push_frame(frame) {
                sample.walk_end = WalkEnd::DepthLimit;
                break;
            }
        }
        sample
    }

    /// The same sample, with the interrupted link register `lr`.
    pub const fn with_lr(mut self, lr: u64) -> Self {
        self.lr = lr;
        self
    }

    /// The same sample, taken on `core`.
    pub const fn on_core(mut self, core: u8) -> Self {
        self.core = core;
        self
    }

    /// The return addresses found by the stack walk, innermost caller first. Each is the
    /// instruction after a call; the call itself is 4 bytes earlier.
    pub fn frames(&self) -> &[u64] {
        self.frames
            .get(..usize::from(self.depth))
            .unwrap_or(&self.frames)
    }

    /// Appends a return address; `false` when the sample is full.
    pub fn push_frame(&mut self, address: u64) -> bool {
        match self.frames.get_mut(usize::from(self.depth)) {
            Some(slot) => {
                *slot = address;
                self.depth += 1;
                true
            }
            None => false,
        }
    }
}
