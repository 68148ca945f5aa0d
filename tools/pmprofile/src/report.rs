//! The three outputs: the top-N table, folded stacks and the flamegraph SVG.

use std::fmt::Write as _;
use std::io;

use pmprobe::pmu::Event;
use pmprobe::sampling::{ProfileHeader, Sample, SampleSource, SkidHistogram, WalkEnd};

use crate::profile::Profile;

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// What was sampled, e.g. `INST_RETIRED (event 0x08) every 10000 events`.
pub fn describe_source(header: &ProfileHeader) -> String {
    match header.source {
        SampleSource::PmuOverflow => format!(
            "{} (event {:#06x}) every {} events",
            Event::raw(header.event),
            header.event,
            header.period
        ),
        SampleSource::GenericTimer => format!("the generic timer every {} ticks", header.period),
    }
}

/// The `perf report`-like table: header line with the sample count, then one row per function.
pub fn top_table(profile: &Profile, header: &ProfileHeader, n: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {} samples of {}, {} dropped by the firmware",
        profile.samples,
        describe_source(header),
        header.dropped
    );
    let _ = writeln!(out, "#   self %  total %   samples  function");
    for row in profile.top(n) {
        let _ = writeln!(
            out,
            "  {:7.2}%  {:6.2}%  {:8}  {}",
            percent(row.self_samples, profile.samples),
            percent(row.total_samples, profile.samples),
            row.total_samples,
            row.function
        );
    }
    out
}

/// One line of skid statistics (`None` without samples).
pub fn skid_summary(skid: &SkidHistogram, header: &ProfileHeader) -> Option<String> {
    if skid.count() == 0 {
        return None;
    }
    let unit = match header.source {
        SampleSource::PmuOverflow => "events",
        SampleSource::GenericTimer => "ticks",
    };
    Some(format!(
        "skid: min {}, mean {}, max {} {unit} between the trigger and the handler ({} samples)",
        skid.min(),
        skid.mean(),
        skid.max(),
        skid.count()
    ))
}

/// One line on how the stack walks ended (`None` without samples): the share of complete
/// stacks, then each reason a walk stopped early, e.g.
/// `stacks: 97.50% complete; cut short: 12 misaligned, 3 out of bounds`.
pub fn walk_summary(samples: &[Sample]) -> Option<String> {
    if samples.is_empty() {
        return None;
    }
    let reasons = [
        (WalkEnd::Complete, "complete"),
        (WalkEnd::DepthLimit, "at the depth limit"),
        (WalkEnd::Misaligned, "misaligned"),
        (WalkEnd::OutOfBounds, "out of bounds"),
        (WalkEnd::NotAscending, "not ascending"),
        (WalkEnd::Unreadable, "unreadable"),
    ];
    let count = |end: WalkEnd| samples.iter().filter(|s| s.walk_end == end).count() as u64;
    let complete = count(WalkEnd::Complete);
    let mut line = format!(
        "stacks: {:.2}% complete",
        percent(complete, samples.len() as u64)
    );
    let short: Vec<String> = reasons
        .iter()
        .skip(1)
        .filter_map(|&(end, name)| {
            let n = count(end);
            (n > 0).then(|| format!("{n} {name}"))
        })
        .collect();
    if !short.is_empty() {
        line.push_str("; cut short: ");
        line.push_str(&short.join(", "));
    }
    Some(line)
}

/// One line with the samples of each core (`None` for a profile of one core).
pub fn core_summary(profile: &Profile) -> Option<String> {
    if profile.per_core.len() < 2 {
        return None;
    }
    let cores: Vec<String> = profile
        .per_core
        .iter()
        .map(|(core, n)| format!("core {core}: {n}"))
        .collect();
    Some(format!("samples per core: {}", cores.join(", ")))
}

/// Renders the folded stacks as a flamegraph SVG with inferno.
pub fn flamegraph(profile: &Profile, title: &str, out: impl io::Write) -> io::Result<()> {
    let folded = profile.folded();
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.count_name = "samples".to_string();
    inferno::flamegraph::from_lines(&mut options, folded.iter().map(String::as_str), out)
        .map_err(|e| io::Error::other(e.to_string()))
}
