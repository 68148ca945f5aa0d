//! spusim: assemble an SPU assembly file and run it on the pmprobe SPU model.
//!
//! `cargo spusim -- [options] prog.s`; see `--help` (text in `options.rs`).

mod attach;
mod engine;
mod listing;
mod options;
mod pipeline_engine;

use std::io::{self, Write};
use std::process::ExitCode;

use pmprobe::spu::exec::{ChannelOperation, FaultKind, LS_SIZE, SpuState, StopReason};
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::unit::SpuUnit;

use engine::{End, Summary, engine_for_options};
use options::{Command, Options, USAGE};

/// Labels an assembled program may define.
const SYMBOL_CAPACITY: usize = 4096;

const EXIT_STOP: u8 = 0;
const EXIT_HALT: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_RUN_ERROR: u8 = 3;

fn main() -> ExitCode {
    let command = match options::parse(std::env::args().skip(1)) {
        Ok(command) => command,
        Err(error) => {
            eprintln!("spusim: {error}\n\n{USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match command {
        Command::Help => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Command::Run(options) => match simulate(&options) {
            Ok(code) => ExitCode::from(code),
            Err(error) => {
                eprintln!("spusim: {error}");
                ExitCode::from(EXIT_USAGE)
            }
        },
    }
}

fn simulate(options: &Options) -> Result<u8, String> {
    let path = options.program.display();
    let source = std::fs::read_to_string(&options.program)
        .map_err(|error| format!("cannot read `{path}`: {error}"))?;
    let mut image = vec![0u8; LS_SIZE as usize];
    let program = match assemble::<SYMBOL_CAPACITY>(&source, &mut image) {
        Ok(program) => program,
        Err(error) => {
            // AsmError displays as `line:col: message`.
            eprintln!("{path}:{error}");
            return Ok(EXIT_USAGE);
        }
    };
    if program.text_len == 0 {
        // Running it would execute whatever the zeroed local store holds (`stop 0`) and look
        // like success.
        eprintln!("{path}: no instructions to run (the file is empty or has no code)");
        return Ok(EXIT_USAGE);
    }
    let mut engine = engine_for_options(options)?;

    let stdout = io::stdout();
    let mut out = stdout.lock();
    let io_error = |error: io::Error| format!("cannot write output: {error}");
    if options.disassemble {
        listing::print_listing(&mut out, &program, &image).map_err(io_error)?;
    }
    if options.mode == options::Mode::Pipeline && options.pipeline.timing {
        let text = image.get(..program.text_len).unwrap_or_default();
        listing::print_timing(&mut out, text, &options.pipeline.config).map_err(io_error)?;
    }
    let image = image.get(..program.len).unwrap_or_default();
    let summary = if options.attachments.any() {
        // With listeners: the SPU unit (either mode) under probes, see attach.rs.
        let mut unit = Box::new(SpuUnit::new(0));
        unit.load_program(image, program.entry)
            .map_err(|error| error.to_string())?;
        let summary = attach::run(&mut unit, options, &options.attachments, &mut out)?;
        if options.mode == options::Mode::Pipeline && options.pipeline.stats {
            let mut text = String::new();
            let _ = unit.print_stats(&mut text);
            out.write_all(text.as_bytes()).map_err(io_error)?;
        }
        if options.dump_registers {
            listing::print_registers(&mut out, unit.arch()).map_err(io_error)?;
        }
        summary
    } else {
        let mut spu = Box::new(SpuState::new(0));
        spu.load_program(image, program.entry)
            .map_err(|error| error.to_string())?;
        let summary = engine
            .run(&mut spu, options.max_cycles, &mut out)
            .map_err(io_error)?;
        if options.dump_registers {
            listing::print_registers(&mut out, &spu).map_err(io_error)?;
        }
        summary
    };
    writeln!(out, "{}", final_line(&summary)).map_err(io_error)?;
    out.flush().map_err(io_error)?;
    Ok(match summary.end {
        End::Stopped(StopReason::Stop { .. }) => EXIT_STOP,
        End::Stopped(StopReason::Halt { .. }) => EXIT_HALT,
        End::Stopped(StopReason::Fault(_)) | End::Blocked { .. } | End::CycleLimit { .. } => {
            eprintln!("spusim: {}", reason(&summary.end));
            EXIT_RUN_ERROR
        }
    })
}

fn reason(end: &End) -> String {
    match end {
        End::Stopped(StopReason::Stop { signal, .. }) => format!("stop {signal:#06x}"),
        End::Stopped(StopReason::Halt { .. }) => "halt".to_string(),
        End::Stopped(StopReason::Fault(fault)) => match fault.kind {
            FaultKind::IllegalInstruction => {
                format!("fault: illegal instruction {:#010x}", fault.word)
            }
            FaultKind::UnsupportedChannel { channel, access } => {
                let instruction = match access {
                    ChannelOperation::Read => "rdch",
                    ChannelOperation::Write => "wrch",
                    ChannelOperation::Count => "rchcnt",
                };
                format!(
                    "fault: {instruction} on unsupported channel {channel} (word {:#010x})",
                    fault.word
                )
            }
        },
        End::Blocked { channel } => {
            format!("blocked: channel {channel} waits for data the host never sends")
        }
        End::CycleLimit { limit } => format!("error: --max-cycles {limit} exceeded"),
    }
}

/// `<reason> at pc 0x.....: <n> instructions, <c> cycles`
fn final_line(summary: &Summary) -> String {
    format!(
        "{} at pc {:#07x}: {} instructions, {} cycles",
        reason(&summary.end),
        summary.pc,
        summary.instructions,
        summary.cycles
    )
}
