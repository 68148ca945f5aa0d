//! Checks of the `pipeline` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): arbitrary local-store images in pipeline mode, with every
//! available fetch model, under a random configuration, cycle by cycle, against instruction mode.
//!
//! Input layout: byte 0 = flags (bit 0: turn words into valid opcodes, so most of the image
//! decodes), byte 1 = number of configuration changes (low 3 bits), then two bytes per change
//! (key, value), then the image as big-endian words.
//!
//! After every cycle:
//! - the statistics identities hold (cycle categories sum to the cycle count, per-class
//!   dependency stalls sum to the dependency stalls) and the cycle count is the number of
//!   cycles simulated;
//! - instructions completed <= 2 x cycles;
//! - liveness: some instruction completes (or the SPU stops / waits on a channel) at least
//!   every 1000 cycles, with either fetch model;
//! - no instruction issued before its sources were released: an independent scoreboard, fed
//!   from the instructions that entered execution stage `jj` this cycle
//!   (`Pipeline::entered_jj(clock)`) and rebuilt from the rows after a mispredict (the
//!   squashed instructions drop out), with the configured depth of each class, says every
//!   source register's last in-flight writer was released (`issue cycle + depth <= now`).
//!   An instruction completes at stage o, after issue, so it also never retires earlier.
//!
//! The same run again with the pipeline's shortcuts on (the skipping of stalled cycles and
//! the fast-forward, under either fetch model), in longer runs, once with nothing listening and once
//! with a listener attached, must end with the same statistics, clock and architectural
//! state; the listener must have heard what the plain model told its own (cycles, completions,
//! mispredicts, issues and stalled cycles, counted and with their cycles and addresses summed).
//!
//! After the run, the architectural state (registers, PC, FPSCR, interrupt enable, local store,
//! instruction count and, if the SPU stopped, the stop reason) equals instruction mode's on the same image, driven by
//! the same host (mailboxes serviced, stops resumed a few times). Exception: with the real
//! fetch unit, a program that stores into code it executes is only checked cycle by cycle (the
//! unit fetches ahead, like the hardware, which needs a `sync` before modified code runs).

#[path = "pipeline_watch.rs"]
mod watch;

use std::cell::RefCell;
use std::collections::HashSet;

use pmprobe::spu::exec::{AccessKind, Quadword, SpuState, Status, StopReason};
use pmprobe::spu::isa::{IClass, OPCODES};
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::pipeline::{Config, MAX_DEPTH, MAX_STALL, MIN_DEPTH};
use pmprobe::spu::pipeline::{Pipeline, RunEnd};
use pmprobe::spu::probes::{NoProbes, SpuObserver};
use pmprobe::spu::unit::Discard;
use watch::{Mispredicts, Scoreboard};

/// Cycles simulated per fetch model.
const MAX_CYCLES: u64 = 3000;
/// Longest run of cycles without a completed instruction (or a stop / channel wait) that is
/// not a livelock: far above the longest legitimate gap (a mispredict, a 32-cycle configured
/// depth or issue stall, a refill).
const MAX_QUIET_CYCLES: u64 = 1000;
/// Stops (`stop`, halts) resumed before ending the run.
const MAX_RESUMES: u32 = 4;
/// Words of the image (16 KiB).
const MAX_WORDS: usize = 4096;
/// Every fetch model the pipeline knows.
const FETCH_KINDS: [FetchKind; 2] = [FetchKind::Ideal, FetchKind::Real];
const FEATURES: [&str; 3] = [
    "spu/feature/sp-dual",
    "spu/feature/dp-dual",
    "spu/feature/ls-line-contend-load-only",
];
const BOOLS: [&str; 6] = ["TRUE", "FALSE", "true", "false", "1", "0"];
/// A configuration built from valid keys and values (by their string form, as spusim's
/// `--config` applies them).
fn random_config(bytes: &[u8]) -> Config {
    let mut config = if bytes.first().is_some_and(|b| b & 2 != 0) {
        Config::celledp()
    } else {
        Config::cell()
    };
    for pair in bytes.get(2..).unwrap_or_default().chunks_exact(2) {
        let (key_byte, value_byte) = (usize::from(pair[0]), u32::from(pair[1]));
        let key_index = key_byte % (FEATURES.len() + 2 * IClass::ALL.len());
        let (key, value) = if key_index < FEATURES.len() {
            (
                FEATURES[key_index].to_string(),
                BOOLS[value_byte as usize % BOOLS.len()].to_string(),
            )
        } else {
            let index = key_index - FEATURES.len();
            let class = IClass::ALL[index / 2];
            if index.is_multiple_of(2) {
                let span = u32::from(MAX_DEPTH - MIN_DEPTH) + 1;
                let depth = u32::from(MIN_DEPTH) + value_byte % span;
                (
                    format!("spu/pipe/{}/depth", class.name()),
                    depth.to_string(),
                )
            } else {
                let stall = value_byte % (u32::from(MAX_STALL) + 1);
                (
                    format!("spu/pipe/{}/stall", class.name()),
                    stall.to_string(),
                )
            }
        };
        if let Err(error) = config.configure(&key, &value) {
            panic!("valid configuration {key}={value} refused: {error}");
        }
    }
    config
}

/// Words of the image; with `valid_opcodes`, each word's opcode field is replaced by one of
/// the opcode table's, so most words decode.
fn image_words(bytes: &[u8], valid_opcodes: bool) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .take(MAX_WORDS)
        .map(|b| {
            let word = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            if !valid_opcodes {
                return word;
            }
            let info = &OPCODES[usize::from(b[0]) % OPCODES.len()];
            let operand_mask = u32::MAX >> info.format.opcode_bits();
            info.base_word() | (word & operand_mask)
        })
        .collect()
}

/// The host side: feeds the inbound mailbox, drains the outbound ones.
struct Host {
    next_mail: u32,
}

impl Host {
    fn service(&mut self, spu: &mut SpuState) {
        let channels = spu.channels_mut();
        let _ = channels.inbound.push(self.next_mail);
        self.next_mail = self.next_mail.wrapping_add(1);
        let _ = channels.outbound.pop();
        let _ = channels.outbound_interrupt.pop();
    }
}

/// The big values (an SPU is about 258 KiB), allocated once: a fresh allocation per input
/// costs more in page faults than the whole simulation.
struct Buffers {
    pipelined: Box<SpuState>,
    functional: Box<SpuState>,
    pipeline: Box<Pipeline>,
    fast: Box<SpuState>,
    fast_pipeline: Box<Pipeline>,
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers {
        pipelined: Box::new(SpuState::new(0)),
        functional: Box::new(SpuState::new(0)),
        pipeline: Box::new(Pipeline::new()),
        fast: Box::new(SpuState::new(0)),
        fast_pipeline: Box::new(Pipeline::new()),
    });
}

/// Makes `spu` a reset SPU with the image loaded (and a few registers seeded from it).
fn fresh_spu(spu: &mut SpuState, words: &[u32]) -> Option<()> {
    *spu = SpuState::new(0);
    spu.load_program_words(words, 0).ok()?;
    // Seed registers from the image so addresses and counts vary.
    for (index, chunk) in words.chunks(4).take(16).enumerate() {
        let mut lanes = [0u32; 4];
        lanes[..chunk.len()].copy_from_slice(chunk);
        spu.set_register(2 + index as u8, Quadword::from_words(lanes));
    }
    Some(())
}

/// How the pipeline run ended: the stop reason if the SPU stopped for good.
struct PipelineRun {
    stopped: Option<StopReason>,
    /// What the observer heard (`Mispredicts::heard`).
    heard: [u64; 7],
    /// Cycles simulated.
    simulated: u64,
}

fn run_pipeline(
    arch: &mut SpuState,
    pipeline: &mut Pipeline,
    words: &[u32],
    config: Config,
    fetch: FetchKind,
) -> Option<PipelineRun> {
    fresh_spu(arch, words)?;
    *pipeline = Pipeline::new();
    pipeline.set_config(config);
    if let Err(error) = pipeline.set_fetch(fetch) {
        panic!("set_fetch({fetch:?}): {error}");
    }
    // The reference simulates every cycle one by one (a one-cycle run could still skip a
    // one-cycle repetition).
    pipeline.set_fast_forward(false);
    pipeline.set_stall_skip(false);
    let mut host = Host { next_mail: 0 };
    let mut scoreboard = Scoreboard::new();
    let mispredicts = Mispredicts::default();
    let mut resumes = 0;
    let mut stopped = None;
    let mut simulated = 0;
    let (mut last_count, mut last_progress) = (0, 0);
    for cycle in 1..=MAX_CYCLES {
        let outcome = match pipeline.run(arch, 1, &mispredicts, &mut Discard) {
            Ok(outcome) => outcome,
            Err(error) => panic!("cycle {cycle}, {fetch:?} fetch: model error: {error}"),
        };
        simulated += outcome.cycles;
        let stats = pipeline.stats();
        if stats.instructions != last_count || !matches!(outcome.end, RunEnd::CycleLimit) {
            last_count = stats.instructions;
            last_progress = cycle;
        }
        if cycle - last_progress > MAX_QUIET_CYCLES {
            panic!(
                "{fetch:?} fetch: no instruction completed in {MAX_QUIET_CYCLES} cycles \
                 (livelock) at pc {:#x}, cycle {cycle}",
                arch.pc()
            );
        }
        assert_eq!(stats.cycles, simulated, "cycle count");
        if let Err(error) = stats.check_identities() {
            panic!("cycle {cycle}: {error} ({stats:?})");
        }
        assert!(
            stats.instructions <= 2 * stats.cycles,
            "cycle {cycle}: {} instructions in {} cycles",
            stats.instructions,
            stats.cycles
        );
        match outcome.end {
            RunEnd::CycleLimit => {
                if mispredicts.this_cycle.take() {
                    scoreboard.rebuild(pipeline, pipeline.clock());
                }
                scoreboard.issue(pipeline, pipeline.clock(), fetch);
            }
            // The pipeline was flushed: nothing is in flight, every register is released.
            RunEnd::Blocked { .. } => {
                scoreboard = Scoreboard::new();
                host.service(arch);
            }
            RunEnd::Stopped(reason) => {
                scoreboard = Scoreboard::new();
                if matches!(reason, StopReason::Fault(_)) || resumes == MAX_RESUMES {
                    stopped = Some(reason);
                    break;
                }
                resumes += 1;
                arch.resume();
            }
        }
    }
    Some(PipelineRun {
        stopped,
        heard: mispredicts.heard.get(),
        simulated,
    })
}

/// Run lengths for [`run_with_shortcuts`] (cycled).
const SLICES: [u64; 6] = [1, 7, 64, 500, 3, 2000];

/// The reference run again with the shortcuts on (stall skip; fast-forward, which applies
/// with nothing listening), in longer runs, with the same host actions, for
/// `cycles` cycles (or until the SPU stopped for good); `observer` listens or not.
#[allow(clippy::too_many_arguments)]
fn run_with_shortcuts<O: SpuObserver>(
    arch: &mut SpuState,
    pipeline: &mut Pipeline,
    words: &[u32],
    config: Config,
    fetch: FetchKind,
    cycles: u64,
    observer: &O,
) {
    fresh_spu(arch, words).expect("the image loaded once already");
    *pipeline = Pipeline::new();
    pipeline.set_config(config);
    pipeline
        .set_fetch(fetch)
        .expect("the fetch model of the reference");
    let mut host = Host { next_mail: 0 };
    let (mut simulated, mut resumes) = (0, 0);
    for &slice in SLICES.iter().cycle().take(4 * MAX_CYCLES as usize) {
        if simulated >= cycles {
            break;
        }
        let outcome =
            match pipeline.run(arch, slice.min(cycles - simulated), observer, &mut Discard) {
                Ok(outcome) => outcome,
                Err(error) => panic!("shortcuts, cycle {simulated}: model error: {error}"),
            };
        simulated += outcome.cycles;
        match outcome.end {
            RunEnd::CycleLimit => {}
            RunEnd::Blocked { .. } => host.service(arch),
            RunEnd::Stopped(reason) => {
                if matches!(reason, StopReason::Fault(_)) || resumes == MAX_RESUMES {
                    break;
                }
                resumes += 1;
                arch.resume();
            }
        }
    }
}

/// Instruction mode, driven by the same host (same mailbox service, same resume policy), up
/// to `target` instructions (the pipeline's count) and, when the pipeline run ended with the
/// SPU stopped for good, on to its own final stop.
///
/// The real fetch unit, like the hardware, fetches ahead of execution and needs a `sync`
/// before modified code is fetched again, so for a program that stores into code it executes
/// it may legitimately run the old instructions where instruction mode runs the new ones (and
/// stop where instruction mode never does): the result says whether that happened.
fn run_instruction_mode(
    spu: &mut SpuState,
    words: &[u32],
    target: u64,
    run: &PipelineRun,
) -> FunctionalRun {
    fresh_spu(spu, words).expect("the image loaded once");
    let mut written = HashSet::new();
    let mut executed_code = HashSet::new();
    let mut host = Host { next_mail: 0 };
    let mut resumes = 0;
    let mut steps = 0u64;
    loop {
        if spu.instructions_retired() >= target && run.stopped.is_none() {
            break;
        }
        steps += 1;
        if steps > 4 * target + 64 {
            return FunctionalRun {
                self_modifying: !written.is_disjoint(&executed_code),
                reached: false,
            };
        }
        let executed = spu.step();
        executed_code.insert(executed.pc >> 4);
        if let Some(access) = executed.access
            && access.kind == AccessKind::Write
        {
            written.insert(access.address >> 4);
        }
        match executed.status {
            Status::Running => {}
            Status::Blocked { .. } => host.service(spu),
            Status::Stopped(StopReason::Fault(_)) => break,
            Status::Stopped(_) => {
                if resumes == MAX_RESUMES {
                    break;
                }
                resumes += 1;
                spu.resume();
            }
        }
    }
    FunctionalRun {
        self_modifying: !written.is_disjoint(&executed_code),
        reached: true,
    }
}

/// How instruction mode's run of the image went.
struct FunctionalRun {
    /// The program stored into a quadword it also executed.
    self_modifying: bool,
    /// Instruction mode reached the pipeline's instruction count (and its stop, if the
    /// pipeline run ended stopped) within a generous step budget.
    reached: bool,
}

fn compare(pipelined: &SpuState, functional: &SpuState, fetch: FetchKind) {
    compare_states(
        pipelined,
        functional,
        &format!("{fetch:?} fetch"),
        "instruction mode",
    );
}

/// Asserts that `first` and `second` hold the same architectural state.
fn compare_states(pipelined: &SpuState, functional: &SpuState, label: &str, other: &str) {
    let what = |item: &str| format!("{label}: {item} differs from {other}");
    assert_eq!(
        pipelined.instructions_retired(),
        functional.instructions_retired(),
        "{}",
        what("instruction count")
    );
    assert_eq!(pipelined.pc(), functional.pc(), "{}", what("pc"));
    // State besides registers and LS: stage o replays what ideal fetch's shadow recorded
    // for most instructions, and must leave these to the interpreter.
    assert_eq!(pipelined.fpscr(), functional.fpscr(), "{}", what("FPSCR"));
    assert_eq!(
        pipelined.interrupts_enabled(),
        functional.interrupts_enabled(),
        "{}",
        what("interrupt enable")
    );
    for (index, (a, b)) in pipelined
        .registers()
        .iter()
        .zip(functional.registers())
        .enumerate()
    {
        assert_eq!(a, b, "{}", what(&format!("${index}")));
    }
    for address in (0..pmprobe::spu::exec::LS_SIZE).step_by(16) {
        let (a, b) = (
            pipelined.local_store().load_quadword(address),
            functional.local_store().load_quadword(address),
        );
        assert_eq!(a, b, "{}", what(&format!("LS quadword {address:#x}")));
    }
}

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let flags = data.first().copied().unwrap_or(0);
    let changes = usize::from(data.get(1).copied().unwrap_or(0) & 7);
    let config_end = (2 + 2 * changes).min(data.len());
    let config = random_config(&data[..config_end]);
    let words = image_words(&data[config_end..], flags & 1 != 0);
    BUFFERS.with(|buffers| {
        let buffers = &mut *buffers.borrow_mut();
        for fetch in FETCH_KINDS {
            let pipelined = &mut buffers.pipelined;
            let Some(run) = run_pipeline(pipelined, &mut buffers.pipeline, &words, config, fetch)
            else {
                return;
            };
            let listening = Mispredicts::default();
            for listen in [false, true] {
                let (fast, fast_pipeline) = (&mut buffers.fast, &mut buffers.fast_pipeline);
                let cycles = run.simulated;
                if listen {
                    run_with_shortcuts(
                        fast,
                        fast_pipeline,
                        &words,
                        config,
                        fetch,
                        cycles,
                        &listening,
                    );
                } else {
                    run_with_shortcuts(
                        fast,
                        fast_pipeline,
                        &words,
                        config,
                        fetch,
                        cycles,
                        &NoProbes,
                    );
                }
                let label = format!("{fetch:?} fetch, shortcuts, listening: {listen}");
                let reference = &buffers.pipeline;
                assert_eq!(
                    fast_pipeline.stats(),
                    reference.stats(),
                    "{label}: statistics"
                );
                assert_eq!(fast_pipeline.clock(), reference.clock(), "{label}: clock");
                assert_eq!(
                    fast.cycle_count(),
                    pipelined.cycle_count(),
                    "{label}: SPU cycles"
                );
                assert_eq!(fast.status(), pipelined.status(), "{label}: status");
                if listen {
                    assert_eq!(
                        listening.heard.get(),
                        run.heard,
                        "{label}: notifications (cycles, retired, mispredicts, issues, stalls)"
                    );
                }
                compare_states(fast, pipelined, &label, "every cycle simulated");
            }
            let functional = &mut buffers.functional;
            let retired = pipelined.instructions_retired();
            let functional_run = run_instruction_mode(functional, &words, retired, &run);
            if functional_run.self_modifying && fetch == FetchKind::Real {
                // See `run_instruction_mode`: the per-cycle invariants were checked, the final
                // state (and whether the program stops at all) may differ.
                continue;
            }
            assert!(
                functional_run.reached,
                "{fetch:?} fetch: instruction mode does not reach the pipeline's {retired} \
                 instructions (or its stop)"
            );
            compare(pipelined, functional, fetch);
            if let Some(reason) = run.stopped {
                assert_eq!(
                    functional.status(),
                    Status::Stopped(reason),
                    "{fetch:?} fetch: stop reason differs from instruction mode"
                );
            }
        }
    });
}
