//! Command-line options of spusim.

use std::fmt;
use std::path::PathBuf;

use pmprobe::spu::pipeline::Config;
use pmprobe::spu::pipeline::FetchKind;

use crate::attach::{Attachments, parse_pmu_events};

/// Simulation mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Functional execution, one cycle per instruction.
    Instruction,
    /// The cycle-level pipeline model.
    Pipeline,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Instruction => "instruction",
            Mode::Pipeline => "pipeline",
        })
    }
}

/// Default `--max-cycles`: keeps a program that never stops from running forever.
pub const DEFAULT_MAX_CYCLES: u64 = 100_000_000;

/// Parsed options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub mode: Mode,
    pub max_cycles: u64,
    pub dump_registers: bool,
    pub disassemble: bool,
    pub program: PathBuf,
    /// Pipeline options (`--fetch`, `--preset`, `--config`, `--stats`, `--timing`).
    pub pipeline: PipelineOptions,
    /// Listeners on the SPU's probe points (`--pmu`, `--stack-distance`, `--din`).
    pub attachments: Attachments,
}

/// Options of the pipeline mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineOptions {
    /// `--fetch ideal|real`.
    pub fetch: FetchKind,
    /// `--preset cell|celledp` plus every `--config key=value`, applied in order.
    pub config: Config,
    /// `--stats`: print the statistics block at the end.
    pub stats: bool,
    /// `--timing`: print the static timing listing of `.text` before running.
    pub timing: bool,
    /// `--trace`: print a trace frame after every cycle in `trace_from..=trace_to`.
    pub trace: bool,
    /// `--trace-from C` (default 0).
    pub trace_from: u64,
    /// `--trace-to C` (default: no end).
    pub trace_to: u64,
    /// `--konata FILE`: write a Kanata pipeline log for the Konata viewer.
    pub konata: Option<PathBuf>,
    /// Off with `--no-fast-forward`: simulate every cycle even where a loop iteration
    /// repeats an earlier one exactly (ideal fetch).
    pub fast_forward: bool,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        PipelineOptions {
            fetch: FetchKind::Real,
            config: Config::cell(),
            stats: false,
            timing: false,
            trace: false,
            trace_from: 0,
            trace_to: u64::MAX,
            konata: None,
            fast_forward: true,
        }
    }
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Run(Options),
    Help,
}

pub const USAGE: &str = "\
usage: spusim [options] prog.s
       cargo spusim -- [options] prog.s

Assembles an SPU assembly file, loads it at local-store address 0, runs it from
`_start` (or 0) and prints the profiling checkpoint lines (prof_cpN, written as
`and $N,$N,$N`) and a final line with the stop reason, PC, instruction count and
cycle count.

options:
  --mode instruction|pipeline  simulation mode (default: pipeline)
  --fetch real|ideal           pipeline fetch model (default: real: the fetch
                               unit: line buffers, LS pipe, branch hints, unhinted
                               branches predicted not taken, mispredicts; ideal:
                               the correct path is always available, no branch
                               penalty, as spu_timing assumes)
  --preset cell|celledp        pipeline configuration preset (default: cell)
  --config key=value           set a configuration parameter (repeatable, applied
                               after the preset), e.g. spu/pipe/FPD/stall=0,
                               spu/feature/dp-dual=TRUE
  --stats                      print the pipeline statistics at the end
  --no-fast-forward            simulate every cycle (by default, under ideal
                               fetch, loop iterations that exactly repeat an
                               earlier one are fast-forwarded: same results)
  --timing                     print the static timing listing (spu_timing style)
                               of .text before running
  --pmu EVENT,...              count PMU events on an emulated PMUv3 (N = 6 + the
                               cycle counter) fed by the SPU's probe points and
                               print the counts, e.g. --pmu CPU_CYCLES,INST_RETIRED,
                               LD_RETIRED,ST_RETIRED,BR_RETIRED,BR_MIS_PRED
                               (also STALL_FRONTEND, STALL_BACKEND)
  --stack-distance             print the stack distance histogram of the LS data
                               accesses (16-byte lines, log2 bins)
  --din FILE                   write the LS data accesses to FILE as a Dinero IV
                               din trace (`0 addr` read, `1 addr` write, hex)
  --trace                      print a pipeline trace frame after every cycle
  --trace-from C, --trace-to C only trace cycles C.. / ..C (implies --trace)
  --konata FILE                write the run as a Kanata log for the Konata
                               pipeline viewer
  --max-cycles N               stop with an error after N cycles
                               (default: 100000000)
  --regs                       print the non-zero registers at the end
  --disasm                     print the assembled listing before running
  -h, --help                   print this help

exit status: 0 when the program executes `stop`/`stopd`; 1 for a halt
instruction; 2 for a usage error, an unreadable file, an assembly error
(`file:line:col: message`) or a file without instructions; 3 for a fault (illegal instruction, unsupported
channel), a blocked channel or --max-cycles exceeded.
";

/// A command-line error (printed with the usage hint).
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Parses the arguments after the program name.
pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Command, UsageError> {
    let mut mode = Mode::Pipeline;
    let mut pipeline = PipelineOptions::default();
    let mut preset = Config::cell();
    let mut assignments: Vec<String> = Vec::new();
    let mut max_cycles = DEFAULT_MAX_CYCLES;
    let mut dump_registers = false;
    let mut disassemble = false;
    let mut attachments = Attachments::default();
    let mut program = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (name, inline_value) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => {
                (name.to_string(), Some(value.to_string()))
            }
            _ => (arg.clone(), None),
        };
        let mut value = |option: &str| {
            inline_value
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| UsageError(format!("{option} needs a value")))
        };
        match name.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--mode" => {
                mode = match value("--mode")?.as_str() {
                    "instruction" => Mode::Instruction,
                    "pipeline" => Mode::Pipeline,
                    other => {
                        return Err(UsageError(format!(
                            "unknown mode `{other}`, expected `instruction` or `pipeline`"
                        )));
                    }
                }
            }
            "--max-cycles" => {
                let text = value("--max-cycles")?;
                max_cycles = text.parse().map_err(|_| {
                    UsageError(format!("--max-cycles expects a number, found `{text}`"))
                })?;
            }
            "--fetch" => {
                let text = value("--fetch")?;
                pipeline.fetch = FetchKind::from_name(&text).ok_or_else(|| {
                    UsageError(format!(
                        "unknown fetch model `{text}`, expected `ideal` or `real`"
                    ))
                })?;
            }
            "--preset" => {
                let text = value("--preset")?;
                preset = Config::preset(&text).ok_or_else(|| {
                    UsageError(format!(
                        "unknown preset `{text}`, expected `cell` or `celledp`"
                    ))
                })?;
            }
            "--config" => assignments.push(value("--config")?),
            "--pmu" => {
                attachments.pmu_events = parse_pmu_events(&value("--pmu")?).map_err(UsageError)?;
            }
            "--stack-distance" => attachments.stack_distance = true,
            "--din" => attachments.din = Some(PathBuf::from(value("--din")?)),
            "--stats" => pipeline.stats = true,
            "--no-fast-forward" => pipeline.fast_forward = false,
            "--trace" => pipeline.trace = true,
            "--konata" => pipeline.konata = Some(PathBuf::from(value("--konata")?)),
            "--trace-from" | "--trace-to" => {
                let text = value(&name)?;
                let cycle: u64 = text.parse().map_err(|_| {
                    UsageError(format!("{name} expects a cycle number, found `{text}`"))
                })?;
                pipeline.trace = true;
                if name == "--trace-from" {
                    pipeline.trace_from = cycle;
                } else {
                    pipeline.trace_to = cycle;
                }
            }
            "--timing" => pipeline.timing = true,
            "--regs" => dump_registers = true,
            "--disasm" => disassemble = true,
            "--" => {}
            flag if flag.starts_with('-') && flag != "-" => {
                return Err(UsageError(format!("unknown option `{flag}`")));
            }
            _ => {
                if program.replace(PathBuf::from(&arg)).is_some() {
                    return Err(UsageError("more than one program file given".into()));
                }
            }
        }
    }
    let program = program.ok_or_else(|| UsageError("no program file given".into()))?;
    if attachments.any() && (pipeline.trace || pipeline.konata.is_some()) {
        return Err(UsageError(
            "--pmu/--stack-distance/--din cannot be combined with --trace/--konata yet".into(),
        ));
    }
    pipeline.config = preset;
    for assignment in &assignments {
        pipeline
            .config
            .configure_assignment(assignment)
            .map_err(|error| UsageError(format!("--config: {error}")))?;
    }
    Ok(Command::Run(Options {
        mode,
        max_cycles,
        dump_registers,
        disassemble,
        program,
        pipeline,
        attachments,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_all_options() {
        let command = parse(args(&[
            "--mode",
            "pipeline",
            "--max-cycles=50",
            "--regs",
            "--disasm",
            "p.s",
        ]));
        assert_eq!(
            command,
            Ok(Command::Run(Options {
                mode: Mode::Pipeline,
                max_cycles: 50,
                dump_registers: true,
                disassemble: true,
                program: PathBuf::from("p.s"),
                pipeline: PipelineOptions::default(),
                attachments: Attachments::default(),
            }))
        );
    }

    #[test]
    fn rejects_bad_input() {
        assert!(parse(args(&["--mode", "fast", "p.s"])).is_err());
        assert!(parse(args(&["--max-cycles", "x", "p.s"])).is_err());
        assert!(parse(args(&["--frobnicate", "p.s"])).is_err());
        assert!(parse(args(&[])).is_err());
        assert!(parse(args(&["a.s", "b.s"])).is_err());
        assert_eq!(parse(args(&["--help"])), Ok(Command::Help));
        assert!(parse(args(&["--fetch", "fast", "p.s"])).is_err());
        assert!(parse(args(&["--preset", "ps3", "p.s"])).is_err());
        assert!(parse(args(&["--config", "spu/pipe/FPX/depth=3", "p.s"])).is_err());
        assert!(parse(args(&["--config", "spu/pipe/FP6/depth=0", "p.s"])).is_err());
        assert!(parse(args(&["--config", "spu/feature/dp-dual", "p.s"])).is_err());
        assert!(parse(args(&["--pmu", "NO_SUCH_EVENT", "p.s"])).is_err());
        assert!(parse(args(&["--pmu", "INST_RETIRED,INST_RETIRED", "p.s"])).is_err());
        // Seven events other than CPU_CYCLES do not fit on six event counters.
        let seven = "INST_RETIRED,LD_RETIRED,ST_RETIRED,BR_RETIRED,BR_MIS_PRED,STALL_FRONTEND,STALL_BACKEND";
        assert!(parse(args(&["--pmu", seven, "p.s"])).is_err());
        assert!(
            parse(args(&["--din", "p.s"])).is_err(),
            "--din takes the file"
        );
    }

    #[test]
    fn listener_options() {
        let Ok(Command::Run(options)) = parse(args(&[
            "--pmu",
            "CPU_CYCLES,inst_retired,0x06",
            "--stack-distance",
            "--din=t.din",
            "p.s",
        ])) else {
            panic!("options should parse");
        };
        assert_eq!(
            options.attachments,
            Attachments {
                pmu_events: vec![
                    pmprobe::pmu::Event::CPU_CYCLES,
                    pmprobe::pmu::Event::INST_RETIRED,
                    pmprobe::pmu::Event::LD_RETIRED
                ],
                stack_distance: true,
                din: Some(PathBuf::from("t.din")),
            }
        );
    }

    #[test]
    fn pipeline_options_apply_preset_then_assignments() {
        let Ok(Command::Run(options)) = parse(args(&[
            "--preset",
            "celledp",
            "--config",
            "spu/pipe/FP6/depth=9",
            "--config=spu/feature/sp-dual=FALSE",
            "--stats",
            "--timing",
            "p.s",
        ])) else {
            panic!("options should parse");
        };
        assert_eq!(options.mode, Mode::Pipeline);
        let mut expected = Config::celledp();
        expected.configure("spu/pipe/FP6/depth", "9").unwrap();
        expected.set_sp_dual(false);
        assert_eq!(options.pipeline.config, expected);
        assert!(options.pipeline.stats && options.pipeline.timing);
    }
}
