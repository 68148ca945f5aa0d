//! Command-line options of spusim, parsed from `OsString`s: file names need not be UTF-8;
//! option names and the values that are words or numbers must be.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use pmprobe::pmu::Event;

pub use crate::pmu_option::{PMU_EVENT_COUNTERS, parse_pmu_events};

pub use crate::host_options::HostOptions;
pub use crate::link_options::LinkOptions;
use crate::option_words::{is_option, split_option};
pub use crate::runtime_options::RuntimeOptions;
use pmprobe::spu::pipeline::Config;
use pmprobe::spu::pipeline::FetchKind;

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
/// Default `--read-timeout`.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Parsed options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub mode: Mode,
    pub max_cycles: u64,
    pub dump_registers: bool,
    pub disassemble: bool,
    pub program: PathBuf,
    /// `--read-timeout`: how long the program file may send nothing before spusim gives up.
    pub read_timeout: Duration,
    /// Pipeline options (`--fetch`, `--preset`, `--config`, `--stats`, `--timing`, ...).
    pub pipeline: PipelineOptions,
    /// Listeners on the SPU's probe points (`--pmu`, `--stack-distance`, `--din`).
    pub attachments: Attachments,
    /// `--elf FILE`: write the assembled program as an SPU ELF executable.
    pub elf_output: Option<PathBuf>,
    /// Main memory, what the host gives the SPU, the MFC's timing.
    pub host: HostOptions,
    /// The runtime that answers the program's calls, and its start.
    pub runtime: RuntimeOptions,
    /// More source files, `--defsym`, `--objdump`.
    pub link: LinkOptions,
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
    /// Off with `--no-stall-skip`: simulate issue and fetch in every stalled cycle too.
    pub stall_skip: bool,
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
            stall_skip: true,
        }
    }
}

/// The listeners to attach to the SPU's probe points.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attachments {
    /// `--pmu EVENT,...`: the events the emulated PMU counts.
    pub pmu_events: Vec<Event>,
    /// `--stack-distance`.
    pub stack_distance: bool,
    /// `--din FILE`.
    pub din: Option<PathBuf>,
}

impl Attachments {
    /// Whether any listener was asked for.
    pub fn any(&self) -> bool {
        !self.pmu_events.is_empty() || self.stack_distance || self.din.is_some()
    }
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
// Made once per process: boxing the options would only add an indirection to every use.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    Run(Options),
    Help,
}

/// A command-line error (printed with the usage text, exit 2).
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Flags: options without a value.
const FLAGS: [&str; 11] = [
    "--objdump",
    "-h",
    "--help",
    "--stack-distance",
    "--stats",
    "--no-fast-forward",
    "--no-stall-skip",
    "--trace",
    "--timing",
    "--regs",
    "--disasm",
];

/// The arguments still to parse.
struct Args<I> {
    rest: I,
}

impl<I: Iterator<Item = OsString>> Args<I> {
    /// The value of option `name`: the text after `=`, else the next argument.
    fn value(&mut self, name: &str, inline: Option<OsString>) -> Result<OsString, UsageError> {
        inline
            .or_else(|| self.rest.next())
            .ok_or_else(|| UsageError(format!("{name} needs a value")))
    }

    /// A value that must be text (a word, a number, a list).
    fn text(&mut self, name: &str, inline: Option<OsString>) -> Result<String, UsageError> {
        self.value(name, inline)?.into_string().map_err(|value| {
            UsageError(format!(
                "{name}: the value `{}` is not UTF-8 text",
                value.to_string_lossy()
            ))
        })
    }

    /// A file name value (any bytes, not empty).
    fn file(&mut self, name: &str, inline: Option<OsString>) -> Result<PathBuf, UsageError> {
        let value = self.value(name, inline)?;
        if value.is_empty() {
            return Err(UsageError(format!("{name} needs a file name, found ``")));
        }
        Ok(PathBuf::from(value))
    }

    fn number(&mut self, name: &str, inline: Option<OsString>) -> Result<u64, UsageError> {
        let text = self.text(name, inline)?;
        text.parse()
            .map_err(|_| UsageError(format!("{name} expects a number, found `{text}`")))
    }
}

/// Parses the arguments after the program name. Never panics, whatever the arguments.
pub fn parse<I>(args: I) -> Result<Command, UsageError>
where
    I: IntoIterator,
    I::Item: Into<OsString>,
{
    let mut mode = Mode::Pipeline;
    let mut pipeline = PipelineOptions::default();
    let mut preset = Config::cell();
    let mut assignments: Vec<String> = Vec::new();
    let mut max_cycles = DEFAULT_MAX_CYCLES;
    let mut read_timeout = DEFAULT_READ_TIMEOUT;
    let mut dump_registers = false;
    let mut disassemble = false;
    let mut attachments = Attachments::default();
    let mut elf_output = None;
    let mut host = HostOptions::default();
    let mut runtime = RuntimeOptions::default();
    let mut link = LinkOptions::default();
    let mut program = None;
    let mut options_ended = false;
    let mut args = Args {
        rest: args.into_iter().map(Into::into),
    };
    while let Some(arg) = args.rest.next() {
        if options_ended || !is_option(&arg) {
            // The first file is the program; more are sources linked with it.
            match program {
                None => program = Some(PathBuf::from(&arg)),
                Some(_) => link.more_sources.push(PathBuf::from(&arg)),
            }
            continue;
        }
        let (name, inline) = split_option(&arg).map_err(UsageError)?;
        if let Some(value) = &inline
            && FLAGS.contains(&name.as_str())
        {
            return Err(UsageError(format!(
                "{name} is a flag and takes no value, found `{name}={}` (leave the flag out to turn it off)",
                value.to_string_lossy()
            )));
        }
        match name.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--" => options_ended = true,
            "--mode" => {
                mode = match args.text(&name, inline)?.as_str() {
                    "instruction" => Mode::Instruction,
                    "pipeline" => Mode::Pipeline,
                    other => {
                        return Err(UsageError(format!(
                            "unknown mode `{other}`, expected `instruction` or `pipeline`"
                        )));
                    }
                }
            }
            "--max-cycles" => max_cycles = args.number(&name, inline)?,
            "--read-timeout" => {
                let seconds = args.number(&name, inline)?;
                if seconds == 0 {
                    return Err(UsageError(
                        "--read-timeout must be at least 1 second".into(),
                    ));
                }
                read_timeout = Duration::from_secs(seconds);
            }
            "--fetch" => {
                let text = args.text(&name, inline)?;
                pipeline.fetch = FetchKind::from_name(&text).ok_or_else(|| {
                    UsageError(format!(
                        "unknown fetch model `{text}`, expected `ideal` or `real`"
                    ))
                })?;
            }
            "--preset" => {
                let text = args.text(&name, inline)?;
                preset = Config::preset(&text).ok_or_else(|| {
                    UsageError(format!(
                        "unknown preset `{text}`, expected `cell` or `celledp`"
                    ))
                })?;
            }
            "--config" => assignments.push(args.text(&name, inline)?),
            "--pmu" => {
                attachments.pmu_events =
                    parse_pmu_events(&args.text(&name, inline)?).map_err(UsageError)?;
            }
            "--stack-distance" => attachments.stack_distance = true,
            "--din" => attachments.din = Some(args.file(&name, inline)?),
            "--elf" => elf_output = Some(args.file(&name, inline)?),
            "--stats" => pipeline.stats = true,
            "--no-fast-forward" => pipeline.fast_forward = false,
            "--no-stall-skip" => pipeline.stall_skip = false,
            "--trace" => pipeline.trace = true,
            "--konata" => pipeline.konata = Some(args.file(&name, inline)?),
            "--trace-from" | "--trace-to" => {
                let cycle = args.text(&name, inline).and_then(|text| {
                    text.parse::<u64>().map_err(|_| {
                        UsageError(format!("{name} expects a cycle number, found `{text}`"))
                    })
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
            _ if RuntimeOptions::NAMES.contains(&name.as_str()) => {
                let text = args.text(&name, inline)?;
                runtime.take(&name, &text).map_err(UsageError)?;
            }
            _ if link.take_flag(&name) => {}
            _ => {
                let mut value = || args.text(&name, inline.clone()).map_err(|e| e.0);
                let taken = link.take(&name, &mut value).map_err(UsageError)?
                    || host.take(&name, &mut value).map_err(UsageError)?;
                if !taken {
                    return Err(UsageError(format!("unknown option `{name}`")));
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
        read_timeout,
        pipeline,
        attachments,
        elf_output,
        host,
        runtime,
        link,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `list` as the command line's arguments.
    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// The options `list` parses to; panics when it is not a run.
    fn run_options(list: &[&str]) -> Options {
        match parse(args(list)) {
            Ok(Command::Run(options)) => options,
            other => panic!("{list:?} should parse, got {other:?}"),
        }
    }

    fn error(list: Vec<OsString>) -> String {
        match parse(list) {
            Err(UsageError(message)) => message,
            other => panic!("should be refused, got {other:?}"),
        }
    }

    #[test]
    fn parses_all_options() {
        let command = parse(args(&[
            "--mode",
            "pipeline",
            "--max-cycles=50",
            "--read-timeout",
            "3",
            "--regs",
            "--disasm",
            "--elf=p.elf",
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
                read_timeout: Duration::from_secs(3),
                pipeline: PipelineOptions::default(),
                attachments: Attachments::default(),
                elf_output: Some(PathBuf::from("p.elf")),
                host: HostOptions::default(),
                runtime: RuntimeOptions::default(),
                link: LinkOptions::default(),
            }))
        );
    }

    #[test]
    fn rejects_bad_input() {
        assert!(parse(args(&["--mode", "fast", "p.s"])).is_err());
        assert!(parse(args(&["--max-cycles", "x", "p.s"])).is_err());
        assert!(parse(args(&["--read-timeout", "0", "p.s"])).is_err());
        assert!(parse(args(&["--frobnicate", "p.s"])).is_err());
        assert!(parse(args(&[])).is_err());
        let linked = run_options(&["a.s", "b.s", "--defsym", "x=1", "c.S"]).link;
        assert_eq!(
            linked.more_sources,
            [PathBuf::from("b.s"), PathBuf::from("c.S")]
        );
        assert_eq!(linked.definitions, ["x=1"]);
        assert!(parse(args(&["--defsym", "x", "a.s"])).is_err());
        assert!(parse(args(&["--objdump=yes", "a.s"])).is_err());
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
        assert!(
            parse(args(&["--din=", "p.s"])).is_err(),
            "an empty file name"
        );
    }

    #[test]
    fn flags_take_no_value() {
        for flag in FLAGS.iter().filter(|flag| flag.starts_with("--")) {
            for value in ["false", "true", ""] {
                let message = error(vec![format!("{flag}={value}").into(), "p.s".into()]);
                assert!(
                    message.contains(flag) && message.contains("takes no value"),
                    "{flag}={value}: {message}"
                );
            }
        }
        // Without `=`, the flag is on; left out, it is off.
        assert!(run_options(&["--stats", "p.s"]).pipeline.stats);
        assert!(!run_options(&["p.s"]).pipeline.stats);
    }

    #[test]
    fn double_dash_ends_the_options() {
        assert_eq!(
            run_options(&["--", "-odd-name.s"]).program,
            PathBuf::from("-odd-name.s")
        );
        assert_eq!(run_options(&["-"]).program, PathBuf::from("-"));
        let linked = run_options(&["--", "a.s", "--stats"]);
        assert_eq!(
            linked.link.more_sources,
            [PathBuf::from("--stats")],
            "a source file"
        );
    }

    #[cfg(unix)]
    #[test]
    fn file_names_need_not_be_utf8() {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        let program = OsString::from_vec(b"prog-\xff\xfe.s".to_vec());
        let din = OsString::from_vec(b"trace-\x80.din".to_vec());
        let mut inline = b"--din=".to_vec();
        inline.extend_from_slice(din.as_bytes());
        for list in [
            vec![OsString::from("--din"), din.clone(), program.clone()],
            vec![OsString::from_vec(inline), program.clone()],
        ] {
            let Ok(Command::Run(options)) = parse(list) else {
                panic!("non-UTF-8 file names should parse");
            };
            assert_eq!(options.program.as_os_str(), program.as_os_str());
            assert_eq!(options.attachments.din.as_deref(), Some(din.as_ref()));
        }
    }

    #[cfg(unix)]
    #[test]
    fn words_and_option_names_must_be_utf8() {
        use std::os::unix::ffi::OsStringExt;
        let bad = || OsString::from_vec(b"x\xffy".to_vec());
        let message = error(vec!["--mode".into(), bad(), "p.s".into()]);
        assert!(
            message.contains("--mode") && message.contains("not UTF-8"),
            "{message}"
        );
        let mut name = b"--st\xffts".to_vec();
        let message = error(vec![OsString::from_vec(name.clone()), "p.s".into()]);
        assert!(
            message.contains("unknown option `--st\u{fffd}ts`"),
            "{message}"
        );
        name.extend_from_slice(b"=1");
        let message = error(vec![OsString::from_vec(name), "p.s".into()]);
        assert!(message.contains("unknown option"), "{message}");
    }

    #[test]
    fn listener_options() {
        let options = run_options(&[
            "--pmu",
            "CPU_CYCLES,inst_retired,0x06",
            "--stack-distance",
            "--din=t.din",
            "p.s",
        ]);
        assert_eq!(
            options.attachments,
            Attachments {
                pmu_events: vec![Event::CPU_CYCLES, Event::INST_RETIRED, Event::LD_RETIRED],
                stack_distance: true,
                din: Some(PathBuf::from("t.din")),
            }
        );
    }

    #[test]
    fn pipeline_options_apply_preset_then_assignments() {
        let options = run_options(&[
            "--preset",
            "celledp",
            "--config",
            "spu/pipe/FP6/depth=9",
            "--config=spu/feature/sp-dual=FALSE",
            "--stats",
            "--timing",
            "p.s",
        ]);
        assert_eq!(options.mode, Mode::Pipeline);
        let mut expected = Config::celledp();
        expected.configure("spu/pipe/FP6/depth", "9").unwrap();
        expected.set_sp_dual(false);
        assert_eq!(options.pipeline.config, expected);
        assert!(options.pipeline.stats && options.pipeline.timing);
    }
}
