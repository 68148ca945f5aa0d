//! Taking the fast-forward's [timing state](super::timing_state) of a pipeline at the end of
//! a cycle, into the remembered or the scratch slot of its memory.

use super::timing_state::UnitState;
use crate::spu::exec::{SpuState, Status};
use crate::spu::isa::IClass;
use crate::spu::pipeline::model::execute::ExecPipes;
use crate::spu::pipeline::model::fetch::{FetchModel, Resume};
use crate::spu::pipeline::model::sizes::TRACKED;
use crate::spu::pipeline::state::Pipeline;

/// Which timing state [`capture`] writes.
#[derive(Clone, Copy)]
pub(super) enum Slot {
    Remembered,
    Scratch,
}
pub(super) use Slot::{Remembered, Scratch};

/// Writes the pipeline's timing state into the remembered or the scratch state; `false` if
/// it is not one a fast-forward can start from (a blocked channel instruction, ideal fetch
/// waiting or holding run-ahead instructions, the real fetch unit about to restart or held, a stopped
/// SPU, an instruction referenced that the window no longer holds).
pub(super) fn capture(pipeline: &mut Pipeline, arch: &SpuState, slot: Slot) -> bool {
    let (fetch_state, unit) = match &pipeline.fetch {
        FetchModel::Ideal(fetch) => match fetch.steady() {
            Some(fetch_state) => (fetch_state, None),
            None => return false,
        },
        FetchModel::Real {
            unit,
            resume: Resume::Fetching,
            ..
        } => ((0, unit.starve_reason()), Some(unit)),
        FetchModel::Real { .. } => return false,
    };
    if pipeline.blocked != 0 || !matches!(arch.status(), Status::Running) {
        return false;
    }
    let ff = &mut pipeline.fast_forward;
    let into = match slot {
        Remembered => &mut ff.state,
        Scratch => &mut ff.scratch,
    };
    let issue = &pipeline.issue;
    let exec = &pipeline.exec;
    let now = pipeline.clock;
    let last_seq = issue.last_seq();
    let age = |seq: u64| if seq == 0 { 0 } else { last_seq + 1 - seq };
    let mut oldest = 0;
    for (out, stage) in into.stages.iter_mut().zip(issue.stages) {
        *out = stage.map(age);
        oldest = oldest.max(out[0]).max(out[1]);
    }
    into.bubbles = issue.bubbles;
    for (back, out) in into.rows.iter_mut().enumerate() {
        let row = exec.rows[ExecPipes::index(now.wrapping_sub(back as u64))];
        *out = row.map(|slot| (age(slot.seq), slot.target, slot.class));
        oldest = oldest.max(out[0].0).max(out[1].0);
    }
    for ((out, &ready), &producer) in into
        .scoreboard
        .iter_mut()
        .zip(&exec.ready)
        .zip(&exec.producer)
    {
        *out = if ready > now {
            (ready - now, producer)
        } else {
            (0, IClass::Fx2)
        };
    }
    into.stall_for = issue.stall_until.saturating_sub(now);
    into.fp_busy_next = issue.fp_busy_at == now.wrapping_add(1);
    into.last_issue = pipeline.last_issue;
    into.arch_lag = now.wrapping_sub(arch.cycle_count());
    into.fetch = fetch_state;
    if let Some(unit) = unit {
        match &mut into.unit {
            UnitState::Real(copy) => copy.clone_from(unit),
            other => *other = UnitState::Real(unit.clone()),
        }
    }
    if oldest > TRACKED as u64 {
        return false;
    }
    for (index, out) in into.records.iter_mut().enumerate() {
        let age = index as u64 + 1;
        *out = if age <= oldest {
            match issue.record(last_seq + 1 - age) {
                Some(record) => (record.pc, record.instruction.word),
                None => return false,
            }
        } else {
            (0, 0)
        };
    }
    true
}
