//! What an SPU observer hears, written down, and what stepping the SPU one instruction at a
//! time says it should hear: shared by `tests/spu_exec_batched_observers.rs` and the
//! `decode_execute` fuzz check, which compare instruction mode's batches against it.
use std::cell::RefCell;
use std::fmt::Write as _;

use pmprobe::spu::exec::{Executed, SpuState, Status};
use pmprobe::spu::isa::{Instruction, decode};
use pmprobe::spu::pipeline::{RunEnd, RunOutcome};
use pmprobe::spu::probes::SpuObserver;

/// One notification.
#[derive(Clone, Debug, PartialEq)]
pub enum Heard {
    Cycles(u64),
    Retired(Instruction, Executed, u64),
}

/// Writes down every notification (the default `completed`: one by one).
#[derive(Default)]
pub struct Recorder(pub RefCell<Vec<Heard>>);

impl SpuObserver for Recorder {
    fn cycles(&self, n: u64) {
        self.0.borrow_mut().push(Heard::Cycles(n));
    }
    fn retired(&self, instruction: &Instruction, executed: &Executed, cycle: u64) {
        self.0
            .borrow_mut()
            .push(Heard::Retired(*instruction, *executed, cycle));
    }
}

/// What instruction mode promises for a run of up to `max` cycles, one `step` at a time: the
/// notifications go to `heard`, the `prof_cp` lines to `text`.
pub fn step_by_step(
    spu: &mut SpuState,
    max: u64,
    heard: &mut Vec<Heard>,
    text: &mut String,
) -> RunOutcome {
    let (mut cycles, mut instructions) = (0, 0);
    let mut end = RunEnd::CycleLimit;
    if let Status::Stopped(reason) = spu.status() {
        end = RunEnd::Stopped(reason);
    }
    while end == RunEnd::CycleLimit && cycles < max {
        cycles += 1;
        heard.push(Heard::Cycles(1));
        let executed = spu.step();
        if executed.retired {
            instructions += 1;
            let instruction = decode(executed.word).expect("a retired word decodes");
            heard.push(Heard::Retired(instruction, executed, spu.cycle_count()));
            if let Some(checkpoint) = executed.profile {
                writeln!(text, "{checkpoint}").unwrap();
            }
        }
        match executed.status {
            Status::Running => {}
            Status::Blocked { channel } => end = RunEnd::Blocked { channel },
            Status::Stopped(reason) => end = RunEnd::Stopped(reason),
        }
    }
    RunOutcome {
        end,
        cycles,
        instructions,
        pc: spu.pc(),
    }
}
