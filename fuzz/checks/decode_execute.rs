//! Checks of the `decode_execute` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): random words as a local-store image (and register seeds),
//! decoded and executed in instruction mode for a bounded number of steps.
//!
//! Checks: nothing panics; every next PC is word aligned and inside the local store; every
//! reported data access is quadword aligned and inside the local store. The host side is
//! played along: blocked channels get inbound mail and have their outbound mailboxes drained,
//! stops are resumed a few times. Then the same image runs in an `SpuUnit`'s instruction mode
//! with an observer, in runs of a length taken from the input: the observer, told of the
//! instructions in batches, must hear what stepping says (`cycles(1)`, then `retired` with the
//! cycle count after each retired instruction), with the same outcome and state after every
//! run, up to the first stop or channel wait.
#[path = "observed.rs"]
mod observed;

use observed::{Recorder, step_by_step};
use pmprobe::spu::exec::{LS_SIZE, Quadword, SpuState, Status, StopReason};
use pmprobe::spu::pipeline::RunEnd;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

const MAX_STEPS: u32 = 4096;
/// Stops (`stop`, halts) resumed before giving up: zero-filled memory is all `stop 0`.
const MAX_RESUMES: u32 = 8;

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let words: Vec<u32> = data
        .chunks_exact(4)
        .take(4096)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let mut spu = Box::new(SpuState::new(0));
    if spu.load_program_words(&words, 0).is_err() {
        return;
    }
    seed_registers(&mut spu, &words);
    step_checked(&mut spu);
    let run = data.first().map_or(1, |&b| u64::from(b % 70) + 1);
    batched_as_stepped(&words, run);
}

/// Seeds a few registers from the image so addresses and counts vary.
fn seed_registers(spu: &mut SpuState, words: &[u32]) {
    for (index, chunk) in words.chunks(4).take(16).enumerate() {
        let mut lanes = [0u32; 4];
        lanes[..chunk.len()].copy_from_slice(chunk);
        spu.set_register(2 + index as u8, Quadword::from_words(lanes));
    }
}

/// Steps `spu`, checking every step's report and playing the host.
fn step_checked(spu: &mut SpuState) {
    let mut mailbox_value = 0u32;
    let mut resumes = 0u32;
    for step in 0..MAX_STEPS {
        let executed = spu.step();
        assert!(
            executed.next_pc < LS_SIZE && executed.next_pc.is_multiple_of(4),
            "step {step}: next pc {:#x}",
            executed.next_pc
        );
        if let Some(access) = executed.access {
            assert!(
                access.address < LS_SIZE && access.address.is_multiple_of(16),
                "step {step}: access at {:#x}",
                access.address
            );
        }
        match spu.status() {
            Status::Running => {}
            Status::Blocked { .. } => {
                // Play the host: feed the inbound mailbox and drain the outbound ones.
                let channels = spu.channels_mut();
                let _ = channels.inbound.push(mailbox_value);
                mailbox_value = mailbox_value.wrapping_add(1);
                let _ = channels.outbound.pop();
                let _ = channels.outbound_interrupt.pop();
            }
            Status::Stopped(StopReason::Fault(_)) => break,
            Status::Stopped(_) => {
                resumes += 1;
                if resumes > MAX_RESUMES {
                    break;
                }
                spu.resume();
            }
        }
    }
}

/// `words` in an `SpuUnit`'s instruction mode with a `Recorder`, `run` cycles per call, against
/// stepping a copy one instruction at a time, until the SPU stops or waits or `MAX_STEPS`.
fn batched_as_stepped(words: &[u32], run: u64) {
    let mut unit = Box::new(SpuUnit::new(0));
    let mut stepped = Box::new(SpuState::new(0));
    if unit.load_program_words(words, 0).is_err() || stepped.load_program_words(words, 0).is_err() {
        return;
    }
    unit.set_mode(Mode::Instruction);
    seed_registers(unit.arch_mut(), words);
    seed_registers(&mut stepped, words);
    let recorder = Recorder::default();
    let mut expected = Vec::new();
    let mut total = 0;
    while total < u64::from(MAX_STEPS) {
        let outcome = unit
            .run(run, &recorder, &mut Discard)
            .expect("instruction mode has no model error");
        let reference = step_by_step(&mut stepped, run, &mut expected, &mut String::new());
        assert_eq!(outcome, reference, "at cycle {total}");
        assert!(
            *recorder.0.borrow() == expected,
            "notifications up to cycle {total}"
        );
        let arch = unit.arch();
        assert_eq!(
            (
                arch.pc(),
                arch.status(),
                arch.cycle_count(),
                arch.instructions_retired()
            ),
            (
                stepped.pc(),
                stepped.status(),
                stepped.cycle_count(),
                stepped.instructions_retired()
            ),
            "state at cycle {total}"
        );
        assert!(
            arch.registers() == stepped.registers(),
            "registers at cycle {total}"
        );
        total += outcome.cycles;
        if outcome.end != RunEnd::CycleLimit {
            break;
        }
    }
}
