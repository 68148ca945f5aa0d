//! What the `pipeline` check watches a run with, independently of the model: a scoreboard of
//! register release times that holds every issue to the dependency rule, and an observer
//! that notes a cycle's mispredicts and counts every kind of notification it hears.
use std::cell::Cell;

use pmprobe::spu::exec::Executed;
use pmprobe::spu::isa::{IClass, Instruction};
use pmprobe::spu::pipeline::{FetchKind, InFlight, MAX_DEPTH, Pipeline, RING};
use pmprobe::spu::probes::{IssueEvent, SpuObserver, StallReason};

/// "No register" in `InFlight::target` / `sources`.
const NO_REGISTER: u8 = 128;

/// Release cycle of the last in-flight writer of each register, fed from the instructions
/// that enter `jj` each cycle; rebuilt from what the execution rows still hold after a
/// mispredict squashed younger instructions.
pub struct Scoreboard {
    release: [u64; 128],
}

impl Scoreboard {
    pub fn new() -> Self {
        Scoreboard { release: [0; 128] }
    }

    /// The writers of the rows that entered `jj` before cycle `now` (a writer that entered
    /// more than the longest configured depth ago is released; the rows are kept longer).
    pub fn rebuild(&mut self, pipeline: &Pipeline, now: u64) {
        self.release = [0; 128];
        let longest = IClass::ALL
            .iter()
            .map(|&class| u64::from(pipeline.config().depth(class)))
            .max()
            .unwrap_or(u64::from(MAX_DEPTH));
        for back in 1..=longest {
            let Some(cycle) = now.checked_sub(back) else {
                break;
            };
            for inflight in pipeline.entered_jj(cycle).iter().flatten() {
                self.record(pipeline, inflight, cycle);
            }
        }
    }

    fn record(&mut self, pipeline: &Pipeline, inflight: &InFlight, cycle: u64) {
        if inflight.target != NO_REGISTER {
            let depth = u64::from(pipeline.config().depth(inflight.class));
            let slot = &mut self.release[usize::from(inflight.target & 0x7f)];
            *slot = (*slot).max(cycle + depth);
        }
    }

    /// Checks and records what entered `jj` in cycle `now` (pipe 0 first: it is the older of a
    /// dual-issued pair, so its target is "unreleased" for pipe 1).
    pub fn issue(&mut self, pipeline: &Pipeline, now: u64, fetch: FetchKind) {
        for inflight in pipeline.entered_jj(now).iter().flatten() {
            for &source in &inflight.sources {
                if source != NO_REGISTER {
                    let release = self.release[usize::from(source & 0x7f)];
                    assert!(
                        release <= now,
                        "{fetch:?} fetch, cycle {now}: instruction at {:#x} ({:?}) issued \
                         reading ${source}, released only at cycle {release}",
                        inflight.pc,
                        inflight.instruction.mnemonic
                    );
                }
            }
            self.record(pipeline, inflight, now);
        }
    }
}

/// Notes the mispredicts of a cycle, and counts every kind of notification (with a sum of
/// what each carries), so that a run with the shortcuts can be held to what the plain model
/// told its observer.
#[derive(Default)]
pub struct Mispredicts {
    pub this_cycle: Cell<bool>,
    /// Cycles, retired (and the sum of their cycles and PCs), mispredicts, issues (and the
    /// sum of their cycles and PCs), stalled cycles.
    pub heard: Cell<[u64; 7]>,
}

impl Mispredicts {
    fn add(&self, index: usize, n: u64) {
        let mut heard = self.heard.get();
        heard[index] = heard[index].wrapping_add(n);
        self.heard.set(heard);
    }
}

impl SpuObserver for Mispredicts {
    fn cycles(&self, n: u64) {
        self.add(0, n);
    }
    fn retired(&self, _: &Instruction, executed: &Executed, cycle: u64) {
        self.add(1, 1);
        self.add(2, cycle ^ (u64::from(executed.pc) << 32));
    }
    fn mispredict(&self) {
        self.this_cycle.set(true);
        self.add(3, 1);
    }
    fn issue(&self, event: IssueEvent) {
        self.add(4, 1);
        self.add(5, event.cycle ^ (u64::from(event.pc) << 32));
    }
    fn issue_stall(&self, _: StallReason) {
        self.add(6, 1);
    }
}

const _: () = assert!(MAX_DEPTH as usize <= RING);
