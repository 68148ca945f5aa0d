//! The ideal fetch model ([`FetchKind::Ideal`](super::fetch::FetchKind::Ideal)).
//!
//! The correct path is always available, two instructions per cycle, and a taken branch
//! redirects at once: what spu_timing assumes. Because instructions take effect at stage o,
//! several cycles after they are fetched, the ideal model needs an oracle for the path. It is
//! a *run-ahead functional shadow*: a second copy of the architectural state that executes each
//! instruction when it is fetched. The shadow's next PC goes with the instruction; stage o
//! compares it with the next PC the real execution computes, and a difference is a typed
//! [`ModelError::PathMismatch`](crate::spu::pipeline::ModelError::PathMismatch), never a panic.
//!
//! The shadow cannot know what the host will put into a mailbox, so channel instructions
//! (`rdch`, `wrch`, `rchcnt`) are not executed in the shadow; like `stop`, halts and faults
//! they are *serializing*: fetch stops after them and resumes (re-syncing the shadow from the
//! architectural state) once they completed at stage o. The cycles issue spends waiting for
//! them count as channel stalls.
//!
//! The shadow *is* the architectural state run in program order, a few cycles early, so what
//! it sees an instruction do is what stage o would compute. For every instruction whose effect
//! is one register write or one quadword store (plus the next PC), the shadow records that
//! effect in the instruction window and stage o applies it instead of interpreting the
//! instruction a second time. Instructions with other state (channels, SPRs, `fscrwr`, `iret`,
//! `bisled`, the interrupt enable/disable branch forms) and profiling checkpoints (whose
//! counts depend on the cycle at stage o) are still interpreted at stage o.

use super::decode_cache::DecodeCache;
use super::decoded::{Decoded, Replay};
use super::inflight::NO_REGISTER;
use super::issue::IssuePipes;
#[cfg(feature = "spu-lean")]
use super::sizes::{ISSUE_STAGE_NAMES, O_STAGE};
use super::window::Effect;
#[cfg(not(feature = "spu-lean"))]
use crate::spu::exec::NoCode;
use crate::spu::exec::{Quadword, RunAhead, SpuState, Status};
#[cfg(feature = "spu-lean")]
use crate::spu::exec::{STORES_AHEAD, ShadowState};
use crate::spu::isa::Instruction;
use crate::spu::probes::StallReason;

/// The run-ahead copy of the architectural state: a whole [`SpuState`] (local store included)
/// by default, a [`ShadowState`] that reads the architectural local store and keeps its own
/// stores aside in the lean configuration.
#[cfg(not(feature = "spu-lean"))]
type Shadow = SpuState<NoCode>;
#[cfg(feature = "spu-lean")]
type Shadow = ShadowState;

// The lean copy keeps aside the stores of the instructions it ran ahead of the architectural
// state: at most the issue stages' and the execution pipes' instructions (two per stage).
#[cfg(feature = "spu-lean")]
const _: () = assert!(STORES_AHEAD > 2 * ISSUE_STAGE_NAMES.len() + 2 * (O_STAGE as usize + 1));

/// Bytes of the run-ahead copy (for the footprint table).
pub(crate) const SHADOW_BYTES: usize = size_of::<Shadow>();

/// An empty run-ahead copy (all-zero bits); it is synced before the first fetch.
const fn new_shadow() -> Shadow {
    #[cfg(not(feature = "spu-lean"))]
    let shadow = SpuState::with_code(0, NoCode);
    #[cfg(feature = "spu-lean")]
    let shadow = ShadowState::new();
    shadow
}

/// What ideal fetch needs from its run-ahead copy. `arch` is the architectural state it
/// copies; the lean copy reads its local store.
trait RunAheadCopy {
    /// Becomes a copy of `arch`.
    fn sync_from(&mut self, arch: &SpuState);
    /// The word at `pc` as the copy sees the local store.
    fn word_at(&self, arch: &SpuState, pc: u32) -> u32;
    /// The quadword at `address` as the copy sees the local store.
    fn quadword_at(&self, arch: &SpuState, address: u32) -> Quadword;
    /// Runs `insn`, fetch sequence number `seq`, at the PC.
    fn run_ahead(&mut self, arch: &SpuState, insn: &Instruction, seq: u64) -> RunAhead;
    /// Whether a store did not fit since the last sync (the lean copy holds a few).
    fn overflowed(&self) -> bool;
    /// The architectural state completed every instruction up to `seq`.
    fn completed_through(&mut self, seq: u64);
}

#[cfg(not(feature = "spu-lean"))]
impl RunAheadCopy for SpuState<NoCode> {
    fn sync_from(&mut self, arch: &SpuState) {
        self.copy_state_from(arch);
    }
    #[inline(always)]
    fn word_at(&self, _arch: &SpuState, pc: u32) -> u32 {
        self.local_store().load_word(pc)
    }
    #[inline(always)]
    fn quadword_at(&self, _arch: &SpuState, address: u32) -> Quadword {
        self.local_store().load_quadword(address)
    }
    #[inline(always)]
    fn run_ahead(&mut self, _arch: &SpuState, insn: &Instruction, _seq: u64) -> RunAhead {
        SpuState::<NoCode>::run_ahead(self, insn)
    }
    #[inline(always)]
    fn overflowed(&self) -> bool {
        false
    }
    #[inline(always)]
    fn completed_through(&mut self, _seq: u64) {}
}

#[cfg(feature = "spu-lean")]
impl RunAheadCopy for ShadowState {
    fn sync_from(&mut self, arch: &SpuState) {
        ShadowState::sync_from(self, arch);
    }
    #[inline(always)]
    fn word_at(&self, arch: &SpuState, pc: u32) -> u32 {
        self.load_word(arch.local_store(), pc)
    }
    #[inline(always)]
    fn quadword_at(&self, arch: &SpuState, address: u32) -> Quadword {
        self.load_quadword(arch.local_store(), address)
    }
    #[inline(always)]
    fn run_ahead(&mut self, arch: &SpuState, insn: &Instruction, seq: u64) -> RunAhead {
        ShadowState::run_ahead(self, arch.local_store(), insn, seq)
    }
    #[inline(always)]
    fn overflowed(&self) -> bool {
        ShadowState::overflowed(self)
    }
    #[inline(always)]
    fn completed_through(&mut self, seq: u64) {
        ShadowState::completed_through(self, seq);
    }
}

/// No pending instructions.
const NO_PENDING: (u64, u64) = (0, 0);

/// The ideal fetch model (see the module documentation).
#[derive(Clone)]
pub(crate) struct IdealFetch {
    shadow: Shadow,
    /// Decoding (operand lists, class) is done once per address and word, not per fetch.
    decoded: DecodeCache,
    /// The shadow was copied from the architectural state (false: copy it before fetching).
    synced: bool,
    /// Fetch waits for a serializing instruction to complete.
    waiting: bool,
    starve_reason: StallReason,
    /// Instructions the shadow ran ahead into the window during a fast-forward that fetch
    /// has not put into stage g yet (sequence numbers `.0 .. .1`; empty when `.0 == .1`).
    pending: (u64, u64),
    /// The target of a backward taken branch fetched in the last cycle (a loop head).
    loop_head: Option<u32>,
}

impl IdealFetch {
    pub(in crate::spu::pipeline) const fn new() -> Self {
        IdealFetch {
            // Copied from the architectural state before the first fetch.
            shadow: new_shadow(),
            decoded: DecodeCache::new(),
            synced: false,
            waiting: false,
            starve_reason: StallReason::Initialisation,
            pending: NO_PENDING,
            loop_head: None,
        }
    }

    pub(in crate::spu::pipeline) fn restart(&mut self) {
        self.restart_reason(StallReason::Initialisation);
    }

    /// The serializing instruction fetch waits for is blocked on a channel: the cycles issue
    /// now starves count under `reason`.
    pub(in crate::spu::pipeline) fn wait_reason(&mut self, reason: StallReason) {
        self.starve_reason = reason;
    }

    /// The run-ahead copy's own local store, where DMA data must land too (`None` for the
    /// lean copy, which reads the architectural one).
    pub(in crate::spu::pipeline) fn shadow_local_store_mut(
        &mut self,
    ) -> Option<&mut crate::spu::exec::LocalStore> {
        #[cfg(not(feature = "spu-lean"))]
        return Some(self.shadow.local_store_mut());
        #[cfg(feature = "spu-lean")]
        return None;
    }

    pub(in crate::spu::pipeline) fn restart_reason(&mut self, reason: StallReason) {
        self.synced = false;
        self.waiting = false;
        self.starve_reason = reason;
        self.pending = NO_PENDING;
        self.loop_head = None;
    }

    /// Puts the next fetch group into issue stage g; `false` when there is none (fetch
    /// waits for a serializing instruction or the SPU stopped).
    #[inline(never)]
    pub(in crate::spu::pipeline) fn fetch_group(
        &mut self,
        arch: &mut SpuState,
        issue: &mut IssuePipes,
    ) -> bool {
        if self.waiting {
            return false;
        }
        if !self.has_pending() {
            if !self.synced {
                RunAheadCopy::sync_from(&mut self.shadow, arch);
                self.synced = true;
            }
            if let Status::Stopped(_) = self.shadow.status() {
                // A stopped SPU: nothing to fetch until the host resumes it. (A blocked one
                // retries its channel instruction, which fetch treats as serializing.)
                self.waiting = true;
                self.starve_reason = StallReason::Channel;
                return false;
            }
        }
        loop {
            let (seq, pc, next, serializing) = if self.has_pending() {
                // Run ahead already (a fast-forward stopped in the middle of a repetition).
                let seq = self.pending.0;
                self.pending.0 += 1;
                let record = issue.in_flight(seq);
                (seq, record.pc, record.predicted_next, record.serializing())
            } else {
                let pc = self.shadow.pc();
                let fetched = self.fetch_one(arch, pc, issue);
                (issue.last_seq(), pc, fetched.next, fetched.serializing)
            };
            let slot = ((pc >> 2) & 1) as usize;
            issue.place(slot, seq);
            if serializing {
                self.waiting = true;
                self.starve_reason = StallReason::Channel;
                break;
            }
            if slot == 0 && next == pc.wrapping_add(4) {
                continue;
            }
            break;
        }
        true
    }

    /// The architectural state completed every instruction up to fetch sequence number
    /// `seq` (the lean run-ahead copy drops the stores it kept aside for them).
    #[inline(always)]
    pub(in crate::spu::pipeline) fn completed_through(&mut self, seq: u64) {
        RunAheadCopy::completed_through(&mut self.shadow, seq);
    }

    /// Why stage g stays empty when fetch has nothing to put there.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn starve_reason(&self) -> StallReason {
        self.starve_reason
    }

    /// The loop head fetch passed in the last cycle, once.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn take_loop_head(&mut self) -> Option<u32> {
        self.loop_head.take()
    }

    #[inline(always)]
    fn has_pending(&self) -> bool {
        self.pending.0 < self.pending.1
    }

    /// Fast-forward: runs the repetition `path` (its instructions in fetch order) ahead
    /// into the window without putting them into a stage (they are pending until fetch
    /// places them, unless [`forget_pending`](Self::forget_pending) says the repetition was
    /// skipped). Returns whether the shadow was at the path's head and every instruction
    /// was followed by the next one of the path (the last by the head), had its effect
    /// recorded and stored nothing into `code` (the quadwords from `.0` to `.1` holding the
    /// path); the instructions run ahead up to one that was not are pending either way.
    #[cfg(not(feature = "spu-lean"))]
    #[inline(always)]
    pub(in crate::spu::pipeline) fn run_ahead_path(
        &mut self,
        arch: &SpuState,
        issue: &mut IssuePipes,
        path: &[Decoded],
        code: (u32, u32),
    ) -> bool {
        let Some(head) = path.first().map(Decoded::pc) else {
            return true;
        };
        // Each instruction checks its successor: only the first needs the shadow's PC.
        if self.shadow.pc() != head {
            return false;
        }
        let first = issue.last_seq() + 1;
        let mut followed = true;
        for (index, entry) in path.iter().enumerate() {
            let next = path.get(index + 1).map_or(head, Decoded::pc);
            let pc = entry.pc();
            let fetched = run_entry(
                &mut self.shadow,
                arch,
                &mut self.loop_head,
                pc,
                entry,
                issue,
            );
            followed = fetched.next == next
                && fetched.recorded
                && !fetched.serializing
                && !fetched
                    .stored
                    .is_some_and(|address| (code.0..=code.1).contains(&address));
            if !followed {
                break;
            }
        }
        let end = issue.last_seq() + 1;
        self.pending = if self.has_pending() {
            (self.pending.0, end)
        } else {
            (first, end)
        };
        followed
    }

    /// Fast-forward: the pending instructions belong to a skipped repetition (the timing
    /// state moved past them), so fetch does not place them.
    #[cfg(not(feature = "spu-lean"))]
    #[inline(always)]
    pub(in crate::spu::pipeline) fn forget_pending(&mut self) {
        self.pending = NO_PENDING;
        self.loop_head = None;
    }

    /// Whether fetch runs with nothing pending, not waiting, not stale (the state a
    /// fast-forward starts from), and the shadow's PC and starve reason.
    #[cfg(not(feature = "spu-lean"))]
    pub(in crate::spu::pipeline) fn steady(&self) -> Option<(u32, StallReason)> {
        (!self.has_pending() && !self.waiting && self.synced)
            .then(|| (self.shadow.pc(), self.starve_reason))
    }

    /// Fetches the instruction at `pc` into the window (the caller places it into a stage)
    /// and runs it in the shadow (unless it serializes).
    #[inline(always)]
    fn fetch_one(&mut self, arch: &mut SpuState, pc: u32, issue: &mut IssuePipes) -> Fetched {
        let word = self.shadow.word_at(arch, pc);
        let entry = self.decoded.get(pc, word, || arch.lent_code_lines());
        run_entry(
            &mut self.shadow,
            arch,
            &mut self.loop_head,
            pc,
            entry,
            issue,
        )
    }

    /// Fast-forward: the decoded form of the instruction at `pc` if the shadow's local store
    /// still holds `word` there (a repetition's instructions are checked once, then guarded
    /// by watching the shadow's stores).
    #[cfg(not(feature = "spu-lean"))]
    pub(in crate::spu::pipeline) fn decoded_at(
        &mut self,
        arch: &SpuState,
        pc: u32,
        word: u32,
    ) -> Option<Decoded> {
        (self.shadow.word_at(arch, pc) == word).then(|| *self.decoded.get(pc, word, || None))
    }
}

/// What fetching one instruction did.
#[derive(Clone, Copy)]
#[cfg_attr(feature = "spu-lean", allow(dead_code))] // `recorded`, `stored`: the fast-forward's
struct Fetched {
    /// The address that follows it.
    next: u32,
    /// Fetch must wait for it to complete.
    serializing: bool,
    /// Its effect was recorded for stage o.
    recorded: bool,
    /// The quadword it stored to, if it was a store.
    stored: Option<u32>,
}

/// Appends `entry` (the instruction at `pc`) to the window and runs it in `shadow`, recording
/// its effect where stage o may replay it; notes a backward taken branch's target in
/// `loop_head`.
#[inline(always)]
fn run_entry(
    shadow: &mut Shadow,
    arch: &SpuState,
    loop_head: &mut Option<u32>,
    pc: u32,
    entry: &Decoded,
    issue: &mut IssuePipes,
) -> Fetched {
    let replay = entry.replay;
    let record = issue.append(&entry.inflight);
    if replay == Replay::Serializing {
        return Fetched {
            next: record.predicted_next,
            serializing: true,
            recorded: false,
            stored: None,
        };
    }
    let (seq, target) = (record.seq, record.target);
    let ahead = RunAheadCopy::run_ahead(shadow, arch, &record.instruction, seq);
    if RunAheadCopy::overflowed(shadow) {
        // The lean copy could not keep this store aside (never expected): fetch waits until
        // stage o has interpreted the instruction, then copies the architectural state again.
        record.predicted_next = shadow.pc();
        record.set_serializing(true);
        return Fetched {
            next: record.predicted_next,
            serializing: true,
            recorded: false,
            stored: None,
        };
    }
    let (flags, address) = match ahead {
        RunAhead::Unusual => {
            // A checkpoint completes with the SPU running; the others (stop, halt, a blocked
            // channel access, a fault) stop fetch.
            let next = shadow.pc();
            record.predicted_next = next;
            record.set_serializing(!matches!(shadow.status(), Status::Running));
            return Fetched {
                next,
                serializing: record.serializing(),
                recorded: false,
                stored: None,
            };
        }
        RunAhead::Next => (0, 0),
        RunAhead::Nop => (Effect::NOP, 0),
        RunAhead::Load(address) => (Effect::LOADS, address),
        RunAhead::Store(address) => (Effect::STORES, address),
        RunAhead::Branch(target) => {
            if target <= pc {
                *loop_head = Some(target);
            }
            (Effect::BRANCH_TAKEN, 0)
        }
    };
    let next = shadow.pc();
    record.predicted_next = next;
    let stored = (flags & Effect::STORES != 0).then_some(address);
    if replay == Replay::Never {
        return Fetched {
            next,
            serializing: false,
            recorded: false,
            stored,
        };
    }
    let (flags, value) = if stored.is_some() {
        (flags, shadow.quadword_at(arch, address))
    } else if target != NO_REGISTER {
        (flags | Effect::WRITES_TARGET, shadow.register(target))
    } else {
        (flags, Quadword::ZERO)
    };
    issue.set_effect(seq, Effect::new(flags), value, address);
    Fetched {
        next,
        serializing: false,
        recorded: true,
        stored,
    }
}
