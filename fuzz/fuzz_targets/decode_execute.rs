//! Fuzz target: random words as a local-store image (and register seeds), decoded and
//! executed for a bounded number of steps. Nothing may panic, and the reported effects must
//! stay inside the local store.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmprobe::spu::exec::{LS_SIZE, Quadword, SpuState, Status, StopReason};

const MAX_STEPS: u32 = 4096;
/// Stops (`stop`, halts) resumed before giving up: zero-filled memory is all `stop 0`.
const MAX_RESUMES: u32 = 8;

fuzz_target!(|data: &[u8]| {
    let words: Vec<u32> = data
        .chunks_exact(4)
        .take(4096)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let mut spu = Box::new(SpuState::new(0));
    if spu.load_program_words(&words, 0).is_err() {
        return;
    }
    // Seed a few registers from the image so addresses and counts vary.
    for (index, chunk) in words.chunks(4).take(16).enumerate() {
        let mut lanes = [0u32; 4];
        lanes[..chunk.len()].copy_from_slice(chunk);
        spu.set_register(2 + index as u8, Quadword::from_words(lanes));
    }
    let mut mailbox_value = 0u32;
    let mut resumes = 0u32;
    for _ in 0..MAX_STEPS {
        let executed = spu.step();
        assert!(executed.next_pc < LS_SIZE && executed.next_pc % 4 == 0);
        if let Some(access) = executed.access {
            assert!(access.address < LS_SIZE && access.address % 16 == 0);
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
});
