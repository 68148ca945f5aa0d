//! The whole run: command line, program, engine, final line, exit status.

use std::cell::RefCell;
use std::ffi::OsString;
use std::io::Write;

use pmprobe::spu::exec::{SpuState, StopReason};
use pmprobe::spu::runtime::RuntimeKind;
use pmprobe::spu::unit::SpuUnit;

use crate::engine::{End, Engine, Summary};
use crate::exit::{EXIT_HALT, EXIT_RUN_ERROR, EXIT_STOP, EXIT_USAGE, Failure};
use crate::host::{Host, print_dma_stats};
use crate::instruction_engine::InstructionEngine;
use crate::options::{self, Command, Mode, Options};
use crate::pipeline_engine::{PipelineEngine, Shortcuts};
use crate::program::Loaded;
use crate::runtime_host::{self, RuntimeHost, SharedWrite};
use crate::usage::USAGE;
use crate::{attach, elf_output, group, listing, outputs, source};

/// spusim with the arguments after the program name, printing to `out` and `err`; returns
/// the exit status (0 to 3, see [`crate::exit`]).
pub fn run<I>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> u8
where
    I: IntoIterator,
    I::Item: Into<OsString>,
{
    match options::parse(args) {
        Err(error) => {
            let _ = write!(err, "spusim: {error}\n\n{USAGE}");
            EXIT_USAGE
        }
        Ok(Command::Help) => match out.write_all(USAGE.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => EXIT_STOP,
            Err(error) => {
                Failure::stdout(error).report(err);
                EXIT_USAGE
            }
        },
        Ok(Command::Run(options)) => simulate(&options, out, err),
    }
}

/// Assembles (or reads, for an ELF file) and runs the program `options` name; returns the
/// exit status.
pub fn simulate(options: &Options, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    if options.link.objdump {
        return crate::objdump_output::print(options, out, err);
    }
    let err = RefCell::new(err);
    let result = try_simulate(options, out, &err);
    exit_status(result, *err.borrow_mut())
}

/// The exit status of a run, printing why it failed to `err`.
fn exit_status(result: Result<Summary, Failure>, err: &mut dyn Write) -> u8 {
    let summary = match result {
        Ok(summary) => summary,
        Err(failure) => {
            failure.report(err);
            return failure.exit_code();
        }
    };
    match summary.end {
        End::Stopped(StopReason::Stop { .. }) => EXIT_STOP,
        End::Stopped(StopReason::Halt { .. }) => EXIT_HALT,
        // The program's own exit status, as a process running it would exit with.
        End::Program(end) => end.exit_status(),
        End::Stopped(StopReason::Fault(_))
        | End::Blocked { .. }
        | End::CycleLimit { .. }
        | End::Refused(_)
        | End::WaitingForEvent { .. } => {
            let _ = writeln!(err, "spusim: {}", summary.reason());
            EXIT_RUN_ERROR
        }
    }
}

/// Runs the program. Without a runtime everything spusim prints goes to `out`; with one, the
/// program's text goes to `out` unchanged and spusim's own lines (checkpoints, mailboxes,
/// listings, statistics, the final line) go to `err`, with the program's standard error.
/// Warnings (a `_start` that is not where the program starts) always go to `err`.
fn try_simulate(
    options: &Options,
    program_out: &mut dyn Write,
    err: &RefCell<&mut dyn Write>,
) -> Result<Summary, Failure> {
    // Before anything is read or created: an output must never replace the program.
    outputs::refuse_overwriting_inputs(options)?;
    let path = options.program.display();
    let files = source::read_programs(options)?;
    let paths = source::program_files(options);
    let program = Loaded::from_files(&paths, &files, &options.link.definitions)?;
    for warning in &program.warnings {
        let _ = writeln!(err.borrow_mut(), "spusim: {warning}");
    }
    if let Some(elf_path) = &options.elf_output {
        elf_output::write(elf_path, &program, &paths)?;
    }
    let mut engine = engine_for(options)?;
    let kind = options
        .runtime
        .kind
        .unwrap_or_else(|| program.detected_runtime());
    let mut shared_err = SharedWrite(err);
    let (out, runtime): (&mut dyn Write, _) = if kind == RuntimeKind::None {
        if !options.runtime.event_queues.is_empty() || !options.runtime.event_ports.is_empty() {
            return Err(Failure::Io(
                "--event-queue and --event-port need a runtime: --runtime lv2".into(),
            ));
        }
        (program_out, None)
    } else {
        let stderr = Box::new(SharedWrite(err));
        let runtime =
            RuntimeHost::new(kind, &options.runtime, program_out, stderr).map_err(Failure::Io)?;
        (&mut shared_err, runtime)
    };

    if options.disassemble {
        listing::print_listing(out, &program).map_err(Failure::stdout)?;
    }
    if options.mode == Mode::Pipeline && options.pipeline.timing {
        listing::print_timing(out, &program, &options.pipeline.config).map_err(Failure::stdout)?;
    }
    let not_loaded =
        |error: pmprobe::spu::exec::ImageTooLarge| Failure::Program(format!("{path}: {error}"));
    let mut host = Host::new(&options.host, runtime)?;
    let summary = if options.runtime.threads > 1 {
        if options.attachments.any() || options.pipeline.trace || options.pipeline.konata.is_some()
        {
            return Err(Failure::Io(
                "--threads runs a group of SPUs; --pmu, --stack-distance, --din, --trace and \
                 --konata observe one SPU: leave them out"
                    .into(),
            ));
        }
        group::run(options, &program, kind, &mut host, out)?
    } else if options.attachments.any() {
        // With listeners: the SPU unit (either mode) under probes, see attach.rs.
        let mut unit = Box::new(SpuUnit::new(0));
        program.load_into(unit.arch_mut()).map_err(not_loaded)?;
        host.prepare(unit.arch_mut(), &options.host);
        runtime_host::start(unit.arch_mut(), kind, &options.runtime, program.entry);
        let summary = attach::run(&mut unit, options, &mut host, out)?;
        if options.mode == Mode::Pipeline && options.pipeline.stats {
            let mut text = String::new();
            let _ = unit.print_stats(&mut text);
            out.write_all(text.as_bytes()).map_err(Failure::stdout)?;
        }
        finish(options, &host, unit.arch(), out)?;
        summary
    } else {
        let mut spu = Box::new(SpuState::new(0));
        program.load_into(&mut spu).map_err(not_loaded)?;
        host.prepare(&mut spu, &options.host);
        runtime_host::start(&mut spu, kind, &options.runtime, program.entry);
        let summary = engine.run(&mut spu, options.max_cycles, &mut host, out)?;
        finish(options, &host, &spu, out)?;
        summary
    };
    writeln!(out, "{}", summary.final_line()).map_err(Failure::stdout)?;
    out.flush().map_err(Failure::stdout)?;
    Ok(summary)
}

/// After the run: the DMA figures (`--stats`, both modes), `--ea-dump`, `--regs`.
fn finish(
    options: &Options,
    host: &Host,
    spu: &SpuState,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    if options.pipeline.stats {
        print_dma_stats(spu, out)?;
    }
    host.dump(&options.host, out)?;
    if options.dump_registers {
        listing::print_registers(out, spu).map_err(Failure::stdout)?;
    }
    Ok(())
}

/// The engine for the options (the pipeline engine is configured by them and creates the
/// `--konata` log).
fn engine_for(options: &Options) -> Result<Box<dyn Engine>, Failure> {
    Ok(match options.mode {
        Mode::Instruction => Box::new(InstructionEngine),
        Mode::Pipeline => {
            let settings = &options.pipeline;
            let trace = settings
                .trace
                .then_some((settings.trace_from, settings.trace_to));
            Box::new(PipelineEngine::new(
                settings.config,
                settings.fetch,
                settings.stats,
                trace,
                settings.konata.as_deref(),
                Shortcuts {
                    fast_forward: settings.fast_forward,
                    stall_skip: settings.stall_skip,
                },
            )?)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No known program makes the model fail (the pipeline fuzz target checks that it never
    /// does), so the path from a model error to the exit status is tested here.
    #[test]
    fn a_model_error_exits_3_with_its_own_message() {
        let error = pmprobe::spu::pipeline::ModelError::PathMismatch {
            pc: 0x10,
            predicted: 0x14,
            actual: 0x40,
        };
        let mut err = Vec::new();
        let status = exit_status(Err(Failure::Model(error.to_string())), &mut err);
        assert_eq!(status, EXIT_RUN_ERROR);
        let message = String::from_utf8_lossy(&err);
        assert!(
            message.starts_with("spusim: pipeline model error: instruction at 0x00010")
                && !message.contains("cannot write"),
            "{message}"
        );
    }

    #[test]
    fn run_ends_are_their_exit_statuses() {
        let summary = |end| Summary {
            end,
            pc: 0,
            instructions: 0,
            cycles: 0,
            dma_fault: None,
        };
        let mut err = Vec::new();
        let limit = End::CycleLimit { limit: 5 };
        assert_eq!(exit_status(Ok(summary(limit)), &mut err), EXIT_RUN_ERROR);
        assert_eq!(
            String::from_utf8_lossy(&err),
            "spusim: error: --max-cycles 5 exceeded\n"
        );
        let halt = End::Stopped(StopReason::Halt { pc: 8 });
        assert_eq!(exit_status(Ok(summary(halt)), &mut err), EXIT_HALT);
    }

    #[test]
    fn help_goes_to_stdout_with_status_0() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(run(["--help"], &mut out, &mut err), EXIT_STOP);
        assert_eq!(out, USAGE.as_bytes());
        assert!(err.is_empty());
    }
}
