//! One SPU as the simulator has it: architectural state, a mode, and the pipeline model.
//!
//! [`SpuUnit`] switches at run time between instruction mode (functional, one cycle per
//! instruction) and pipeline mode (the cycle model), like the simulator's
//! `mysim spu N set model pipeline`. The architectural state is shared by both modes and is
//! exact at every switch: the pipeline is flushed, and since instructions take effect in
//! order at stage o, every instruction before the PC has completed and none after it.

use core::fmt;

use super::exec::{
    BATCH_RECORDS_BYTES, BatchEnd, BatchRecords, DECODED_CODE_BYTES, ImageTooLarge, LocalStore,
    MailboxFull, SpuState, Status,
};
use super::main_memory::{SharedMemory, SignalRegister};
use super::pipeline::{
    Config, FetchKind, ModelError, Pipeline, RunEnd, RunOutcome, Statistics, part_bytes,
};
use super::probes::{ChannelEvent, SpuObserver, StallReason};

/// Execution mode of an SPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Mode {
    /// The cycle-level pipeline model (first: it is a new unit's mode, and a reset unit is
    /// all-zero bits).
    Pipeline,
    /// Functional: one instruction per cycle, no timing.
    Instruction,
}

impl Mode {
    /// `"instruction"` or `"pipeline"` (the simulator's `set model` words).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "instruction" => Some(Self::Instruction),
            "pipeline" => Some(Self::Pipeline),
            _ => None,
        }
    }
}

/// A writer that discards everything (for runs whose `prof_cp` lines are not wanted).
#[derive(Clone, Copy, Debug, Default)]
pub struct Discard;

impl fmt::Write for Discard {
    fn write_str(&mut self, _: &str) -> fmt::Result {
        Ok(())
    }
}

/// One SPU: architectural state + mode + pipeline (about 600 KiB: two local stores, the
/// architectural one and the ideal fetch model's run-ahead copy, plus the pipeline's decode
/// caches, instruction window and fast-forward state). Build it in a `static`
/// (see [`arena`](super::arena)) or on the heap of a hosted program.
#[derive(Clone)]
pub struct SpuUnit {
    arch: SpuState,
    mode: Mode,
    pipeline: Pipeline,
    /// Instruction mode's batch of completed instructions for observers.
    batch: BatchRecords,
}

impl SpuUnit {
    /// SPU number `id`, reset, in pipeline mode with the `cell` configuration and ideal fetch.
    pub const fn new(id: u8) -> Self {
        SpuUnit {
            arch: SpuState::new(id),
            mode: Mode::Pipeline,
            pipeline: Pipeline::new(),
            batch: BatchRecords::new(),
        }
    }

    /// The SPU number.
    pub fn id(&self) -> u8 {
        self.arch.id()
    }

    /// Gives the SPU its number (its arena does, when it hands the SPU out).
    pub(crate) fn assign_id(&self, id: u8) {
        self.arch.assign_id(id);
    }

    /// The architectural state.
    pub fn arch(&self) -> &SpuState {
        &self.arch
    }

    /// The architectural state, to change it (load data, set registers, service mailboxes).
    /// The pipeline is flushed, so the change is seen by every instruction not yet completed.
    pub fn arch_mut(&mut self) -> &mut SpuState {
        self.pipeline.flush();
        &mut self.arch
    }

    /// The architectural state for a host that answers a channel the SPU waits on (fills the
    /// inbound mailbox, drains an outbound one): without a pipeline flush, since a channel
    /// instruction only runs at stage o, on the architectural state, and the waiting one is
    /// retried there. Anything else the host changes needs [`arch_mut`](Self::arch_mut).
    pub fn arch_for_channels(&mut self) -> &mut SpuState {
        &mut self.arch
    }

    /// Attaches the main memory this SPU's DMA reaches (kept across resets).
    pub fn attach_main_memory(&mut self, memory: &'static dyn SharedMemory) {
        self.arch.attach_main_memory(memory);
    }

    /// The main memory this SPU reaches (an empty one if none is attached).
    pub fn main_memory(&self) -> &dyn SharedMemory {
        self.arch.main_memory()
    }

    /// The host writes the inbound mailbox (libspe2's `spe_in_mbox_write`); an error when its
    /// four entries are full. Channel instructions only run at stage o, on the architectural
    /// state, so the pipeline needs no flush.
    pub fn write_inbound_mailbox(&mut self, value: u32) -> Result<(), MailboxFull> {
        self.arch.channels_mut().write_inbound_mailbox(value)
    }

    /// The host reads the outbound mailbox (`spe_out_mbox_read`).
    pub fn read_outbound_mailbox(&mut self) -> Option<u32> {
        self.arch.channels_mut().read_outbound_mailbox()
    }

    /// The host reads the outbound interrupt mailbox (`spe_out_intr_mbox_read`).
    pub fn read_outbound_interrupt_mailbox(&mut self) -> Option<u32> {
        self.arch.channels_mut().read_outbound_interrupt_mailbox()
    }

    /// The host writes one of this SPU's signal-notification registers
    /// (`spe_signal_write`), in the register's mode.
    pub fn write_signal(&self, register: SignalRegister, value: u32) {
        self.arch
            .main_memory()
            .write_signal(self.id(), register, value);
    }

    /// Loads a program image at LS address 0 and resets with the PC at `entry`.
    pub fn load_program(&mut self, image: &[u8], entry: u32) -> Result<(), ImageTooLarge> {
        self.arch_mut().load_program(image, entry)
    }

    /// Like [`load_program`](Self::load_program) for big-endian words.
    pub fn load_program_words(&mut self, words: &[u32], entry: u32) -> Result<(), ImageTooLarge> {
        self.arch_mut().load_program_words(words, entry)
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Switches mode, keeping the architectural state (the pipeline is flushed).
    pub fn set_mode(&mut self, mode: Mode) {
        self.pipeline.flush();
        self.mode = mode;
    }

    /// The pipeline (configuration, statistics, stages).
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// Replaces the pipeline configuration (flushes the pipeline).
    pub fn set_config(&mut self, config: Config) {
        self.pipeline.set_config(config);
    }

    /// Selects the fetch model (the pipeline is flushed).
    pub fn set_fetch(&mut self, kind: FetchKind) -> Result<(), ModelError> {
        self.pipeline.set_fetch(kind)
    }

    /// Turns the pipeline's fast-forward over repeating loop iterations on (the default) or
    /// off; the results are the same either way (see [`Pipeline::set_fast_forward`]). The
    /// lean configuration has no fast-forward, and this has no effect there.
    pub fn set_fast_forward(&mut self, enabled: bool) {
        self.pipeline.set_fast_forward(enabled);
    }

    /// Turns the pipeline's skipping of stalled cycles on (the default) or off; the results
    /// are the same either way (see [`Pipeline::set_stall_skip`]).
    pub fn set_stall_skip(&mut self, enabled: bool) {
        self.pipeline.set_stall_skip(enabled);
    }

    /// The pipeline statistics.
    pub fn stats(&self) -> &Statistics {
        self.pipeline.stats()
    }

    /// `stats reset`.
    pub fn reset_stats(&mut self) {
        self.pipeline.reset_stats();
    }

    /// `stats print`.
    pub fn print_stats(&self, out: &mut impl fmt::Write) -> fmt::Result {
        self.pipeline.print_stats(&self.arch, out)
    }

    /// Runs up to `max_cycles` cycles (in instruction mode: instructions), notifying
    /// `observer` and writing `prof_cp` lines to `output`.
    pub fn run<O: SpuObserver, W: fmt::Write>(
        &mut self,
        max_cycles: u64,
        observer: &O,
        output: &mut W,
    ) -> Result<RunOutcome, ModelError> {
        match self.mode {
            Mode::Pipeline => self
                .pipeline
                .run(&mut self.arch, max_cycles, observer, output),
            Mode::Instruction => run_functional(
                &mut self.arch,
                &mut self.batch,
                max_cycles,
                observer,
                output,
            ),
        }
    }
}

/// The bytes one SPU ([`SpuUnit`]) takes, by part: `size_of` of each.
/// `docs/spu-footprint.md` has the table and what each part is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// The 256 KiB local store.
    pub local_store: usize,
    /// Registers, channels, status and counters: the rest of the [`SpuState`] but its
    /// decoded code.
    pub architectural_state: usize,
    /// The local store's code decoded once, which both modes' interpreter runs from.
    pub decoded_code: usize,
    /// Instruction mode's batch of completed instructions, for observers.
    pub instruction_batch: usize,
    /// The pipeline's record of every instruction in flight.
    pub instruction_window: usize,
    /// The execution pipes' rows and the register scoreboard.
    pub execution_pipes: usize,
    /// The fetch model's decodes (per address and word).
    pub fetch_decode_cache: usize,
    /// Ideal fetch's run-ahead shadow of the architectural state.
    pub shadow: usize,
    /// The fast-forward's memory of a loop.
    pub fast_forward: usize,
    /// Everything else: issue stages, statistics, configuration, the fetch model's other
    /// state (the real fetch unit shares the shadow's storage), mode, alignment.
    pub other: usize,
    /// One `SpuUnit`.
    pub total: usize,
}

impl Footprint {
    /// The parts with their names as `docs/spu-footprint.md` lists them, `total` last.
    pub const fn rows(&self) -> [(&'static str, usize); 11] {
        [
            ("local store", self.local_store),
            ("architectural state", self.architectural_state),
            ("decoded code", self.decoded_code),
            ("instruction-mode batch", self.instruction_batch),
            ("instruction window", self.instruction_window),
            ("execution pipes", self.execution_pipes),
            ("fetch decode cache", self.fetch_decode_cache),
            ("shadow state", self.shadow),
            ("fast-forward state", self.fast_forward),
            ("other", self.other),
            ("total", self.total),
        ]
    }
}

impl SpuUnit {
    /// The bytes one SPU takes, by part.
    pub const fn footprint() -> Footprint {
        let local_store = size_of::<LocalStore>();
        let decoded_code = DECODED_CODE_BYTES;
        let architectural_state = size_of::<SpuState>() - local_store - decoded_code;
        let total = size_of::<SpuUnit>();
        let parts = local_store
            + architectural_state
            + decoded_code
            + BATCH_RECORDS_BYTES
            + part_bytes::WINDOW
            + part_bytes::EXEC_PIPES
            + part_bytes::FETCH_DECODE_CACHE
            + part_bytes::SHADOW
            + part_bytes::FAST_FORWARD;
        Footprint {
            local_store,
            architectural_state,
            decoded_code,
            instruction_batch: BATCH_RECORDS_BYTES,
            instruction_window: part_bytes::WINDOW,
            execution_pipes: part_bytes::EXEC_PIPES,
            fetch_decode_cache: part_bytes::FETCH_DECODE_CACHE,
            shadow: part_bytes::SHADOW,
            fast_forward: part_bytes::FAST_FORWARD,
            other: total.saturating_sub(parts),
            total,
        }
    }
}

/// Services the channels of `arch` if they need it (instruction mode: DMA completes now),
/// telling `observer` of each completed transfer; the run end a DMA error brings.
fn service_channels<O: SpuObserver>(arch: &mut SpuState, observer: &O) -> Option<RunEnd> {
    if !arch.channels_need_service() {
        return None;
    }
    let service = arch.service_channels(&mut |event| observer.dma(event));
    match arch.status() {
        Status::Stopped(reason) if service.fault.is_some() => Some(RunEnd::Stopped(reason)),
        _ => None,
    }
}

/// The SPU waits on a channel in instruction mode: the cycles it waits for the next channel
/// event (reported to `observer` as channel-wait stalls), `None` if only the host can end the
/// wait.
fn wait_on_channel<O: SpuObserver>(arch: &mut SpuState, budget: u64, observer: &O) -> Option<u64> {
    let waited = arch.wait_for_channel_event(budget)?;
    if waited == 0 && !arch.channels_need_service() {
        return None;
    }
    observer.stalled_cycles(StallReason::ChannelWait, waited);
    Some(waited)
}

/// Instruction mode: one instruction per cycle, with the same probe points.
fn run_functional<O: SpuObserver, W: fmt::Write>(
    arch: &mut SpuState,
    records: &mut BatchRecords,
    max_cycles: u64,
    observer: &O,
    output: &mut W,
) -> Result<RunOutcome, ModelError> {
    arch.mfc_mut().set_timed(false);
    let mut cycles = 0;
    let mut instructions = 0;
    let mut end = RunEnd::CycleLimit;
    let outcome = |end, cycles, instructions, arch: &SpuState| RunOutcome {
        end,
        cycles,
        instructions,
        pc: arch.pc(),
    };
    if let Status::Stopped(reason) = arch.status() {
        return Ok(outcome(RunEnd::Stopped(reason), cycles, instructions, arch));
    }
    // Nothing to notify: the run loop that builds no report for ordinary instructions, back
    // to the caller's loop after each checkpoint line (whose writer may attach a listener).
    while max_cycles > cycles && !observer.is_listening() {
        if let Some(end) = service_channels(arch, observer) {
            return Ok(outcome(end, cycles, instructions, arch));
        }
        let slice = arch.channel_slice(max_cycles - cycles);
        let (ran, checkpoint) = arch.run_to_checkpoint(slice);
        cycles += ran.cycles;
        instructions += ran.instructions;
        end = ran.end;
        if let Some(checkpoint) = checkpoint {
            writeln!(output, "{checkpoint}").map_err(|_| ModelError::Output)?;
        }
        match end {
            RunEnd::CycleLimit => {}
            RunEnd::Blocked { .. } => match wait_on_channel(arch, max_cycles - cycles, observer) {
                Some(waited) => {
                    cycles += waited;
                    end = RunEnd::CycleLimit;
                }
                None => return Ok(outcome(end, cycles, instructions, arch)),
            },
            RunEnd::Stopped(_) => return Ok(outcome(end, cycles, instructions, arch)),
        }
    }
    // Observers hear of the instructions in batches the interpreter ran just before (see
    // `SpuState::run_completed`).
    while cycles < max_cycles {
        if let Some(end) = service_channels(arch, observer) {
            return Ok(outcome(end, cycles, instructions, arch));
        }
        let budget = arch.channel_slice(max_cycles - cycles);
        let budget = usize::try_from(budget).unwrap_or(usize::MAX);
        let (counts, batch_end) = arch.run_completed(budget, records, observer.needs_records());
        let batch = arch.completed_batch(records, counts);
        if !batch.is_empty() {
            observer.completed(&batch);
        }
        // A batch holds at most COMPLETED_BATCH records.
        let completed = counts.written() as u64;
        cycles += completed;
        instructions += completed;
        let Some(BatchEnd {
            executed,
            instruction,
        }) = batch_end
        else {
            continue;
        };
        cycles += 1;
        observer.cycles(1);
        if executed.retired {
            instructions += 1;
            if let Some(instruction) = instruction {
                let cycle = arch.cycle_count();
                observer.retired(&instruction, &executed, cycle);
                // A batch ends at every channel instruction: the state is the one right after it.
                if let Some(event) = ChannelEvent::of(&instruction, &executed, cycle, arch) {
                    observer.channel(&event);
                }
            }
            if let Some(checkpoint) = executed.profile {
                writeln!(output, "{checkpoint}").map_err(|_| ModelError::Output)?;
            }
        }
        match executed.status {
            Status::Running => {}
            Status::Blocked { channel } => {
                end = RunEnd::Blocked { channel };
                match wait_on_channel(arch, max_cycles - cycles, observer) {
                    Some(waited) => {
                        cycles += waited;
                        end = RunEnd::CycleLimit;
                    }
                    None => break,
                }
            }
            Status::Stopped(reason) => {
                end = RunEnd::Stopped(reason);
                break;
            }
        }
    }
    Ok(outcome(end, cycles, instructions, arch))
}
