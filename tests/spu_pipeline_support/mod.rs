//! Shared helpers for the spu_pipeline_* tests: assemble a program, run it on an SPU in
//! pipeline (or instruction) mode until it stops.
#![allow(dead_code)]

use std::cell::RefCell;

use pmprobe::spu::exec::SPU_WR_OUT_MBOX;
use pmprobe::spu::exec::{Executed, StopReason};
use pmprobe::spu::isa::Instruction;
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::pipeline::Config;
use pmprobe::spu::pipeline::{FetchKind, ModelError, RunEnd, RunOutcome};
use pmprobe::spu::probes::{IssueEvent, NoProbes, SpuObserver, StallReason};
use pmprobe::spu::unit::{Mode, SpuUnit};

/// Assembles `source` into a fresh boxed SPU (id 0), ready to run.
pub fn unit_with(source: &str, config: Config, mode: Mode) -> Box<SpuUnit> {
    let mut unit = Box::new(SpuUnit::new(0));
    load(&mut unit, source);
    unit.set_config(config);
    unit.set_mode(mode);
    unit
}

/// Assembles `source` and loads it into `unit`.
pub fn load(unit: &mut SpuUnit, source: &str) {
    let mut image = vec![0u8; 64 * 1024];
    let program = assemble::<64>(source, &mut image)
        .unwrap_or_else(|e| panic!("assembly failed: {e}\n{source}"));
    unit.load_program(&image[..program.len], program.entry)
        .expect("image fits");
}

/// Runs until the SPU stops (at most `limit` cycles); returns the outcome and the prof_cp text.
pub fn run_to_stop(unit: &mut SpuUnit, limit: u64) -> (RunOutcome, String) {
    let mut text = String::new();
    let outcome = unit
        .run(limit, &NoProbes, &mut text)
        .unwrap_or_else(|e| panic!("model error: {e}"));
    assert!(
        matches!(outcome.end, RunEnd::Stopped(StopReason::Stop { .. })),
        "program did not stop: {outcome:?}"
    );
    (outcome, text)
}

/// Total cycles to run `source` to its stop in pipeline mode with `config`.
pub fn cycles_of(source: &str, config: Config) -> u64 {
    let mut unit = unit_with(source, config, Mode::Pipeline);
    let (outcome, _) = run_to_stop(&mut unit, 1_000_000);
    let stats = unit.stats();
    stats.check_identities().expect("statistics identities");
    outcome.cycles
}

/// `body` repeated `n` times (one instruction or pair per line), then `stop`.
pub fn repeated(prologue: &str, body: &str, n: usize) -> String {
    let mut text = String::from(prologue);
    for _ in 0..n {
        text.push_str(body);
        text.push('\n');
    }
    text.push_str("stop\n");
    text
}

/// xorshift64 for reproducible random programs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random program: register initialisation, then a mix of classes with random registers
/// (some dependent), loads/stores into a data area, forward branches and a counted loop.
pub fn random_program(seed: u64) -> String {
    let mut rng = Rng(seed | 1);
    let mut text = String::new();
    for r in 3..16 {
        text.push_str(&format!("il ${r},{}\n", rng.below(2000) as i64 - 1000));
    }
    text.push_str("ila $20,data\nil $21,6\nloop:\n");
    let ops = [
        "a", "sf", "and", "xor", "shl", "rot", "absdb", "fa", "fm", "mpy", "mpyu", "dfa", "dfm",
        "rotqby", "shufb", "ceq", "cgt", "selb", "fma", "cntb",
    ];
    for i in 0..60 {
        let r = |rng: &mut Rng| 3 + rng.below(13);
        let (t, a, b, c) = (r(&mut rng), r(&mut rng), r(&mut rng), r(&mut rng));
        match rng.below(10) {
            0 => text.push_str(&format!("lqd ${t},{}($20)\n", 16 * rng.below(8))),
            1 => text.push_str(&format!("stqd ${t},{}($20)\n", 16 * rng.below(8))),
            2 => text.push_str(&format!("brz ${a},skip{i}\nai ${t},${t},3\nskip{i}:\n")),
            3 => text.push_str("lnop\n"),
            _ => {
                let op = ops[rng.below(ops.len() as u64) as usize];
                match op {
                    "selb" | "shufb" | "fma" => {
                        text.push_str(&format!("{op} ${t},${a},${b},${c}\n"))
                    }
                    "cntb" => text.push_str(&format!("{op} ${t},${a}\n")),
                    _ => text.push_str(&format!("{op} ${t},${a},${b}\n")),
                }
            }
        }
    }
    text.push_str("ai $21,$21,-1\nbrnz $21,loop\nstop\n.data\n.align 4\ndata: .space 128\n");
    text
}

/// Asserts that two SPUs end in the same architectural state: registers, PC, instruction
/// count and the first 16 KiB of local store.
pub fn assert_same_architecture(a: &SpuUnit, b: &SpuUnit, what: &str) {
    assert_eq!(
        a.arch().registers(),
        b.arch().registers(),
        "{what}: registers"
    );
    assert_eq!(a.arch().pc(), b.arch().pc(), "{what}: pc");
    assert_eq!(
        a.arch().instructions_retired(),
        b.arch().instructions_retired(),
        "{what}: instructions"
    );
    for address in (0..0x4000).step_by(4) {
        assert_eq!(
            a.arch().local_store().load_word(address),
            b.arch().local_store().load_word(address),
            "{what}: LS word at {address:#x}"
        );
    }
}

/// Asserts that two SPUs in pipeline mode agree on everything a run shows: statistics,
/// architectural state, clock, last stall, the stopping instruction, the issue stages, every
/// kept execution row with its dependency columns, and the trace frame (which also shows the
/// real fetch unit's buffers, requests and LS pipe).
pub fn assert_same_pipeline(a: &SpuUnit, b: &SpuUnit, what: &str) {
    use pmprobe::spu::pipeline::{RING, write_frame};
    assert_eq!(a.stats(), b.stats(), "{what}: statistics");
    assert_same_architecture(a, b, what);
    let (x, y) = (a.arch(), b.arch());
    assert_eq!(x.status(), y.status(), "{what}: status");
    assert_eq!(x.cycle_count(), y.cycle_count(), "{what}: SPU cycle count");
    assert_eq!(
        x.non_nop_instructions_retired(),
        y.non_nop_instructions_retired(),
        "{what}: non-NOP count"
    );
    assert_eq!(
        x.profile_counters(),
        y.profile_counters(),
        "{what}: profile counters"
    );
    assert_eq!(x.channels(), y.channels(), "{what}: channels");
    let (p, q) = (a.pipeline(), b.pipeline());
    assert_eq!(p.clock(), q.clock(), "{what}: clock");
    assert_eq!(p.last_stall(), q.last_stall(), "{what}: last stall");
    assert_eq!(p.stopped_by(), q.stopped_by(), "{what}: stopped by");
    for stage in 0..4 {
        assert_eq!(
            p.issue_stage(stage),
            q.issue_stage(stage),
            "{what}: issue stage {stage}"
        );
    }
    for stage in 0..RING as u64 {
        assert_eq!(
            p.exec_stage_slots(stage),
            q.exec_stage_slots(stage),
            "{what}: execution stage {stage}"
        );
        assert_eq!(
            p.dependency_columns(stage),
            q.dependency_columns(stage),
            "{what}: dependency columns of execution stage {stage}"
        );
    }
    let (mut frame_a, mut frame_b) = (String::new(), String::new());
    write_frame(p, x, &mut frame_a).expect("a frame formats");
    write_frame(q, y, &mut frame_b).expect("a frame formats");
    assert_eq!(frame_a, frame_b, "{what}: trace frame");
}

/// Every notification, in order (a run of stalled cycles as the cycles one by one, as
/// `SpuObserver::stalled_cycles` defines it).
#[derive(Default)]
pub struct Recorder(pub RefCell<Vec<String>>);

impl SpuObserver for Recorder {
    fn cycles(&self, n: u64) {
        self.0.borrow_mut().push(format!("cycles {n}"));
    }
    fn retired(&self, instruction: &Instruction, executed: &Executed, cycle: u64) {
        self.0.borrow_mut().push(format!(
            "retired {:?} {executed:?} at {cycle}",
            instruction.mnemonic
        ));
    }
    fn mispredict(&self) {
        self.0.borrow_mut().push("mispredict".into());
    }
    fn issue(&self, event: IssueEvent) {
        self.0.borrow_mut().push(format!("issue {event:?}"));
    }
    fn issue_stall(&self, reason: StallReason) {
        self.0.borrow_mut().push(format!("stall {reason:?}"));
    }
}

/// Takes what the two recorders heard since the last call and fails at the first
/// notification that differs.
pub fn assert_same_notifications(a: &Recorder, b: &Recorder, what: &str) {
    let (heard_a, heard_b) = (a.0.take(), b.0.take());
    if heard_a != heard_b {
        let first = heard_a.iter().zip(&heard_b).position(|(x, y)| x != y);
        let shown = first.map(|at| (heard_a.get(at), heard_b.get(at)));
        panic!(
            "{what}: notifications differ at {first:?} of {} / {}: {shown:?}",
            heard_a.len(),
            heard_b.len()
        );
    }
}

/// Runs units `a` and `b`, loaded with `source`, in slices of the given lengths (cycled)
/// until both stop or `limit` cycles passed, draining the outbound mailbox of both when they
/// block on it. After every slice they must agree on the run outcome, the `prof_cp` lines and
/// everything the pipeline shows; with `listen`, a recording listener is attached to each,
/// and they must have heard the same notifications in the same order.
pub fn run_side_by_side(
    a: &mut SpuUnit,
    b: &mut SpuUnit,
    source: &str,
    fetch: FetchKind,
    slices: &[u64],
    limit: u64,
    listen: bool,
) {
    let (mut text_a, mut text_b) = (String::new(), String::new());
    let (heard_a, heard_b) = (Recorder::default(), Recorder::default());
    let mut total = 0;
    for (round, &slice) in slices.iter().cycle().enumerate() {
        let what = format!("{fetch:?} fetch, slice {round} ({slice} cycles) at cycle {total}");
        let (run_a, run_b): (Result<RunOutcome, ModelError>, _) = if listen {
            (
                a.run(slice, &heard_a, &mut text_a),
                b.run(slice, &heard_b, &mut text_b),
            )
        } else {
            (
                a.run(slice, &NoProbes, &mut text_a),
                b.run(slice, &NoProbes, &mut text_b),
            )
        };
        assert_eq!(run_a, run_b, "{what}: outcome\n{source}");
        assert_eq!(text_a, text_b, "{what}: prof_cp lines");
        assert_same_pipeline(a, b, &what);
        assert_same_notifications(&heard_a, &heard_b, &what);
        let Ok(outcome) = run_a else { break };
        total += outcome.cycles;
        match outcome.end {
            RunEnd::Stopped(_) => break,
            RunEnd::Blocked { channel } if channel == SPU_WR_OUT_MBOX => {
                let x = a.arch_mut().channels_mut().outbound.pop();
                let y = b.arch_mut().channels_mut().outbound.pop();
                assert_eq!(x, y, "{what}: mailbox value");
            }
            RunEnd::Blocked { channel } => panic!("{what}: blocked on channel {channel}"),
            RunEnd::CycleLimit => {}
        }
        if total >= limit {
            break;
        }
    }
}
