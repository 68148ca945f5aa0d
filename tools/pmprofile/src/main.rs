//! `pmprofile [--top N] [--no-inline] [--folded FILE] [--svg FILE] [--firefox FILE]
//! [--perf-data FILE] [--expect FILE] FIRMWARE.elf SAMPLES.pmps`

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use pmprobe::sampling::{ProfileDecoder, ProfileHeader, Sample, SkidHistogram};
use pmprofile::{Profile, SymbolTableOnly, Symbolizer, expect, firefox, perf_data, report};

const USAGE: &str = "usage: pmprofile [--top N] [--no-inline] [--folded FILE] [--svg FILE] \
[--firefox FILE] [--perf-data FILE] [--expect FILE] FIRMWARE.elf SAMPLES.pmps

Symbolizes the samples of a pmprobe profile against the firmware ELF and prints the functions
with the largest share of samples (self: the sample was in the function itself; total: the
function was anywhere on the call stack).

  --top N        rows of the table (default 20)
  --no-inline    name functions by the ELF symbol table only, without inlined functions
                 (the functions `perf report --no-inline` shows)
  --folded FILE  also write folded stacks (`root;...;leaf count` lines)
  --svg FILE     also write a flamegraph SVG
  --firefox FILE also write a Firefox Profiler profile (JSON, one thread per core; open it
                 at profiler.firefox.com, \"Load a profile from file\", or `samply load FILE`)
  --perf-data FILE
                 also write the samples as a perf.data file, for `perf report -i FILE`,
                 `perf script`, `perf annotate` (the firmware ELF needs a GNU build id)
  --expect FILE  check the share of samples through given functions against the firmware's
                 own figures (lines `label pattern percent tolerance`); exit status 4 when
                 one does not hold
";

const EXIT_USAGE: u8 = 2;
const EXIT_INPUT: u8 = 3;
const EXIT_CHECK: u8 = 4;

struct Options {
    top: usize,
    no_inline: bool,
    perf_data: Option<PathBuf>,
    folded: Option<PathBuf>,
    svg: Option<PathBuf>,
    firefox: Option<PathBuf>,
    expect: Option<PathBuf>,
    elf: PathBuf,
    samples: PathBuf,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut top = 20;
    let mut no_inline = false;
    let mut perf_data = None;
    let (mut folded, mut svg, mut firefox, mut expect) = (None, None, None, None);
    let mut positional = Vec::new();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--help" | "-h" => return Ok(None),
            "--top" => {
                let n = value("--top")?;
                top = n
                    .parse()
                    .map_err(|_| format!("--top needs a number, not `{n}`"))?;
            }
            "--no-inline" => no_inline = true,
            "--perf-data" => perf_data = Some(PathBuf::from(value("--perf-data")?)),
            "--folded" => folded = Some(PathBuf::from(value("--folded")?)),
            "--svg" => svg = Some(PathBuf::from(value("--svg")?)),
            "--firefox" => firefox = Some(PathBuf::from(value("--firefox")?)),
            "--expect" => expect = Some(PathBuf::from(value("--expect")?)),
            other if other.starts_with("--") => return Err(format!("unknown option `{other}`")),
            _ => positional.push(PathBuf::from(arg)),
        }
    }
    let [elf, samples]: [PathBuf; 2] = positional
        .try_into()
        .map_err(|_| "expected FIRMWARE.elf and SAMPLES.pmps".to_string())?;
    Ok(Some(Options {
        top,
        no_inline,
        perf_data,
        folded,
        svg,
        firefox,
        expect,
        elf,
        samples,
    }))
}

fn read(path: &PathBuf) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))
}

/// Whether every cross-check held (true when there were none).
fn run(options: &Options) -> Result<bool, String> {
    let expectations = match &options.expect {
        Some(path) => {
            let text = String::from_utf8(read(path)?)
                .map_err(|_| format!("`{}` is not UTF-8 text", path.display()))?;
            expect::parse(&text).map_err(|e| format!("`{}`: {e}", path.display()))?
        }
        None => Vec::new(),
    };
    let elf = read(&options.elf)?;
    let symbolizer =
        Symbolizer::new(&elf).map_err(|e| format!("`{}`: {e}", options.elf.display()))?;
    let bytes = read(&options.samples)?;
    let decoder =
        ProfileDecoder::new(&bytes).map_err(|e| format!("`{}`: {e}", options.samples.display()))?;
    let header = decoder.header();
    let samples: Vec<_> = decoder
        .collect::<Result<_, _>>()
        .map_err(|e| format!("`{}`: {e}", options.samples.display()))?;
    let profile = if options.no_inline {
        Profile::build(&samples, &SymbolTableOnly(&symbolizer))
    } else {
        Profile::build(&samples, &symbolizer)
    };
    print!("{}", report::top_table(&profile, &header, options.top));
    let mut skid = SkidHistogram::new();
    samples.iter().for_each(|s| skid.record(s.counter));
    if let Some(line) = report::skid_summary(&skid, &header) {
        println!("{line}");
    }
    for line in [
        report::walk_summary(&samples),
        report::core_summary(&profile),
    ]
    .into_iter()
    .flatten()
    {
        println!("{line}");
    }
    let checks = expect::check(&profile, &expectations);
    print!("{}", expect::report(&checks));
    if let Some(path) = &options.folded {
        let mut text = profile.folded().join("\n");
        text.push('\n');
        std::fs::write(path, text)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        println!("wrote {} ({} stacks)", path.display(), profile.stacks.len());
    }
    if let Some(path) = &options.svg {
        let file = std::fs::File::create(path)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        let title = format!("pmprobe profile: {}", report::describe_source(&header));
        report::flamegraph(&profile, &title, std::io::BufWriter::new(file))
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &options.firefox {
        write_firefox(path, options, &samples, &header, &symbolizer)?;
    }
    if let Some(path) = &options.perf_data {
        let firmware = perf_data::Firmware::from_elf(&options.elf, &elf)
            .map_err(|e| format!("`{}`: {e}", options.elf.display()))?;
        let command_line: Vec<String> = std::env::args().collect();
        perf_data::write(
            path,
            &samples,
            &header,
            &symbolizer,
            &firmware,
            &command_line,
        )
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        println!(
            "wrote {} ({} samples; `perf report -i {}`)",
            path.display(),
            samples.len(),
            path.display()
        );
    }
    Ok(checks.iter().all(expect::ShareCheck::holds))
}

/// The Firefox profile, its time axis anchored at the sample file's date: the firmware writes
/// it at the end of the run, the nearest to the run's date the host can know.
fn write_firefox(
    path: &Path,
    options: &Options,
    samples: &[Sample],
    header: &ProfileHeader,
    symbolizer: &Symbolizer,
) -> Result<(), String> {
    let written = std::fs::metadata(&options.samples)
        .and_then(|m| m.modified())
        .unwrap_or_else(|_| SystemTime::now());
    let profile = firefox::build(
        samples,
        header,
        symbolizer,
        &firefox::Firmware::at(&options.elf),
        written,
    );
    let file = std::fs::File::create(path)
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    firefox::write(&profile, &mut out)
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

fn main() -> ExitCode {
    match parse(std::env::args().skip(1)) {
        Ok(None) => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Some(options)) => match run(&options) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(EXIT_CHECK),
            Err(e) => {
                eprintln!("pmprofile: {e}");
                ExitCode::from(EXIT_INPUT)
            }
        },
        Err(e) => {
            eprintln!("pmprofile: {e}\n\n{USAGE}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}
