//! Instruction mode with an observer attached runs instructions in batches and tells the
//! observer of each batch afterwards. An observer that takes the batch one by one (the
//! default `SpuObserver::completed`) must hear exactly what stepping the SPU one instruction
//! at a time with `SpuState::step` says: for every attempt, `cycles(1)`, then for a retired
//! instruction `retired(instruction, report, cycle)` with the cycle count after it, in the
//! same order, with the same `prof_cp` lines and run outcomes, whatever the run's slice
//! lengths (shorter and longer than a batch, ending inside one). The SPU's probe points,
//! which hand `DataAccess` listeners a batch's accesses at once when no other point listens,
//! must report the same accesses; a listener attached meanwhile hears from the next batch.

#[path = "../fuzz/checks/observed.rs"]
mod observed;
mod spu_pipeline_support;

use std::cell::{Cell, RefCell};

use observed::{Recorder, step_by_step};
use pmprobe::probe::Listener;
use pmprobe::probe::listeners::MemAccess;
use pmprobe::spu::exec::{COMPLETED_BATCH, SPU_WR_OUT_MBOX, Status};
use pmprobe::spu::pipeline::{Config, RunEnd};
use pmprobe::spu::probes::SpuProbes;
use pmprobe::spu::unit::{Mode, SpuUnit};
use spu_pipeline_support::{assert_same_architecture, random_program, unit_with};

/// Runs `source` both ways in slices of the given lengths (cycled) until the SPU stops or
/// `limit` instructions were attempted, draining the outbound mailbox when it blocks on it.
/// Returns the notifications heard.
fn compare(source: &str, slices: &[u64], limit: u64) -> usize {
    let mut batched = unit_with(source, Config::cell(), Mode::Instruction);
    let mut stepped: Box<SpuUnit> = unit_with(source, Config::cell(), Mode::Instruction);
    let recorder = Recorder::default();
    let mut expected = Vec::new();
    let (mut text, mut expected_text) = (String::new(), String::new());
    let mut total = 0;
    for (round, &slice) in slices.iter().cycle().enumerate() {
        let what = format!("slice {round} ({slice} cycles) at {total}");
        let outcome = batched
            .run(slice, &recorder, &mut text)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let reference = step_by_step(stepped.arch_mut(), slice, &mut expected, &mut expected_text);
        assert_eq!(outcome, reference, "{what}: outcome\n{source}");
        let heard = recorder.0.borrow();
        assert_eq!(
            heard.len(),
            expected.len(),
            "{what}: notifications\n{source}"
        );
        if let Some(i) = (0..heard.len()).find(|&i| heard[i] != expected[i]) {
            panic!(
                "{what}: notification {i}: heard {:?}, expected {:?}\n{source}",
                heard[i], expected[i]
            );
        }
        drop(heard);
        assert_eq!(text, expected_text, "{what}: prof_cp lines");
        assert_same_architecture(&batched, &stepped, &what);
        total += outcome.cycles;
        match outcome.end {
            RunEnd::Stopped(_) => break,
            RunEnd::Blocked { channel } if channel == SPU_WR_OUT_MBOX => {
                let x = batched.arch_mut().channels_mut().outbound.pop();
                let y = stepped.arch_mut().channels_mut().outbound.pop();
                assert_eq!(x, y, "{what}: mailbox value");
            }
            RunEnd::Blocked { .. } => break,
            RunEnd::CycleLimit => {}
        }
        if total >= limit {
            break;
        }
    }
    recorder.0.borrow().len()
}

/// Slice lengths around the batch length (32) and far from it.
const SLICES: [u64; 9] = [1, 31, 32, 33, 64, 5, 1_000, 97, 100_000];

#[test]
fn example_programs_are_heard_as_stepped() {
    for source in [
        include_str!("../spu/programs/demo_saxpy.s"),
        include_str!("../spu/programs/demo_chain.s"),
        include_str!("../spu/programs/call.s"),
        include_str!("../spu/programs/memcpy.s"),
    ] {
        assert!(compare(source, &SLICES, 60_000) > 10);
    }
}

#[test]
fn checkpoints_mailboxes_halts_and_faults_are_heard_as_stepped() {
    let loop_of =
        |body: &str| format!("il $30,70\nloop:\n{body}ai $30,$30,-1\nbrnz $30,loop\nstop\n");
    let sources = [
        // Two profiling checkpoints (prof_cp10, prof_cp11) every iteration.
        loop_of("and $10,$10,$10\nfa $6,$6,$7\nand $11,$11,$11\n"),
        // The outbound mailbox every 4th iteration (drained between slices).
        loop_of("andi $6,$30,3\nbrnz $6,skip\nwrch $ch28,$30\nskip: fm $7,$7,$8\n"),
        // Waits on an empty inbound mailbox for good.
        "il $3,1\nrdch $4,$ch29\nstop\n".to_string(),
        "il $3,5\nil $4,5\nheq $3,$4\nstop 0x1234\n".to_string(),
        "il $3,5\n.word 0x00800000\nstop\n".to_string(),
    ];
    for source in &sources {
        for slices in [&SLICES[..], &[1], &[32], &[7, 40]] {
            assert!(compare(source, slices, 20_000) > 0);
        }
    }
}

#[test]
fn instructions_sharing_a_decode_cache_slot_within_a_batch_are_heard_as_stepped() {
    // The loop jumps between two places 1 KiB apart (in a direct-mapped cache of 256
    // decodes, as `step` once kept, they share slots, so consecutive instructions of one
    // batch would evict each other's decodes): the replay must still name each instruction
    // right.
    let source = "il $30,50
loop: ai $3,$3,1
br far
back: ai $30,$30,-1
brnz $30,loop
stop
.space 1012
far: fa $4,$4,$5
br back
";
    assert!(compare(source, &SLICES, 20_000) > 200);
}

#[test]
fn random_programs_are_heard_as_stepped() {
    for seed in 0..40 {
        let source = random_program(seed);
        assert!(compare(&source, &[1 + seed % 40, 32, 999], 50_000) > 0);
    }
}

/// Writes down the `DataAccess` notifications.
#[derive(Default)]
struct Accesses(RefCell<Vec<MemAccess>>);

impl Listener<MemAccess> for Accesses {
    fn notify(&self, access: &MemAccess) {
        self.0.borrow_mut().push(*access);
    }
}

/// The data accesses stepping `source` one instruction at a time reports, as the
/// `DataAccess` point describes them (tick: the cycle count after the access).
fn stepped_accesses(source: &str, limit: u64) -> Vec<MemAccess> {
    let mut unit = unit_with(source, Config::cell(), Mode::Instruction);
    let spu = unit.arch_mut();
    let mut accesses = Vec::new();
    for _ in 0..limit {
        let executed = spu.step();
        if let Some(access) = executed.access {
            accesses.push(MemAccess {
                tick: spu.cycle_count(),
                pc: u64::from(executed.pc),
                address: u64::from(access.address),
                size: access.size,
                kind: access.kind,
            });
        }
        if executed.status != Status::Running {
            break;
        }
    }
    accesses
}

#[test]
fn data_access_listeners_hear_every_access_as_stepped_alone_or_with_other_points() {
    for source in [
        include_str!("../spu/programs/demo_saxpy.s"),
        include_str!("../spu/programs/demo_chain.s"),
        include_str!("../spu/programs/memcpy.s"),
    ] {
        let expected = stepped_accesses(source, 200_000);
        assert!(!expected.is_empty());
        // Alone, the accesses come a batch at a time; next to a listener on another point,
        // one by one.
        for with_other_point in [false, true] {
            let accesses = Accesses::default();
            let pcs = Pcs::default();
            let probes = SpuProbes::new();
            probes.data_access.add_object(&accesses).unwrap();
            if with_other_point {
                probes.retired_insts_pc.add_object(&pcs).unwrap();
            }
            let mut unit = unit_with(source, Config::cell(), Mode::Instruction);
            let mut total = 0;
            for &slice in SLICES.iter().cycle() {
                let outcome = unit.run(slice, &probes, &mut String::new()).unwrap();
                total += outcome.cycles;
                if outcome.end != RunEnd::CycleLimit || total >= 200_000 {
                    break;
                }
            }
            assert_eq!(
                *accesses.0.borrow(),
                expected,
                "other point: {with_other_point}"
            );
            assert_eq!(pcs.0.get() > 0, with_other_point);
        }
    }
}

/// Counts `RetiredInstsPC` notifications.
#[derive(Default)]
struct Pcs(Cell<u64>);

impl Listener<u64> for Pcs {
    fn notify(&self, _: &u64) {
        self.0.set(self.0.get() + 1);
    }
}

/// A `DataAccess` listener that, on its first call, attaches a counter to the `Cycles` point.
struct AttachesCycles<'p> {
    probes: &'p SpuProbes<'p>,
    cycles: &'p CycleCount,
}

#[derive(Default)]
struct CycleCount(Cell<u64>);

impl Listener<u64> for CycleCount {
    fn notify(&self, n: &u64) {
        self.0.set(self.0.get() + n);
    }
}

impl Listener<MemAccess> for AttachesCycles<'_> {
    fn notify(&self, _: &MemAccess) {
        let _ = self.probes.cycles.add_object(self.cycles);
    }
}

#[test]
fn a_listener_attached_to_another_point_during_a_batch_hears_from_the_next_batch() {
    // 2 + 3 x 100 + 1 instructions, no checkpoint: the first batch is a full one.
    let source = "il $30,100\nila $20,data\nloop: lqd $3,0($20)\nai $30,$30,-1\nbrnz $30,loop\nstop\n.data\n.align 4\ndata: .space 16\n";
    let cycles = CycleCount::default();
    let probes = SpuProbes::new();
    let attacher = AttachesCycles {
        probes: &probes,
        cycles: &cycles,
    };
    probes.data_access.add_object(&attacher).unwrap();
    let mut unit = unit_with(source, Config::cell(), Mode::Instruction);
    let outcome = unit.run(10_000, &probes, &mut String::new()).unwrap();
    assert_eq!(outcome.cycles, 303);
    assert_eq!(cycles.0.get(), 303 - COMPLETED_BATCH as u64);
}

/// Sums what batches say, without records.
#[derive(Default)]
struct Counting {
    /// Instructions, loads, stores, branches, accesses, records seen.
    sums: Cell<[u64; 6]>,
}

impl pmprobe::spu::probes::SpuObserver for Counting {
    fn completed(&self, batch: &pmprobe::spu::exec::CompletedBatch<'_>) {
        let [n, loads, stores, branches, accesses, records] = self.sums.get();
        self.sums.set([
            n + batch.len() as u64,
            loads + batch.loads(),
            stores + batch.stores(),
            branches + batch.branches(),
            accesses + batch.accesses().len() as u64,
            records + batch.records().len() as u64,
        ]);
    }
    fn needs_records(&self) -> bool {
        false
    }
}

#[test]
fn an_observer_that_needs_no_records_gets_the_counts_and_accesses_without_them() {
    for seed in 0..20 {
        let source = random_program(seed);
        let mut batched = unit_with(&source, Config::cell(), Mode::Instruction);
        let counting = Counting::default();
        let outcome = batched.run(5_000, &counting, &mut String::new()).unwrap();
        // The reference: the same instructions stepped, counted from their reports.
        let mut stepped = unit_with(&source, Config::cell(), Mode::Instruction);
        let mut expected = [0u64; 6];
        for _ in 0..outcome.cycles {
            let executed = stepped.arch_mut().step();
            if !executed.retired || executed.status != Status::Running {
                break;
            }
            if executed.profile.is_some() {
                // A checkpoint ends a batch and is reported on its own, not in one.
                continue;
            }
            let word = executed.word;
            expected[0] += 1;
            match executed.access.map(|access| access.kind) {
                Some(pmprobe::probe::listeners::AccessKind::Read) => expected[1] += 1,
                Some(pmprobe::probe::listeners::AccessKind::Write) => expected[2] += 1,
                _ => {}
            }
            let decoded = pmprobe::spu::isa::decode(word).unwrap();
            expected[3] += u64::from(decoded.is_branch());
            expected[4] += u64::from(executed.access.is_some());
        }
        let heard = counting.sums.get();
        assert_eq!(heard[5], 0, "seed {seed}: records were written");
        assert_eq!(heard[..5], expected[..5], "seed {seed}\n{source}");
        assert!(heard[0] > 0, "seed {seed}: nothing ran");
    }
}
