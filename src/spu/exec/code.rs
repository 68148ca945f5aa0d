//! The local store's code, decoded once: the ops the interpreter runs from.
//!
//! With the feature `spu-decode-once` (on by default, and in `spusim`) it is a decoded copy of
//! the whole local store, one [`Op`] (8 bytes) per word, 512 KiB per SPU: an instruction is decoded the first time it runs and its op is kept until
//! its word is written (a store, DMA, a loader: the local store notes writes to decoded
//! quadwords, `local_store.rs`, and `SpuState::catch_up_code` in `code_run.rs` forgets their
//! ops before the next one runs). Straight-line code of any length decodes once, and
//! self-modifying code and overlays run what the local store holds.
//!
//! A word not decoded yet holds [`Op::ZERO`], the op of `stop 0`: the interpreter reaches
//! `stop` out of line, and there `SpuState::decode_missing` tells a real `stop 0` (the word
//! is zero) from a word to decode. The hot path has no test for it.
//!
//! Without that feature, and in the lean configuration (feature `spu-lean`, which wins over
//! it), it keeps 512 ops instead (8 KiB: loops up to 2 KiB of code decode once), direct-mapped
//! by address with the address beside each; an op of another address reads as [`Op::ZERO`],
//! and is decoded again. That is what a firmware built with `default-features = false` gets
//! unless it asks for `spu-decode-once` (`docs/spu-footprint.md`).

use super::op::Op;

/// Words in the local store.
#[cfg(all(feature = "spu-decode-once", not(feature = "spu-lean")))]
const SLOTS: usize = (super::LS_SIZE / 4) as usize;
/// Ops the cache keeps (lean configuration, or no `spu-decode-once`).
#[cfg(any(feature = "spu-lean", not(feature = "spu-decode-once")))]
const SLOTS: usize = 512;

/// One decoded word: in the cache with its address, complemented (zero bits: no address).
#[derive(Clone, Copy)]
struct Slot {
    #[cfg(any(feature = "spu-lean", not(feature = "spu-decode-once")))]
    not_pc: u32,
    op: Op,
}

const EMPTY: Slot = Slot {
    #[cfg(any(feature = "spu-lean", not(feature = "spu-decode-once")))]
    not_pc: 0,
    op: Op::ZERO,
};

/// Where an [`SpuState`](super::SpuState) keeps its code decoded: [`DecodedCode`] (the crate
/// has another for copies of a state that never run from their own code). Sealed.
pub trait CodeStore: sealed::Sealed + Clone {
    /// The op of the word at `pc`, `Op::ZERO` if it is not decoded.
    fn op(&self, pc: u32) -> Op;
    /// Keeps `op`, decoded from the word at `pc`.
    fn remember(&mut self, pc: u32, op: Op);
    /// Forgets the ops of quadword `index` (address / 16), or of every word.
    fn forget(&mut self, index: Option<usize>);
}

/// The local store's code, decoded once, as one SPU keeps it (see
/// [`SpuState`](super::SpuState)): 512 KiB with `spu-decode-once`, else (and in the lean
/// configuration) a cache of 8 KiB (`docs/spu-footprint.md`). All-zero bits when new.
#[derive(Clone)]
pub struct DecodedCode {
    slots: [Slot; SLOTS],
}

mod sealed {
    /// Only this crate's stores.
    pub trait Sealed {}
    impl Sealed for super::DecodedCode {}
    impl Sealed for super::NoCode {}
}

/// No decoded code: for a copy of the state that never runs from its own (the pipeline's
/// run-ahead copy, which executes what fetch decoded).
#[derive(Clone, Copy)]
#[cfg_attr(feature = "spu-lean", allow(dead_code))] // the lean copy is no `SpuState`
pub(crate) struct NoCode;

impl CodeStore for NoCode {
    #[inline(always)]
    fn op(&self, _pc: u32) -> Op {
        Op::ZERO
    }
    fn remember(&mut self, _pc: u32, _op: Op) {}
    fn forget(&mut self, _index: Option<usize>) {}
}

impl DecodedCode {
    /// Nothing decoded.
    pub const fn new() -> Self {
        DecodedCode {
            slots: [EMPTY; SLOTS],
        }
    }
}

impl CodeStore for DecodedCode {
    #[inline(always)]
    fn op(&self, pc: u32) -> Op {
        // SLOTS is a power of two: the mask keeps the index in bounds.
        let slot = &self.slots[(pc >> 2) as usize & (SLOTS - 1)];
        #[cfg(any(feature = "spu-lean", not(feature = "spu-decode-once")))]
        if slot.not_pc != !pc {
            return Op::ZERO;
        }
        slot.op
    }

    fn remember(&mut self, pc: u32, op: Op) {
        let slot = &mut self.slots[(pc >> 2) as usize & (SLOTS - 1)];
        *slot = Slot {
            #[cfg(any(feature = "spu-lean", not(feature = "spu-decode-once")))]
            not_pc: !pc,
            op,
        };
    }

    fn forget(&mut self, index: Option<usize>) {
        let Some(index) = index else {
            self.slots.fill(EMPTY);
            return;
        };
        for word in 0..4 {
            let pc = ((index * 4 + word) * 4) as u32;
            let slot = &mut self.slots[(pc >> 2) as usize & (SLOTS - 1)];
            #[cfg(any(feature = "spu-lean", not(feature = "spu-decode-once")))]
            if slot.not_pc != !pc {
                continue;
            }
            *slot = EMPTY;
        }
    }
}

impl Default for DecodedCode {
    fn default() -> Self {
        Self::new()
    }
}

/// Bytes of the decoded code (for the footprint table).
pub(crate) const DECODED_CODE_BYTES: usize = size_of::<DecodedCode>();
