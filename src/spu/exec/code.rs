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
//! Pipeline mode runs no op (stage o executes what fetch decoded): there the same 512 KiB hold
//! the pipeline's own decoded instructions, lent as lines of raw words
//! ([`DecodedCode::lend_lines`]). The first loan clears the ops and has the local store note
//! everything as written, so instruction mode takes the memory back (forgetting every op, which
//! clears the lines) before it runs an op again: a change of mode costs a clear of 512 KiB,
//! and both modes decode each word once.
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

/// Words of a line of the decoded code's memory as [`DecodedCode::lend_lines`] lends it.
#[cfg_attr(
    any(feature = "spu-lean", not(feature = "spu-decode-once")),
    allow(dead_code)
)]
pub(crate) const LINE_WORDS: usize = 4;
/// A line of lent memory: raw words whose meaning is the borrower's.
pub(crate) type LentLine = [u64; LINE_WORDS];

/// One decoded word: an op's bits ([`Op::bits`]).
#[cfg(all(feature = "spu-decode-once", not(feature = "spu-lean")))]
type Slot = u64;

/// One decoded word: an op's bits, with the address it belongs to, complemented (zero bits:
/// no address).
#[cfg(any(feature = "spu-lean", not(feature = "spu-decode-once")))]
#[derive(Clone, Copy)]
struct Slot {
    not_pc: u32,
    op: u64,
}

#[cfg(all(feature = "spu-decode-once", not(feature = "spu-lean")))]
const EMPTY: Slot = 0;
#[cfg(any(feature = "spu-lean", not(feature = "spu-decode-once")))]
const EMPTY: Slot = Slot { not_pc: 0, op: 0 };

/// The op a slot holds for `pc`, [`Op::ZERO`] if none.
#[cfg(all(feature = "spu-decode-once", not(feature = "spu-lean")))]
#[inline(always)]
fn slot_op(slot: &Slot, _pc: u32) -> Op {
    Op::from_bits(*slot)
}

/// The op a slot holds for `pc`, [`Op::ZERO`] if none.
#[cfg(any(feature = "spu-lean", not(feature = "spu-decode-once")))]
#[inline(always)]
fn slot_op(slot: &Slot, pc: u32) -> Op {
    if slot.not_pc != !pc {
        return Op::ZERO;
    }
    Op::from_bits(slot.op)
}

/// The slot that keeps `op` for `pc`.
#[cfg(all(feature = "spu-decode-once", not(feature = "spu-lean")))]
#[inline(always)]
fn slot_of(_pc: u32, op: Op) -> Slot {
    op.bits()
}

/// The slot that keeps `op` for `pc`.
#[cfg(any(feature = "spu-lean", not(feature = "spu-decode-once")))]
#[inline(always)]
fn slot_of(pc: u32, op: Op) -> Slot {
    Slot {
        not_pc: !pc,
        op: op.bits(),
    }
}

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
    /// The slots hold a borrower's lines, not ops ([`lend_lines`](Self::lend_lines)).
    #[cfg(all(feature = "spu-decode-once", not(feature = "spu-lean")))]
    lent: bool,
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
            #[cfg(all(feature = "spu-decode-once", not(feature = "spu-lean")))]
            lent: false,
        }
    }

    /// Lends the memory of the ops, as lines of raw words (16 384 lines of 32 bytes), to a
    /// borrower that runs no op while it holds them: pipeline mode, whose fetch keeps its
    /// decoded instructions there. The first call after ops were kept clears them (the lines
    /// then read all zero) and says so with `true`: the caller must then have the local store
    /// note everything as written, so that instruction mode forgets every word (which ends
    /// the loan and clears the lines) before it runs an op.
    #[cfg(all(feature = "spu-decode-once", not(feature = "spu-lean")))]
    pub(crate) fn lend_lines(&mut self) -> (&mut [LentLine], bool) {
        let newly_lent = !self.lent;
        if newly_lent {
            self.slots.fill(EMPTY);
            self.lent = true;
        }
        (self.slots.as_chunks_mut::<LINE_WORDS>().0, newly_lent)
    }
}

impl CodeStore for DecodedCode {
    #[inline(always)]
    fn op(&self, pc: u32) -> Op {
        // SLOTS is a power of two: the mask keeps the index in bounds.
        slot_op(&self.slots[(pc >> 2) as usize & (SLOTS - 1)], pc)
    }

    fn remember(&mut self, pc: u32, op: Op) {
        self.slots[(pc >> 2) as usize & (SLOTS - 1)] = slot_of(pc, op);
    }

    fn forget(&mut self, index: Option<usize>) {
        let Some(index) = index else {
            self.slots.fill(EMPTY);
            #[cfg(all(feature = "spu-decode-once", not(feature = "spu-lean")))]
            {
                self.lent = false;
            }
            return;
        };
        for word in 0..4 {
            let pc = ((index * 4 + word) * 4) as u32;
            let slot = &mut self.slots[(pc >> 2) as usize & (SLOTS - 1)];
            // In the cache, a slot of another address keeps its op.
            if slot_op(slot, pc) != Op::ZERO {
                *slot = EMPTY;
            }
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
