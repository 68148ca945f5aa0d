//! Section 6's files: SPU3's memory trace (Dinero IV din) and SPU2's Konata pipeline log,
//! written to the host through semihosting, each checked against what the run counted.

use pmprobe::rt::semihosting::HostError;

use crate::demo::shared::checks::Checks;
use crate::demo::shared::files::BufferedHostFile;
use crate::demo::shared::output::{heading, outln};
use crate::demo::spu_runs::plan::{DIN_FILE, KONATA_FILE, SMALL_TRACE_RECORDS, SmallTrace, Trace};

pub fn write_trace(trace: &Trace, small: &SmallTrace, accesses: u64, checks: &mut Checks) {
    heading(format_args!(
        "Memory trace of SPU3 (Dinero IV din) through semihosting"
    ));
    let held = trace
        .with(|t| (t.len() as u64, t.dropped()))
        .unwrap_or((0, u64::MAX));
    checks.equal(
        format_args!("trace_complete"),
        "records held vs PMU LD_RETIRED + ST_RETIRED",
        held.0,
        accesses,
    );
    checks.equal(
        format_args!("trace_no_drops"),
        "records dropped by the big ring",
        held.1,
        0,
    );
    let small_counts = small
        .with(|t| (t.len() as u64, t.dropped()))
        .unwrap_or((0, 0));
    outln!(
        "  small ring ({SMALL_TRACE_RECORDS} records, drop newest): kept {}, dropped {} records",
        small_counts.0,
        small_counts.1
    );
    checks.check(
        format_args!("small_trace_overflow_counted"),
        small_counts.0 == SMALL_TRACE_RECORDS as u64 && small_counts.0 + small_counts.1 == accesses,
        format_args!(
            "kept + dropped = {} = accesses {accesses}",
            small_counts.0 + small_counts.1
        ),
    );
    let written = BufferedHostFile::create(DIN_FILE).and_then(|mut file| {
        let _ = trace.with(|t| t.write_din(&mut file));
        file.finish()
    });
    match written {
        Ok(bytes) => {
            outln!("  wrote {DIN_FILE} ({} records, {bytes} bytes)", held.0);
            checks.check(
                format_args!("din_written"),
                bytes > 0,
                format_args!("{DIN_FILE}"),
            );
        }
        Err(e) => checks.check(
            format_args!("din_written"),
            false,
            format_args!("{DIN_FILE}: {e}"),
        ),
    }
}

/// Reports the Kanata log written during a kernel's log run: (SPU, bytes or error, the
/// instructions that run completed).
pub fn write_konata(written: Option<(usize, Result<usize, HostError>, u64)>, checks: &mut Checks) {
    heading(format_args!(
        "Konata pipeline log (Kanata 0004) through semihosting"
    ));
    match written {
        Some((spu, Ok(bytes), instructions)) => {
            outln!(
                "  wrote {KONATA_FILE} ({bytes} bytes): SPU{spu}'s log run (uncounted), every cycle, {instructions} instructions; open it in the Konata viewer"
            );
            checks.check(
                format_args!("konata_written"),
                bytes > 0,
                format_args!("{KONATA_FILE}"),
            );
        }
        Some((_, Err(e), _)) => {
            checks.check(
                format_args!("konata_written"),
                false,
                format_args!("{KONATA_FILE}: {e}"),
            );
        }
        None => checks.check(
            format_args!("konata_written"),
            false,
            format_args!("no kernel wrote the Konata log"),
        ),
    }
}
