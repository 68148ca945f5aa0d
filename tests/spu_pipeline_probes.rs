//! The SPU probe points: counts agree with the program and the statistics, names register in
//! a probe manager, and they work in both modes.

mod spu_pipeline_support;

use std::cell::{Cell, RefCell};

use pmprobe::probe::listeners::{AccessKind, MemAccess};
use pmprobe::probe::{Listener, ListenerRef, Manager};
use pmprobe::spu::pipeline::Config;
use pmprobe::spu::probes::{IssueEvent, SpuProbes, StallReason};
use pmprobe::spu::unit::{Discard, Mode};
use spu_pipeline_support::unit_with;

#[derive(Default)]
struct Counter(Cell<u64>);

impl Listener<u64> for Counter {
    fn notify(&self, n: &u64) {
        self.0.set(self.0.get() + n);
    }
}

struct Recorder<T>(RefCell<Vec<T>>);

impl<T> Default for Recorder<T> {
    fn default() -> Self {
        Recorder(RefCell::new(Vec::new()))
    }
}

impl<T: Copy> Listener<T> for Recorder<T> {
    fn notify(&self, arg: &T) {
        self.0.borrow_mut().push(*arg);
    }
}

const PROGRAM: &str = "ila $3,data
il $4,3
loop: lqd $5,0($3)
a $6,$6,$5
stqd $6,16($3)
ai $4,$4,-1
brnz $4,loop
stop
.data
.align 4
data: .word 5,0,0,0
.space 16";

#[test]
fn probe_points_report_what_the_program_does() {
    for mode in [Mode::Pipeline, Mode::Instruction] {
        let cycles = Counter::default();
        let insts = Counter::default();
        let loads = Counter::default();
        let stores = Counter::default();
        let branches = Counter::default();
        let pcs: Recorder<u64> = Recorder::default();
        let accesses: Recorder<MemAccess> = Recorder::default();
        let issues: Recorder<IssueEvent> = Recorder::default();
        let stalls: Recorder<StallReason> = Recorder::default();
        let probes = SpuProbes::new();
        probes.cycles.add_object(&cycles).unwrap();
        probes.retired_insts.add_object(&insts).unwrap();
        probes.retired_loads.add_object(&loads).unwrap();
        probes.retired_stores.add_object(&stores).unwrap();
        probes.retired_branches.add_object(&branches).unwrap();
        probes.retired_insts_pc.add_object(&pcs).unwrap();
        probes.data_access.add_object(&accesses).unwrap();
        probes.issue.add_object(&issues).unwrap();
        probes.issue_stall.add_object(&stalls).unwrap();

        let mut unit = unit_with(PROGRAM, Config::cell(), mode);
        let outcome = unit.run(10_000, &probes, &mut Discard).unwrap();
        // 2 + 3 iterations x 5 + stop = 18 instructions; 3 loads, 3 stores, 3 branches.
        assert_eq!(insts.0.get(), 18, "{mode:?}");
        assert_eq!(loads.0.get(), 3);
        assert_eq!(stores.0.get(), 3);
        assert_eq!(branches.0.get(), 3);
        assert_eq!(cycles.0.get(), outcome.cycles);
        let pcs = pcs.0.borrow();
        assert_eq!(&pcs[..4], &[0, 4, 8, 12]);
        assert_eq!(pcs[7], 8, "the loop branches back to 8");
        let accesses = accesses.0.borrow();
        assert_eq!(accesses.len(), 6);
        let data = 0x80; // text is 8 words; data at spu-ld's ALIGN(0x80) after it
        assert_eq!(
            (
                accesses[0].address,
                accesses[0].size,
                accesses[0].kind,
                accesses[0].pc
            ),
            (data, 16, AccessKind::Read, 8)
        );
        assert_eq!(
            (accesses[1].address, accesses[1].kind, accesses[1].pc),
            (data + 16, AccessKind::Write, 16)
        );
        if mode == Mode::Pipeline {
            let stats = unit.stats();
            assert_eq!(issues.0.borrow().len() as u64, stats.instructions);
            assert_eq!(
                issues.0.borrow().iter().filter(|e| e.dual).count() as u64,
                2 * stats.dual_cycles
            );
            // Every issue goes to the class's pipe: lqd/stqd/brnz odd, the rest even.
            for event in issues.0.borrow().iter() {
                let odd = matches!(event.pc, 8 | 16 | 24) || event.pc == 28;
                assert_eq!(event.pipe, u8::from(odd), "{event:?}");
            }
            let stall_cycles =
                stats.cycles - stats.single_cycles - stats.dual_cycles - stats.nop_cycles;
            assert_eq!(stalls.0.borrow().len() as u64, stall_cycles);
            let dependency = stalls
                .0
                .borrow()
                .iter()
                .filter(|r| matches!(r, StallReason::Dependency(_)))
                .count() as u64;
            assert_eq!(dependency, stats.dependency_stalls);
        } else {
            assert!(issues.0.borrow().is_empty());
            assert_eq!(outcome.cycles, 18);
        }
    }
}

static RETIRED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn count_retired(n: &u64) {
    RETIRED.fetch_add(*n, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn points_register_under_gem5_names() {
    let probes: &'static SpuProbes<'static> = Box::leak(Box::new(SpuProbes::new()));
    let mut manager: Manager<'static, 16> = Manager::new();
    probes.register(&mut manager).unwrap();
    let names: Vec<&str> = manager.names().collect();
    assert_eq!(
        names,
        [
            "Cycles",
            "RetiredInsts",
            "RetiredInstsPC",
            "RetiredLoads",
            "RetiredStores",
            "RetiredBranches",
            "BranchMispredicts",
            "DataAccess",
            "IssueStall",
            "Issue",
            "Dma",
            "DmaLines"
        ]
    );
    manager
        .connect::<u64, dyn Listener<u64>>("RetiredInsts", ListenerRef::Function(count_retired))
        .unwrap();
    let mut unit = unit_with(PROGRAM, Config::cell(), Mode::Pipeline);
    unit.run(10_000, probes, &mut Discard).unwrap();
    assert_eq!(RETIRED.load(std::sync::atomic::Ordering::Relaxed), 18);
}

/// A `core::fmt::Write` sink that attaches a listener to `Cycles` when the first `prof_cp`
/// line arrives (a model that skips notifications while nothing listens must notice).
struct AttachOnCheckpoint<'p, 'l> {
    probes: &'p SpuProbes<'l>,
    listener: &'l Counter,
    attached: bool,
}

impl core::fmt::Write for AttachOnCheckpoint<'_, '_> {
    fn write_str(&mut self, _line: &str) -> core::fmt::Result {
        if !self.attached {
            self.probes.cycles.add_object(self.listener).unwrap();
            self.attached = true;
        }
        Ok(())
    }
}

#[test]
fn a_listener_attached_by_the_output_during_a_run_is_notified() {
    // 100 iterations of two instructions, then prof_cp5 (and $5,$5,$5), a few more
    // instructions and stop: the listener must count the cycles after the checkpoint.
    let program = "il $4,100
loop: ai $4,$4,-1
brnz $4,loop
and $5,$5,$5
il $6,1
il $7,2
stop";
    for mode in [Mode::Pipeline, Mode::Instruction] {
        let probes = SpuProbes::new();
        let cycles = Counter::default();
        let mut output = AttachOnCheckpoint {
            probes: &probes,
            listener: &cycles,
            attached: false,
        };
        let mut unit = unit_with(program, Config::cell(), mode);
        let outcome = unit.run(100_000, &probes, &mut output).unwrap();
        assert!(output.attached, "{mode:?}: the checkpoint printed");
        let counted = cycles.0.get();
        assert!(
            counted > 0 && counted < outcome.cycles / 10,
            "{mode:?}: {counted} of {} cycles counted after the checkpoint",
            outcome.cycles
        );
    }
}
