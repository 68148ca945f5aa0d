//! The per-cycle trace frame (the simulator's SPU_DISPLAY_ISSUE / SPU_DISPLAY_EXEC output),
//! written at the end of a cycle, regions in the article's order.
//!
//! A frame produced by the model (`spusim --fetch real --trace-from 60 --trace-to 60` on a
//! loop hinted with `hbr back,$9`, cycle 60; the loop is at 0x10..0x2c):
//!
//! ```text
//! cycle 60 instructions 23
//! mispredict 0 -> 0x0001c
//! hint 0x0002c -> 0x00010 *
//! pre-fetch
//! pre-fetch ls [ ] [1-0x00080] [ ] [ ] [ ] [ ]
//! ilbh1 = 0x00000   ilbh2 = 0x00040
//! ilb11 = 0x00080   ilb12 = 0x000c0   ilb21 X 0x00000   ilb22 X 0x00000
//! ppb = 0x00000 (0x18)
//! g   = 0x00010 ai $4,$4,1                    = 0x00014 lqd $6,0($1)
//! h   = 0x00028 nop                           = 0x0002c brnz $3,0x10
//! i   = 0x00020 ai $3,$3,-1                   = 0x00024 lnop
//! j   = 0x00018 a $10,$11,$12                 = 0x0001c shufb $7,$6,$6,$8
//! jj* = 0x00010 ai $4,$4,1                    = 0x00014 lqd $6,0($1)                  P0 4    P1 6
//! k   X                                       = 0x0002c brnz $3,0x10                  P0 -1   P1 -1
//! l   = 0x00028 nop                           X                                       P0 -1   P1 -1
//! m   = 0x00020 ai $3,$3,-1                   = 0x00024 lnop                          P0 128  P1 -1
//! n   X                                       = 0x0001c shufb $7,$6,$6,$8             P0 -1   P1 128
//! o   X                                       X                                       P0 -1   P1 -1
//! o+1 X                                       X                                       P0 -1   P1 -1
//! o+2 X                                       X                                       P0 -1   P1 -1
//! o+3 X                                       X                                       P0 -1   P1 -1
//! o+4 = 0x00018 a $10,$11,$12                 X                                       P0 128  P1 -1
//! o+5 = 0x00010 ai $4,$4,1                    = 0x00014 lqd $6,0($1)                  P0 128  P1 128
//! o+6 X                                       = 0x0002c brnz $3,0x10                  P0 -1   P1 -1
//! o+7 = 0x00028 nop                           X                                       P0 -1   P1 -1
//! o+8 = 0x00020 ai $3,$3,-1                   = 0x00024 lnop                          P0 128  P1 -1
//! ```
//!
//! - `cycle`: the cycle number; `instructions`: completed instructions (counted at stage o).
//! - `mispredict S -> PC`: the mispredict state (0: none) and the next PC (after stage o).
//! - `hint B -> T *`: the hinted branch and its target, `*` when the hint target is loaded.
//! - `pre-fetch`: the request queue, **oldest on the right**, each `D-0xLINE` with D the
//!   destination (1 ilb1, 2 ilb2, 3 ilbh), or `?` for a stale request.
//! - `pre-fetch ls`: the six LS pipe stages, first on the left, `[ ]` when empty.
//! - `ilbh1/ilbh2`, `ilb11 .. ilb22`: `=` valid or `X` invalid, and the half-line address.
//! - `ppb`: the predicted path buffer, `=`/`X`, address and (next fetch offset).
//! - issue stages g h i j: pipe 0 (even address) on the left, pipe 1 on the right, `=` with
//!   address and disassembly, or `X` for a bubble.
//! - execution stages jj (marked `*`), k, l, m, n, o and the rows kept after o: pipe 0, pipe 1
//!   and the dependency columns P0 and P1 (target register, -1 none or bubble, 128 released).
//!
//! With ideal fetch the fetch regions read `ideal fetch`.

use core::fmt;

use crate::spu::exec::SpuState;
use crate::spu::pipeline::model::fetch_unit::{Destination, HalfLine, LineRequest};
use crate::spu::pipeline::model::inflight::InFlight;
use crate::spu::pipeline::model::sizes::{EXEC_STAGE_NAMES, ISSUE_STAGE_NAMES, O_STAGE};
use crate::spu::pipeline::state::Pipeline;

/// Width of one pipe column in the issue and execution regions.
const COLUMN: usize = 40;

fn destination_digit(destination: Destination) -> u8 {
    match destination {
        Destination::Ilb1 => 1,
        Destination::Ilb2 => 2,
        Destination::Ilbh => 3,
    }
}

fn write_request(out: &mut impl fmt::Write, request: &LineRequest) -> fmt::Result {
    if request.stale {
        return write!(out, "?-{:#07x}", request.line);
    }
    write!(
        out,
        "{}-{:#07x}",
        destination_digit(request.destination),
        request.line
    )
}

fn write_half(out: &mut impl fmt::Write, name: &str, half: &HalfLine) -> fmt::Result {
    let mark = if half.valid { '=' } else { 'X' };
    write!(out, "{name} {mark} {:#07x}", half.address)
}

/// Writes `inflight` padded to [`COLUMN`] characters.
fn write_slot(out: &mut impl fmt::Write, slot: Option<&InFlight>) -> fmt::Result {
    let mut text: heapless::String<64> = heapless::String::new();
    match slot {
        Some(inflight) if inflight.illegal => {
            let _ = fmt::write(
                &mut text,
                format_args!(
                    "= {:#07x} .long {:#010x}",
                    inflight.pc, inflight.instruction.word
                ),
            );
        }
        Some(inflight) => {
            // A disassembly longer than the buffer is cut; the frame stays aligned.
            let _ = fmt::write(
                &mut text,
                format_args!(
                    "= {:#07x} {}",
                    inflight.pc,
                    inflight.instruction.display_at(inflight.pc)
                ),
            );
        }
        None => {
            let _ = text.push('X');
        }
    }
    write!(out, "{:<width$}", text.as_str(), width = COLUMN)
}

/// Writes the `pre-fetch` line: the queued requests `oldest_first`, oldest on the right.
/// Reversing the iterator needs no buffer, so any queue depth fits.
fn write_prefetch_queue<'r>(
    out: &mut impl fmt::Write,
    oldest_first: impl DoubleEndedIterator<Item = &'r LineRequest>,
) -> fmt::Result {
    write!(out, "pre-fetch")?;
    for request in oldest_first.rev() {
        write!(out, " ")?;
        write_request(out, request)?;
    }
    writeln!(out)
}

/// Writes the trace frame of the cycle that just ended.
pub fn write_frame(pipeline: &Pipeline, arch: &SpuState, out: &mut impl fmt::Write) -> fmt::Result {
    writeln!(
        out,
        "cycle {} instructions {}",
        pipeline.clock(),
        pipeline.stats().instructions
    )?;
    match pipeline.fetch_unit() {
        Some(unit) => {
            writeln!(
                out,
                "mispredict {} -> {:#07x}",
                unit.mispredict_state(),
                arch.pc()
            )?;
            match unit.hint() {
                Some(hint) => writeln!(
                    out,
                    "hint {:#07x} -> {:#07x}{}",
                    hint.branch,
                    hint.target,
                    if hint.loaded { " *" } else { "" }
                )?,
                None => writeln!(out, "hint none")?,
            }
            write_prefetch_queue(out, unit.queue())?;
            write!(out, "pre-fetch ls")?;
            for stage in unit.ls_pipe() {
                match stage {
                    Some(request) => {
                        write!(out, " [")?;
                        write_request(out, request)?;
                        write!(out, "]")?;
                    }
                    None => write!(out, " [ ]")?,
                }
            }
            writeln!(out)?;
            let [ilbh1, ilbh2] = unit.hint_buffer();
            write_half(out, "ilbh1", ilbh1)?;
            write!(out, "   ")?;
            write_half(out, "ilbh2", ilbh2)?;
            writeln!(out)?;
            let [[ilb11, ilb12], [ilb21, ilb22]] = unit.inline_buffers();
            for (i, (name, half)) in [
                ("ilb11", ilb11),
                ("ilb12", ilb12),
                ("ilb21", ilb21),
                ("ilb22", ilb22),
            ]
            .into_iter()
            .enumerate()
            {
                if i > 0 {
                    write!(out, "   ")?;
                }
                write_half(out, name, half)?;
            }
            writeln!(out)?;
            let path = unit.path_buffer();
            let mark = if path.half.valid { '=' } else { 'X' };
            writeln!(
                out,
                "ppb {mark} {:#07x} ({:#04x})",
                path.half.address, path.offset
            )?;
        }
        None => {
            writeln!(out, "mispredict 0 -> {:#07x}", arch.pc())?;
            writeln!(out, "ideal fetch")?;
        }
    }
    for (stage, name) in ISSUE_STAGE_NAMES.iter().enumerate() {
        let group = pipeline.issue_pipes().stage(stage);
        write!(out, "{name:<3} ")?;
        write_slot(out, group[0].as_ref())?;
        write_slot(out, group[1].as_ref())?;
        writeln!(out)?;
    }
    let rows = O_STAGE + 1 + u64::from(pipeline.config().max_depth()).saturating_sub(O_STAGE);
    for stage in 0..rows {
        let Some(view) = pipeline.exec_stage(stage) else {
            break;
        };
        let name = EXEC_STAGE_NAMES.get(stage as usize).copied().unwrap_or("");
        let marker = if stage == 0 { "*" } else { "" };
        let mut label: heapless::String<8> = heapless::String::new();
        if name.is_empty() {
            let _ = fmt::write(&mut label, format_args!("o+{}", stage - O_STAGE));
        } else {
            let _ = fmt::write(&mut label, format_args!("{name}{marker}"));
        }
        write!(out, "{:<4}", label.as_str())?;
        write_slot(out, view.slots[0].as_ref())?;
        write_slot(out, view.slots[1].as_ref())?;
        writeln!(
            out,
            "P0 {:<4} P1 {}",
            view.dependencies[0], view.dependencies[1]
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spu::pipeline::model::fetch_unit::PREFETCH_QUEUE_DEPTH;

    fn request(line: u32) -> LineRequest {
        LineRequest {
            line,
            destination: Destination::Ilb1,
            stale: false,
        }
    }

    /// The queue line once held its requests in a fixed four-entry buffer whose collection
    /// panics on overflow; it must show every request of a queue of any depth, oldest on the
    /// right.
    #[test]
    fn prefetch_line_shows_every_request_of_a_deeper_queue() {
        let depth = 2 * PREFETCH_QUEUE_DEPTH + 1;
        let requests: [LineRequest; 2 * PREFETCH_QUEUE_DEPTH + 1] =
            core::array::from_fn(|i| request(0x80 * i as u32));
        let mut text = heapless::String::<256>::new();
        write_prefetch_queue(&mut text, requests.iter()).unwrap();
        let shown = || text.trim_end().split(' ').skip(1);
        assert_eq!(shown().count(), depth);
        assert_eq!(shown().next(), Some("1-0x00400"), "newest on the left");
        assert_eq!(shown().last(), Some("1-0x00000"), "oldest on the right");
    }
}
