//! `--threads N`: an lv2 thread group, N SPU threads of one image sharing main memory, run in
//! turns of [`TURN_CYCLES`] cycles each (SPU 0 first), each under its own lv2 runtime.
//!
//! A thread ends on its own (`sys_spu_thread_exit`); `sys_spu_thread_group_exit` ends every
//! thread. A thread that waits on a channel only the host or another thread can serve is tried
//! again in the next round; when a whole round passes with every live thread waiting, they wait
//! for good and the run ends. The group's end is its exit if one thread exited the group, else
//! thread 0's; every thread's final line goes to the report stream.

use std::io::Write;

use pmprobe::spu::exec::RunEnd;
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::runtime::{ProgramEnd, RuntimeKind};
use pmprobe::spu::unit::{Mode as UnitMode, SpuUnit};

use crate::end::End;
use crate::engine::{IoFmt, Summary};
use crate::exit::Failure;
use crate::host::Host;
use crate::options::{Mode, Options};
use crate::program::Loaded;
use crate::runtime_host;

/// Cycles a thread runs before the next one's turn: short enough that threads that talk
/// through main memory (atomics, signals) see each other within a few microseconds of SPU
/// time, long enough that switching costs little.
pub const TURN_CYCLES: u64 = 1024;

/// One thread of the group.
struct Thread {
    unit: Box<SpuUnit>,
    cycles: u64,
    instructions: u64,
    /// How it ended, with the PC to report.
    end: Option<(End, u32)>,
}

/// Runs the group; the group's summary (its end, thread 0's PC, every thread's instructions,
/// the longest thread's cycles).
pub fn run(
    options: &Options,
    program: &Loaded<'_>,
    kind: RuntimeKind,
    host: &mut Host<'_>,
    out: &mut dyn Write,
) -> Result<Summary, Failure> {
    let mut threads = Vec::with_capacity(options.runtime.threads);
    for id in 0..options.runtime.threads {
        let mut unit = Box::new(SpuUnit::new(id as u8));
        program
            .load_into(unit.arch_mut())
            .map_err(|error| Failure::Program(format!("{}: {error}", options.program.display())))?;
        host.prepare(unit.arch_mut(), &options.host);
        runtime_host::start(unit.arch_mut(), kind, &options.runtime, program.entry);
        unit.set_mode(match options.mode {
            Mode::Instruction => UnitMode::Instruction,
            Mode::Pipeline => UnitMode::Pipeline,
        });
        if options.mode == Mode::Pipeline {
            unit.set_config(options.pipeline.config);
            unit.set_fetch(options.pipeline.fetch)
                .map_err(|error| Failure::Model(error.to_string()))?;
        }
        threads.push(Thread {
            unit,
            cycles: 0,
            instructions: 0,
            end: None,
        });
    }
    let mut group_end = None;
    while group_end.is_none() && threads.iter().any(|thread| thread.end.is_none()) {
        let mut progressed = false;
        let mut waiting = Vec::new();
        for thread in threads.iter_mut().filter(|thread| thread.end.is_none()) {
            let (ran, waited) = take_turn(thread, options, host, out)?;
            progressed |= ran;
            if let Some(end) = waited {
                waiting.push((thread.unit.id(), end));
            }
            if let Some((End::Program(ProgramEnd::GroupExit { .. }), _)) = thread.end {
                group_end = thread.end;
                break;
            }
        }
        if !progressed {
            // Every live thread waited the whole round: nothing will wake them.
            for (id, end) in waiting {
                if let Some(thread) = threads.get_mut(usize::from(id)) {
                    thread.end = Some((end, thread.unit.arch().pc()));
                }
            }
        }
    }
    for thread in &threads {
        let (end, pc) = thread.end.or(group_end).unwrap_or((
            End::CycleLimit {
                limit: options.max_cycles,
            },
            thread.unit.arch().pc(),
        ));
        let summary = Summary {
            end,
            pc,
            instructions: thread.instructions,
            cycles: thread.cycles,
            dma_fault: thread.unit.arch().dma_fault(),
        };
        writeln!(out, "SPU{}: {}", thread.unit.id(), summary.final_line())
            .map_err(Failure::stdout)?;
    }
    let first = &threads[0];
    let (end, pc) = group_end.or(first.end).unwrap_or((
        End::CycleLimit {
            limit: options.max_cycles,
        },
        first.unit.arch().pc(),
    ));
    Ok(Summary {
        end,
        pc,
        instructions: threads.iter().map(|thread| thread.instructions).sum(),
        cycles: threads
            .iter()
            .map(|thread| thread.cycles)
            .max()
            .unwrap_or(0),
        dma_fault: first.unit.arch().dma_fault(),
    })
}

/// One turn of `thread`: whether it ran any instruction, and the end it waits at when it waits
/// on a channel nothing served (it is tried again next round).
fn take_turn(
    thread: &mut Thread,
    options: &Options,
    host: &mut Host<'_>,
    out: &mut dyn Write,
) -> Result<(bool, Option<End>), Failure> {
    let remaining = options.max_cycles.saturating_sub(thread.cycles);
    if remaining == 0 {
        thread.end = Some((
            End::CycleLimit {
                limit: options.max_cycles,
            },
            thread.unit.arch().pc(),
        ));
        return Ok((false, None));
    }
    let mut prof = IoFmt::new(&mut *out);
    let outcome = thread
        .unit
        .run(remaining.min(TURN_CYCLES), &NoProbes, &mut prof);
    prof.take_error().map_err(Failure::stdout)?;
    let outcome = outcome.map_err(|error| Failure::Model(error.to_string()))?;
    thread.cycles += outcome.cycles;
    thread.instructions += outcome.instructions;
    let ran = outcome.instructions > 0;
    match outcome.end {
        RunEnd::Stopped(reason) => {
            if let Some(end) = host.on_stop(thread.unit.arch_mut(), reason)? {
                thread.end = Some((end, reason.pc()));
            }
            Ok((true, None))
        }
        RunEnd::CycleLimit => Ok((ran, None)),
        RunEnd::Blocked { channel } => {
            match host.service(thread.unit.arch_for_channels(), channel, out)? {
                None => Ok((true, None)),
                Some(end) => Ok((ran, Some(end))),
            }
        }
    }
}
