//! Pipeline viewer export: a Kanata log (format version 0004) that the Konata viewer opens.
//!
//! Call [`KonataWriter::write_cycle`] after every simulated cycle. The writer compares the
//! pipeline with the previous cycle and emits:
//! - `I` + `L` (address and disassembly) + `S g` when an instruction enters issue stage g;
//! - `S <stage>` when it moves to h, i, j, then `jj`, k, l, m, n, o (lane 0);
//! - `L ... 1` labels `c<cycle> stall: <reason>` on the instructions a hazard (dependency,
//!   FP resource, DP issue stall, DMA at the LS port) held in stage j, and
//!   `c<cycle> stall: ChannelWait` on a channel instruction waiting at stage o for the MFC or
//!   an event (it stays in o until it completes);
//! - `R <id> <n> 0` when it leaves stage o (retired), `R <id> 0 1` when it disappears before
//!   (squashed by a mispredict or a flush). An instruction that stops the SPU at stage o
//!   ends the run in that cycle (the pipeline is flushed): it gets `S <id> o` and is retired
//!   ([`Pipeline::stopped_by`]).
//!
//! Lines are tab-separated, as Konata expects: `Kanata\t0004`, `C=\t<first cycle>`, `C\t1`.

use core::fmt;

use crate::spu::pipeline::model::inflight::InFlight;
use crate::spu::pipeline::model::sizes::{ISSUE_STAGE_NAMES, O_STAGE};
use crate::spu::pipeline::state::Pipeline;
use crate::spu::probes::StallReason;

const STAGES: [&str; 10] = ["g", "h", "i", "j", "jj", "k", "l", "m", "n", "o"];
const IN_FLIGHT: usize = 24;

/// Writes a Kanata log cycle by cycle.
#[derive(Clone, Debug, Default)]
pub struct KonataWriter {
    previous: heapless::Vec<(u64, u8), IN_FLIGHT>,
    started: bool,
    last_cycle: u64,
    retired: u64,
}

impl KonataWriter {
    /// A writer that has written nothing yet.
    pub const fn new() -> Self {
        KonataWriter {
            previous: heapless::Vec::new(),
            started: false,
            last_cycle: 0,
            retired: 0,
        }
    }

    /// Writes the events of the cycle that just ended.
    pub fn write_cycle(&mut self, pipeline: &Pipeline, out: &mut impl fmt::Write) -> fmt::Result {
        let now = pipeline.clock();
        if self.started {
            writeln!(out, "C\t{}", now.saturating_sub(self.last_cycle))?;
        } else {
            writeln!(out, "Kanata\t0004")?;
            writeln!(out, "C=\t{now}")?;
            self.started = true;
        }
        self.last_cycle = now;

        let mut current: heapless::Vec<(InFlight, u8), IN_FLIGHT> = heapless::Vec::new();
        for stage in 0..ISSUE_STAGE_NAMES.len() {
            for inflight in pipeline.issue_pipes().stage(stage).iter().flatten() {
                let _ = current.push((*inflight, stage as u8));
            }
        }
        for stage in 0..=O_STAGE {
            if let Some(view) = pipeline.exec_stage(stage) {
                for inflight in view.slots.iter().flatten() {
                    let _ = current.push((*inflight, 4 + stage as u8));
                }
            }
        }
        // A channel instruction waiting at stage o stays there, however old its row.
        if let Some(held) = pipeline.held_on_channel()
            && !current.iter().any(|(inflight, _)| inflight.seq == held.seq)
        {
            let _ = current.push((held, 4 + O_STAGE as u8));
        }
        for (inflight, stage) in &current {
            let name = STAGES.get(usize::from(*stage)).copied().unwrap_or("?");
            let id = inflight.seq;
            match self.previous.iter().find(|(seq, _)| *seq == id) {
                None => {
                    writeln!(out, "I\t{id}\t{id}\t0")?;
                    if inflight.illegal {
                        writeln!(
                            out,
                            "L\t{id}\t0\t{:05x}: .long {:#010x}",
                            inflight.pc, inflight.instruction.word
                        )?;
                    } else {
                        writeln!(
                            out,
                            "L\t{id}\t0\t{:05x}: {}",
                            inflight.pc,
                            inflight.instruction.display_at(inflight.pc)
                        )?;
                    }
                    writeln!(out, "S\t{id}\t0\t{name}")?;
                }
                Some((_, before)) if before != stage => writeln!(out, "S\t{id}\t0\t{name}")?,
                Some(_) => {}
            }
            // Only hazards at stage j hold the instructions shown there; other stall reasons
            // are about an empty stage j (the group shown arrived at the end of the cycle).
            if *stage == 3
                && let Some(reason) = pipeline.last_stall().filter(|reason| {
                    matches!(
                        reason,
                        StallReason::Dependency(_)
                            | StallReason::FpResource
                            | StallReason::DpPipeline
                            | StallReason::DmaLocalStore
                    )
                })
            {
                writeln!(out, "L\t{id}\t1\tc{now} stall: {reason:?}; ")?;
            }
            if pipeline
                .held_on_channel()
                .is_some_and(|held| held.seq == id)
            {
                writeln!(out, "L\t{id}\t1\tc{now} stall: ChannelWait; ")?;
            }
        }
        for (id, stage) in &self.previous {
            if current.iter().any(|(inflight, _)| inflight.seq == *id) {
                continue;
            }
            if usize::from(*stage) == STAGES.len() - 1 {
                writeln!(out, "R\t{id}\t{}\t0", self.retired)?;
                self.retired += 1;
            } else if pipeline.stopped_by() == Some(*id) {
                writeln!(out, "S\t{id}\t0\to")?;
                writeln!(out, "R\t{id}\t{}\t0", self.retired)?;
                self.retired += 1;
            } else {
                writeln!(out, "R\t{id}\t0\t1")?;
            }
        }
        self.previous.clear();
        for (inflight, stage) in &current {
            let _ = self.previous.push((inflight.seq, *stage));
        }
        Ok(())
    }
}
