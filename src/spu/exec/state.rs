//! The architectural state of one SPU.

use core::sync::atomic::{AtomicU8, Ordering};

use super::channels::Channels;
use super::code::{CodeStore, DecodedCode};
use super::flow::Flow;
use super::local_store::{ImageTooLarge, LS_ADDRESS_MASK, LS_SIZE, LocalStore};
use super::outcome::Status;
use super::profile::ProfileCounters;
use super::quadword::Quadword;

/// Number of general-purpose registers.
pub const REGISTER_COUNT: usize = 128;
/// The stack pointer register (`$sp`).
pub const STACK_POINTER: u8 = 1;
/// The link register (`$lr`).
pub const LINK_REGISTER: u8 = 0;
/// Initial stack pointer: the top of the local store minus one quadword, as the SPU ABI does.
pub const INITIAL_STACK_POINTER: u32 = LS_SIZE - 16;

/// The SPU number, settable through a shared reference: an [`Arena`](crate::spu::arena::Arena)
/// is all-zero bits (so a static one lands in `.bss`), and it gives each SPU its number when
/// it hands the SPU out, mutably or not.
#[derive(Debug)]
pub(super) struct SpuNumber(AtomicU8);

impl SpuNumber {
    const fn new(id: u8) -> Self {
        SpuNumber(AtomicU8::new(id))
    }

    pub(super) fn get(&self) -> u8 {
        self.0.load(Ordering::Relaxed)
    }

    fn set(&self, id: u8) {
        self.0.store(id, Ordering::Relaxed);
    }
}

impl Clone for SpuNumber {
    fn clone(&self) -> Self {
        SpuNumber::new(self.get())
    }
}

/// The architectural state of one SPU: registers, local store, channels, execution status
/// and the counters that retirement advances.
///
/// The value is large (about 774 KiB: the local store, and its code decoded once, 512 KiB;
/// lean configuration: 270 KiB, see `docs/spu-footprint.md`) and never allocates; build it
/// with the `const fn` [`SpuState::new`]
/// inside a `static` or another caller-owned place. A new state is all-zero bits but for the
/// SPU number, so a static one costs no bytes in a firmware image (it lands in `.bss`).
///
/// ```
/// use pmprobe::spu::exec::{INITIAL_STACK_POINTER, Quadword, SpuState};
/// static SPU: std::sync::Mutex<SpuState> = std::sync::Mutex::new(SpuState::new(0));
/// let mut spu = SPU.lock().unwrap();
/// assert_eq!(spu.register(1), Quadword::ZERO); // power-on
/// spu.load_program_words(&[0x4080_0283], 0).unwrap(); // il $3,5
/// assert_eq!(spu.register(1).preferred_word(), INITIAL_STACK_POINTER);
/// assert_eq!(spu.pc(), 0);
/// ```
///
/// `C` is where its code is kept decoded: [`DecodedCode`], the whole local store's, for
/// every state a user builds; the pipeline's run-ahead copy of a state keeps none.
pub struct SpuState<C = DecodedCode> {
    pub(super) id: SpuNumber,
    pub(super) pc: u32,
    pub(super) registers: [Quadword; REGISTER_COUNT],
    pub(super) local_store: LocalStore,
    pub(super) channels: Channels,
    pub(super) fpscr: Quadword,
    pub(super) interrupts_enabled: bool,
    pub(super) status: Status,
    pub(super) retired: u64,
    pub(super) retired_non_nop: u64,
    pub(super) cycles: u64,
    pub(super) profile: ProfileCounters,
    /// The local store's code, decoded once (`code.rs`); not architectural state (it
    /// follows the local store).
    pub(super) code: C,
    /// The run loops' handlers (`instructions/handlers.rs`) leave here the quadword address
    /// of the last load or store, and the flow of an instruction that was not ordinary.
    pub(super) access: u32,
    pub(super) unusual: Flow,
    /// NOP-class instructions the run loops' handlers retired and the loop has not counted.
    pub(super) nops: u64,
}

impl<C: CodeStore> Clone for SpuState<C> {
    fn clone(&self) -> Self {
        SpuState {
            id: self.id.clone(),
            pc: self.pc,
            registers: self.registers,
            local_store: self.local_store.clone(),
            channels: self.channels,
            fpscr: self.fpscr,
            interrupts_enabled: self.interrupts_enabled,
            status: self.status,
            retired: self.retired,
            retired_non_nop: self.retired_non_nop,
            cycles: self.cycles,
            profile: self.profile,
            code: self.code.clone(),
            access: self.access,
            unusual: self.unusual,
            nops: self.nops,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.copy_state_from(source);
    }
}

impl<C: CodeStore> SpuState<C> {
    /// Becomes a copy of `source` but for the decoded code (which the copied local store
    /// makes forget everything). Field by field, in place: a whole-value clone would build the
    /// whole state on the stack first (and every caller of ideal fetch's resync would pay the
    /// stack probes of that frame on every call).
    pub(crate) fn copy_state_from<D>(&mut self, source: &SpuState<D>) {
        let SpuState {
            id,
            pc,
            registers,
            local_store,
            channels,
            fpscr,
            interrupts_enabled,
            status,
            retired,
            retired_non_nop,
            cycles,
            profile,
            // The ops stay: copying the local store makes them forget everything.
            code: _,
            access: _,
            unusual: _,
            nops: _,
        } = source;
        self.id.set(id.get());
        self.pc = *pc;
        self.registers = *registers;
        self.local_store.copy_from(local_store);
        self.channels = *channels;
        self.fpscr = *fpscr;
        self.interrupts_enabled = *interrupts_enabled;
        self.status = *status;
        self.retired = *retired;
        self.retired_non_nop = *retired_non_nop;
        self.cycles = *cycles;
        self.profile = *profile;
    }
}

impl<C> core::fmt::Debug for SpuState<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SpuState")
            .field("id", &self.id.get())
            .field("pc", &self.pc)
            .field("status", &self.status)
            .field("retired", &self.retired)
            .finish_non_exhaustive()
    }
}

const fn initial_registers() -> [Quadword; REGISTER_COUNT] {
    let mut registers = [Quadword::ZERO; REGISTER_COUNT];
    registers[STACK_POINTER as usize] = Quadword::from_preferred_word(INITIAL_STACK_POINTER);
    registers
}

impl SpuState {
    /// SPU number `id` at power-on: PC 0, every register zero, empty local store and
    /// mailboxes, interrupts disabled, counters zero. Loading a program
    /// ([`load_program`](Self::load_program), [`reset`](Self::reset)) sets up what the SPU ABI
    /// gives a program at its start (the stack pointer).
    pub const fn new(id: u8) -> Self {
        Self::with_code(id, DecodedCode::new())
    }
}

impl<C: CodeStore> SpuState<C> {
    /// [`new`](SpuState::new) keeping its decoded code in `code`.
    pub(crate) const fn with_code(id: u8, code: C) -> Self {
        SpuState {
            id: SpuNumber::new(id),
            pc: 0,
            registers: [Quadword::ZERO; REGISTER_COUNT],
            local_store: LocalStore::new(),
            channels: Channels::new(),
            fpscr: Quadword::ZERO,
            interrupts_enabled: false,
            status: Status::Running,
            retired: 0,
            retired_non_nop: 0,
            cycles: 0,
            profile: ProfileCounters::new(),
            code,
            access: 0,
            unusual: Flow::Next,
            nops: 0,
        }
    }

    /// Prepares the SPU to start a program at `entry`, as a loader does: PC at `entry`,
    /// registers zero except `$1` = [`INITIAL_STACK_POINTER`] (the SPU ABI's stack), empty
    /// channels, running, counters zero; the local store is kept (so a loaded image survives).
    pub fn reset(&mut self, entry: u32) {
        self.pc = entry & LS_ADDRESS_MASK & !3;
        self.registers = initial_registers();
        self.channels.reset();
        self.fpscr = Quadword::ZERO;
        self.interrupts_enabled = false;
        self.status = Status::Running;
        self.retired = 0;
        self.retired_non_nop = 0;
        self.cycles = 0;
        self.profile = ProfileCounters::new();
    }

    /// Copies a program image to LS address 0 and resets with the PC at `entry` (0, or the
    /// address of `_start`).
    pub fn load_program(&mut self, image: &[u8], entry: u32) -> Result<(), ImageTooLarge> {
        self.local_store.load_image(0, image)?;
        self.reset(entry);
        Ok(())
    }

    /// Like [`load_program`](Self::load_program) for an image given as big-endian words.
    pub fn load_program_words(&mut self, words: &[u32], entry: u32) -> Result<(), ImageTooLarge> {
        self.local_store.load_words(0, words)?;
        self.reset(entry);
        Ok(())
    }

    /// The SPU number given to [`new`](Self::new) (or by the arena that holds the SPU).
    pub fn id(&self) -> u8 {
        self.id.get()
    }

    /// Gives the SPU its number (an arena does, when it hands the SPU out).
    pub(crate) fn assign_id(&self, id: u8) {
        self.id.set(id);
    }

    /// The program counter (the address of the next instruction).
    pub fn pc(&self) -> u32 {
        self.pc
    }

    /// Sets the program counter (wrapped into the LS, word aligned).
    pub fn set_pc(&mut self, pc: u32) {
        self.pc = pc & LS_ADDRESS_MASK & !3;
    }

    /// Writes the SPU's next-program-counter register as a PPE does before it starts the SPU:
    /// bit 0 enables interrupts, the rest is the start address (word aligned, wrapped into the
    /// local store; bit 1 is ignored, as the CBEA's NPC has no such bit).
    pub fn set_npc(&mut self, npc: u32) {
        self.set_pc(npc);
        self.interrupts_enabled = npc & 1 != 0;
    }

    /// Register `$index` (the index is taken modulo 128).
    #[inline]
    pub fn register(&self, index: u8) -> Quadword {
        self.registers[usize::from(index & 0x7f)]
    }

    /// Sets register `$index` (the index is taken modulo 128).
    #[inline]
    pub fn set_register(&mut self, index: u8, value: Quadword) {
        self.registers[usize::from(index & 0x7f)] = value;
    }

    /// All registers, `$0` first.
    pub fn registers(&self) -> &[Quadword; REGISTER_COUNT] {
        &self.registers
    }

    /// The local store.
    pub fn local_store(&self) -> &LocalStore {
        &self.local_store
    }

    /// The local store, mutable (to load data or inspect results).
    pub fn local_store_mut(&mut self) -> &mut LocalStore {
        &mut self.local_store
    }

    /// The channel interface (mailboxes).
    pub fn channels(&self) -> &Channels {
        &self.channels
    }

    /// The channel interface, mutable: the host pushes `SPU_RdInMbox` entries and pops
    /// `SPU_WrOutMbox` entries here.
    pub fn channels_mut(&mut self) -> &mut Channels {
        &mut self.channels
    }

    /// The FPSCR as last written by `fscrwr` (this model records no status flags).
    pub fn fpscr(&self) -> Quadword {
        self.fpscr
    }

    /// Interrupt-enable state, changed by the E/D feature bits of indirect branches.
    pub fn interrupts_enabled(&self) -> bool {
        self.interrupts_enabled
    }

    /// Current execution status.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Lets a stopped SPU continue at its PC (after a `stop`, the next instruction).
    pub fn resume(&mut self) {
        self.status = Status::Running;
    }

    /// Instructions retired since the last reset.
    pub fn instructions_retired(&self) -> u64 {
        self.retired
    }

    /// Retired instructions that are not NOP-class (see [`ProfileCounters`](super::ProfileCounters)).
    pub fn non_nop_instructions_retired(&self) -> u64 {
        self.retired_non_nop
    }

    /// The cycle clock: retired instructions in instruction mode, or the last cycle given
    /// to [`execute_at_cycle`](Self::execute_at_cycle).
    pub fn cycle_count(&self) -> u64 {
        self.cycles
    }

    /// The profiling counters driven by `prof_cp0/30/31`.
    pub fn profile_counters(&self) -> ProfileCounters {
        self.profile
    }
}
