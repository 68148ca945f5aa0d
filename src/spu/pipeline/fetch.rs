//! Instruction fetch models behind one interface.
//!
//! The pipeline asks its [`FetchModel`] once per cycle, after execute and issue were updated,
//! for the next fetch group (a doubleword-aligned pair) to put into issue stage g, and tells it
//! when a serializing instruction completed at stage o.
//!
//! # Ideal fetch ([`FetchKind::Ideal`])
//! The correct path is always available, two instructions per cycle, and a taken branch
//! redirects at once: what spu_timing assumes. Because instructions take effect at stage o,
//! several cycles after they are fetched, the ideal model needs an oracle for the path. It is
//! a *run-ahead functional shadow*: a second copy of the architectural state that executes each
//! instruction when it is fetched. The shadow's next PC goes with the instruction; stage o
//! compares it with the next PC the real execution computes, and a difference is a typed
//! [`ModelError::PathMismatch`](super::ModelError::PathMismatch), never a panic.
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
//!
//! # Real fetch ([`FetchKind::Real`], issue 7)
//! The fetch unit of [`fetch_unit`](super::fetch_unit): it fetches the predicted path from the
//! local store through the LS pipe and the line buffers, with no oracle. Stage o compares the
//! resolved next PC with the one fetch predicted; a difference squashes the younger
//! instructions and starts the mispredict sequence instead of being a path error.

use super::decode_cache::{DecodeCache, Decoded, Replay};
use super::fetch_unit::FetchUnit;
use super::issue::IssuePipes;
use super::window::Effect;
use crate::spu::exec::{Quadword, RunAhead, Spu as ArchState, Status};
use crate::spu::isa::decode::Instruction;
use crate::spu::isa::opcodes::{IClass, Mnemonic};
use crate::spu::probes::StallReason;

/// "No register": index of an always-ready scoreboard slot.
pub const NO_REGISTER: u8 = 128;

/// An instruction travelling through the issue and execution pipes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// Its local-store address.
    pub pc: u32,
    /// The decoded instruction (for an illegal word: the word with `illegal` set).
    pub instruction: Instruction,
    /// The address fetch expects to follow it.
    pub predicted_next: u32,
    /// Class (execution pipe and timing).
    pub class: IClass,
    /// Register written, or [`NO_REGISTER`] (128).
    pub target: u8,
    /// Registers read; unused entries are [`NO_REGISTER`].
    pub sources: [u8; 3],
    /// The registers read or written as a bit set (register `r` is bit `r % 64` of word
    /// `r / 64`), for the registers-used statistic.
    pub registers: [u64; 2],
    /// Fetch waits until this instruction completed (channel, stop, halt, fault).
    pub serializing: bool,
    /// The word is not an SPU instruction: stage o reports the fault.
    pub illegal: bool,
    /// Fetch sequence number, given when the instruction enters issue stage g (for
    /// pipeline viewers; 0 before).
    pub seq: u64,
}

impl InFlight {
    /// Wraps a decoded instruction.
    pub fn new(pc: u32, instruction: Instruction, predicted_next: u32) -> Self {
        let mut sources = [NO_REGISTER; 3];
        for (slot, source) in sources.iter_mut().zip(instruction.sources()) {
            if let Some(register) = source {
                *slot = register & 0x7f;
            }
        }
        let target = instruction.target().map_or(NO_REGISTER, |r| r & 0x7f);
        let mut registers = [0u64; 2];
        for &register in sources.iter().chain(core::iter::once(&target)) {
            if let Some(word) = registers.get_mut(usize::from(register / 64)) {
                *word |= 1 << (register % 64);
            }
        }
        InFlight {
            pc,
            instruction,
            predicted_next,
            class: instruction.class(),
            target,
            sources,
            registers,
            serializing: false,
            illegal: false,
            seq: 0,
        }
    }

    /// An illegal word: timed like a `nop`, faults at stage o.
    pub fn illegal_at(pc: u32, word: u32) -> Self {
        let mut nop = NOP_INSTRUCTION;
        nop.word = word;
        let mut inflight = Self::new(pc, nop, pc);
        inflight.serializing = true;
        inflight.illegal = true;
        inflight
    }

    /// `nop` or `lnop`.
    pub fn is_nop(&self) -> bool {
        matches!(self.class, IClass::Nop | IClass::Lnop)
    }
}

const NOP_INSTRUCTION: Instruction = Instruction {
    word: 0x4020_0000,
    mnemonic: Mnemonic::Nop,
    rt: 0,
    ra: 0,
    rb: 0,
    rc: 0,
    imm: 0,
    hint_offset: 0,
};

/// A fetch group: the pair at an even and the following odd word address. A slot is `None`
/// when the path does not go through that address.
pub type Group = [Option<InFlight>; 2];

/// Which fetch model to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FetchKind {
    /// Always the correct path, two instructions per cycle, no branch penalty.
    Ideal,
    /// The article's fetch unit (issue 7): line buffers, LS pipe, hints, mispredicts.
    Real,
}

impl FetchKind {
    /// `"ideal"` or `"real"`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "ideal" => Some(Self::Ideal),
            "real" => Some(Self::Real),
            _ => None,
        }
    }
}

/// The fetch model of a pipeline.
///
/// No heap: the ideal model's run-ahead state lives inline, so every pipeline reserves room
/// for it whichever model it uses (the arena's storage is sized once, statically).
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub enum FetchModel {
    /// Ideal fetch with a run-ahead functional shadow.
    Ideal(IdealFetch),
    /// The fetch unit; `restart` set: start at the architectural PC on the next cycle.
    Real {
        /// The unit.
        unit: FetchUnit,
        /// Fetch must restart at the architectural PC.
        restart: bool,
        /// Instructions decoded once per address and word (kept across restarts).
        decoded: DecodeCache,
    },
}

impl FetchModel {
    /// The ideal model for SPU `id`.
    pub(crate) const fn new_ideal(id: u8) -> Self {
        FetchModel::Ideal(IdealFetch::new(id))
    }

    /// The real fetch unit.
    pub(crate) const fn new_real() -> Self {
        FetchModel::Real {
            unit: FetchUnit::new(),
            restart: true,
            decoded: DecodeCache::new(),
        }
    }

    /// The kind.
    pub fn kind(&self) -> FetchKind {
        match self {
            FetchModel::Ideal(_) => FetchKind::Ideal,
            FetchModel::Real { .. } => FetchKind::Real,
        }
    }

    /// The real fetch unit's state, if that is the model.
    pub fn unit(&self) -> Option<&FetchUnit> {
        match self {
            FetchModel::Real { unit, .. } => Some(unit),
            FetchModel::Ideal(_) => None,
        }
    }

    /// Forgets everything fetched; fetch restarts at the architectural PC.
    #[inline]
    pub(crate) fn restart(&mut self) {
        match self {
            FetchModel::Ideal(ideal) => ideal.restart(),
            FetchModel::Real { restart, .. } => *restart = true,
        }
    }

    /// One fetch cycle: puts the next group into issue stage g if it is free and a group is
    /// available (else an empty g records why it is empty). Returns whether a line request
    /// was kept out of the LS pipe by a load/store (LS contention).
    #[inline(always)]
    pub(crate) fn step(
        &mut self,
        arch: &ArchState,
        issue: &mut IssuePipes,
        ls_in_stage_n: bool,
    ) -> bool {
        let g_free = issue.g_is_empty();
        match self {
            FetchModel::Ideal(ideal) => {
                if g_free && !ideal.fetch_group(arch, issue) {
                    issue.bubbles[0] = ideal.starve_reason;
                }
                false
            }
            FetchModel::Real {
                unit,
                restart,
                decoded,
            } => {
                if *restart {
                    unit.restart(arch.pc());
                    *restart = false;
                }
                let step = unit.cycle(arch, g_free, ls_in_stage_n, decoded);
                if let Some(group) = step.group {
                    issue.enter(group);
                } else if g_free {
                    issue.bubbles[0] = unit.starve_reason();
                }
                if step.invalidate_issue {
                    issue.invalidate(StallReason::BranchMiss);
                }
                step.ls_contention
            }
        }
    }

    /// A serializing instruction completed at stage o.
    #[inline]
    pub(crate) fn serializing_completed(&mut self) {
        if let FetchModel::Ideal(ideal) = self {
            ideal.restart_reason(StallReason::Channel);
        }
    }

    /// The loop head the ideal fetch passed in the last cycle (the target of a backward
    /// taken branch it fetched), once.
    #[inline(always)]
    pub(crate) fn take_loop_head(&mut self) -> Option<u32> {
        match self {
            FetchModel::Ideal(ideal) => ideal.loop_head.take(),
            FetchModel::Real { .. } => None,
        }
    }

    /// Whether issue is held (mispredict sequence).
    #[inline(always)]
    pub(crate) fn blocks_issue(&self) -> bool {
        match self {
            FetchModel::Ideal(_) => false,
            FetchModel::Real { unit, .. } => unit.blocks_issue(),
        }
    }
}

/// A placeholder record: no instruction lives at its address (the local store is 256 KiB)
/// and 0 is no sequence number.
pub(crate) const EMPTY_INFLIGHT: InFlight = InFlight {
    pc: u32::MAX,
    instruction: NOP_INSTRUCTION,
    predicted_next: 0,
    class: IClass::Nop,
    target: NO_REGISTER,
    sources: [NO_REGISTER; 3],
    registers: [0; 2],
    serializing: false,
    illegal: false,
    seq: 0,
};

/// No pending instructions.
const NO_PENDING: (u64, u64) = (1, 0);

/// The ideal fetch model (see the module documentation).
#[derive(Clone)]
pub struct IdealFetch {
    shadow: ArchState,
    /// Decoding (operand lists, class) is done once per address and word, not per fetch.
    decoded: DecodeCache,
    /// The shadow must be copied from the architectural state before fetching.
    stale: bool,
    /// Fetch waits for a serializing instruction to complete.
    waiting: bool,
    starve_reason: StallReason,
    /// Instructions the shadow ran ahead into the window during a fast-forward that fetch
    /// has not put into stage g yet (sequence numbers `.0 ..= .1`; empty when `.0 > .1`).
    pending: (u64, u64),
    /// The target of a backward taken branch fetched in the last cycle (a loop head).
    loop_head: Option<u32>,
}

impl IdealFetch {
    const fn new(id: u8) -> Self {
        IdealFetch {
            shadow: ArchState::new(id),
            decoded: DecodeCache::new(),
            stale: true,
            waiting: false,
            starve_reason: StallReason::Initialisation,
            pending: NO_PENDING,
            loop_head: None,
        }
    }

    fn restart(&mut self) {
        self.restart_reason(StallReason::Initialisation);
    }

    fn restart_reason(&mut self, reason: StallReason) {
        self.stale = true;
        self.waiting = false;
        self.starve_reason = reason;
        self.pending = NO_PENDING;
        self.loop_head = None;
    }

    /// Puts the next fetch group into issue stage g; `false` when there is none (fetch
    /// waits for a serializing instruction or the SPU stopped).
    #[inline(never)]
    fn fetch_group(&mut self, arch: &ArchState, issue: &mut IssuePipes) -> bool {
        if self.waiting {
            return false;
        }
        if !self.has_pending() {
            if self.stale {
                self.shadow.clone_from(arch);
                self.stale = false;
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
                (seq, record.pc, record.predicted_next, record.serializing)
            } else {
                let pc = self.shadow.pc();
                let fetched = self.fetch_one(pc, issue);
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

    #[inline(always)]
    fn has_pending(&self) -> bool {
        self.pending.0 <= self.pending.1
    }

    /// Fast-forward: runs `entry`, the instruction expected at the shadow's PC, ahead into
    /// the window without putting it into a stage (it is pending until fetch places it,
    /// unless [`forget_pending`](Self::forget_pending) says its repetition was skipped).
    /// Returns whether it was that instruction, was followed by `next`, had its effect
    /// recorded and stored nothing into `code` (the quadwords from `.0` to `.1` holding the
    /// repetition's instructions).
    #[inline(always)]
    pub(super) fn run_ahead_pending(
        &mut self,
        issue: &mut IssuePipes,
        entry: &Decoded,
        next: u32,
        code: (u32, u32),
    ) -> bool {
        let pc = self.shadow.pc();
        if pc != entry.pc() {
            return false;
        }
        let fetched = run_entry(&mut self.shadow, &mut self.loop_head, pc, entry, issue);
        let seq = issue.last_seq();
        if self.has_pending() {
            self.pending.1 = seq;
        } else {
            self.pending = (seq, seq);
        }
        fetched.next == next
            && fetched.recorded
            && !fetched.serializing
            && !fetched
                .stored
                .is_some_and(|address| (code.0..=code.1).contains(&address))
    }

    /// Fast-forward: the pending instructions belong to a skipped repetition (the timing
    /// state moved past them), so fetch does not place them.
    #[inline(always)]
    pub(super) fn forget_pending(&mut self) {
        self.pending = NO_PENDING;
        self.loop_head = None;
    }

    /// Whether fetch runs with nothing pending, not waiting, not stale (the state a
    /// fast-forward starts from), and the shadow's PC and starve reason.
    pub(super) fn steady(&self) -> Option<(u32, StallReason)> {
        (!self.has_pending() && !self.waiting && !self.stale)
            .then(|| (self.shadow.pc(), self.starve_reason))
    }

    /// Fetches the instruction at `pc` into the window (the caller places it into a stage)
    /// and runs it in the shadow (unless it serializes).
    #[inline(always)]
    fn fetch_one(&mut self, pc: u32, issue: &mut IssuePipes) -> Fetched {
        let word = self.shadow.local_store().load_word(pc);
        let entry = self.decoded.get(pc, word);
        run_entry(&mut self.shadow, &mut self.loop_head, pc, entry, issue)
    }

    /// Fast-forward: the decoded form of the instruction at `pc` if the shadow's local store
    /// still holds `word` there (a repetition's instructions are checked once, then guarded
    /// by watching the shadow's stores).
    pub(super) fn decoded_at(&mut self, pc: u32, word: u32) -> Option<Decoded> {
        (self.shadow.local_store().load_word(pc) == word).then(|| *self.decoded.get(pc, word))
    }
}

/// What fetching one instruction did.
#[derive(Clone, Copy)]
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
    shadow: &mut ArchState,
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
    let ahead = shadow.run_ahead(&record.instruction);
    let (seq, target) = (record.seq, record.target);
    let (flags, address) = match ahead {
        RunAhead::Unusual => {
            // A checkpoint completes with the SPU running; the others (stop, halt, a blocked
            // channel access, a fault) stop fetch.
            let next = shadow.pc();
            record.predicted_next = next;
            record.serializing = !matches!(shadow.status(), Status::Running);
            return Fetched {
                next,
                serializing: record.serializing,
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
        (flags, shadow.local_store().load_quadword(address))
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
