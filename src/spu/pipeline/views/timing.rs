//! A static timing listing like the SDK's `spu_timing` for straight-line code.
//!
//! Like spu_timing, the analysis assumes straight-line code: instructions are taken in
//! address order, fetch is ideal, branches fall through, nothing executes (no functional
//! effect, no channel waits). Issue follows exactly the pipeline model's issue rules
//! ([`issue`](crate::spu::pipeline::model::issue)) with the configuration's depths and stalls, so the listing shows
//! what the pipeline mode would do on that code with ideal fetch.
//!
//! One line per instruction, in program order:
//!
//! ```text
//! 0D 0123456789012345678901234567890123456789012345678 a $3,$4,$5
//! ```
//!
//! - column 1: the execution pipe (0 even, 1 odd);
//! - column 2: `D` when the instruction dual-issued with its partner; `d` on both
//!   instructions of a pair that could have dual-issued (even-pipe instruction at the even
//!   address, odd-pipe at the odd one) but did not because of a hazard; else blank;
//! - a ruler of [`RULER`] columns, one per cycle, counted from the first issue (column =
//!   cycle modulo [`RULER`]): `-` for the cycles the instruction waited at issue since the
//!   previous issue (for the second of a `d` pair: since its partner's issue, in which it
//!   could have issued too), then the last digit of each cycle number from its issue until its result
//!   is released (`depth` cycles);
//! - the disassembly.
//!
//! A final line gives the totals: instructions, cycles from the first to the last issue, dual
//! issues. A channel instruction that can wait (for the MFC, an event, a mailbox, a signal)
//! ends with `# may wait: <channel>`, and a last line counts them: the listing cannot know how
//! long they wait, and pipeline mode charges those cycles to the channel-wait stall class.

use core::fmt;

use crate::spu::exec::{channel_can_wait, channel_name};
use crate::spu::isa::{Mnemonic, decode};
use crate::spu::pipeline::model::config::Config;
use crate::spu::pipeline::model::execute::ExecPipes;
use crate::spu::pipeline::model::inflight::{Group, InFlight};
use crate::spu::pipeline::model::issue::{DualIssueBlocks, IssueOutcome, IssuePipes};
use crate::spu::pipeline::model::sizes::J_STAGE;

/// Width of the cycle ruler.
pub const RULER: u64 = 50;

/// Totals of a listing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimingSummary {
    /// Instructions listed.
    pub instructions: u64,
    /// Cycles from the first issue to the last, inclusive.
    pub cycles: u64,
    /// Cycles in which two instructions issued.
    pub dual_cycles: u64,
    /// Channel instructions that can wait (on the MFC, an event, a mailbox or a signal): the
    /// listing times them as if they did not, the pipeline mode charges their waits to the
    /// channel-wait stall class.
    pub channel_waits: u64,
}

/// Writes the listing of the instructions `words` (located from address `base`, which is
/// rounded down to a word) to `out`.
///
/// ```
/// use pmprobe::spu::pipeline::{Config, listing};
/// // a $3,$4,$5 (FX2, even) and rotqby $6,$3,$7 (SHUF, odd, depends on $3)
/// let mut text = String::new();
/// let summary = listing(&[0x1801_4203, 0x3b81_c186], 0, &Config::cell(), &mut text).unwrap();
/// assert_eq!(summary.cycles, 3); // the rotqby issues two cycles after the a
/// // A pair that could dual-issue but for the dependency is marked `d`; the rotqby waits
/// // from the a's issue cycle (column 0) until depth(FX2) = 2 cycles later.
/// assert!(text.starts_with("0d 01 "));
/// assert!(text.lines().nth(1).unwrap().starts_with("1d --2345 "));
/// ```
pub fn listing(
    words: &[u32],
    base: u32,
    config: &Config,
    out: &mut impl fmt::Write,
) -> Result<TimingSummary, fmt::Error> {
    let base = base & !3;
    let mut issue = IssuePipes::new();
    let mut exec = ExecPipes::new();
    let mut next_index = 0usize;
    let mut summary = TimingSummary::default();
    let mut previous_issue: Option<u64> = None;
    let mut first_issue: Option<u64> = None;
    // The odd instruction of a blocked `d` pair waits from its partner's issue cycle.
    let mut blocked_pair_since: Option<u64> = None;
    let mut cycle = 0u64;
    let total = words.len() as u64;
    // Every cycle issues something once the first group reached j, unless a hazard holds;
    // hazards last at most MAX_DEPTH + MAX_STALL cycles, so this bound is never reached.
    let limit = total.saturating_mul(80).saturating_add(16);
    while summary.instructions < total && cycle < limit {
        cycle += 1;
        exec.open_row(cycle);
        let mut blocks = DualIssueBlocks::default();
        let outcome = issue.issue::<false>(cycle, config, &mut exec, &mut blocks);
        if let IssueOutcome::Issued { first, second } = outcome {
            let (Some(&first), second) = (
                issue.record(first),
                second.and_then(|seq| issue.record(seq).copied()),
            ) else {
                break;
            };
            let dual = second.is_some();
            summary.dual_cycles += u64::from(dual);
            let origin = *first_issue.get_or_insert(cycle);
            let [_, left_behind] = issue.stage(J_STAGE);
            let blocked_pair = second.is_none()
                && first.pc & 4 == 0
                && left_behind.is_some_and(|odd| first.class.pipe() == 0 && odd.class.pipe() == 1);
            let finishes_pair = blocked_pair_since.take();
            for inflight in core::iter::once(first).chain(second) {
                let (mark, waited_from) = match finishes_pair {
                    Some(since) => ('d', since),
                    None if blocked_pair => ('d', previous_issue.map_or(cycle, |p| p + 1)),
                    None if dual => ('D', previous_issue.map_or(cycle, |p| p + 1)),
                    None => (' ', previous_issue.map_or(cycle, |p| p + 1)),
                };
                write_line(
                    out,
                    &inflight,
                    mark,
                    waited_from - origin,
                    cycle - origin,
                    config,
                )?;
                summary.instructions += 1;
                summary.channel_waits += u64::from(channel_wait(&inflight).is_some());
            }
            if blocked_pair {
                blocked_pair_since = Some(cycle);
            }
            previous_issue = Some(cycle);
        }
        issue.advance();
        if issue.g_is_empty() && next_index < words.len() {
            let (group, consumed) = group_at(words, next_index, base);
            issue.enter(group);
            next_index += consumed;
        }
    }
    if let (Some(first), Some(last)) = (first_issue, previous_issue) {
        summary.cycles = last - first + 1;
    }
    writeln!(
        out,
        "; {} instructions, {} cycles, {} dual-issue cycles",
        summary.instructions, summary.cycles, summary.dual_cycles
    )?;
    if summary.channel_waits > 0 {
        writeln!(
            out,
            "; {} channel instructions may wait: their waits are not in these cycles (pipeline mode counts them as channel-wait stalls)",
            summary.channel_waits
        )?;
    }
    Ok(summary)
}

/// The fetch group starting at `words[index]`; returns it and how many words it took.
fn group_at(words: &[u32], index: usize, base: u32) -> (Group, usize) {
    let mut group: Group = [None, None];
    let mut consumed = 0;
    let mut i = index;
    while let Some(&word) = words.get(i) {
        let pc = base.wrapping_add((i as u32).wrapping_mul(4));
        let slot = ((pc >> 2) & 1) as usize;
        if consumed > 0 && slot == 0 {
            break;
        }
        let inflight = match decode(word) {
            Ok(instruction) => InFlight::new(pc, instruction, pc.wrapping_add(4)),
            Err(_) => InFlight::illegal_at(pc, word),
        };
        if let Some(place) = group.get_mut(slot) {
            *place = Some(inflight);
        }
        consumed += 1;
        i += 1;
        if slot == 1 {
            break;
        }
    }
    (group, consumed.max(1))
}

fn write_line(
    out: &mut impl fmt::Write,
    inflight: &InFlight,
    mark: char,
    waited_from: u64,
    issued: u64,
    config: &Config,
) -> fmt::Result {
    let pipe = inflight.class.pipe();
    let mut ruler = [b' '; RULER as usize];
    for c in waited_from..issued {
        if let Some(cell) = ruler.get_mut((c % RULER) as usize) {
            *cell = b'-';
        }
    }
    let depth = u64::from(config.depth(inflight.class));
    for c in issued..issued + depth.min(RULER) {
        if let Some(cell) = ruler.get_mut((c % RULER) as usize) {
            *cell = b'0' + (c % 10) as u8;
        }
    }
    write!(out, "{pipe}{mark} ")?;
    for &byte in &ruler {
        write!(out, "{}", char::from(byte))?;
    }
    if inflight.illegal {
        return writeln!(out, " .long {:#010x}", inflight.instruction.word);
    }
    write!(out, " {}", inflight.instruction.display_at(inflight.pc))?;
    if let Some(channel) = channel_wait(inflight) {
        write!(
            out,
            "\t# may wait: {}",
            channel_name(channel).unwrap_or("channel")
        )?;
    }
    writeln!(out)
}

/// The channel a `rdch` or `wrch` can wait on, if it can.
fn channel_wait(inflight: &InFlight) -> Option<u8> {
    let instruction = &inflight.instruction;
    let write = match instruction.mnemonic {
        Mnemonic::Rdch => false,
        Mnemonic::Wrch => true,
        _ => return None,
    };
    channel_can_wait(instruction.ra, write).then_some(instruction.ra)
}
