//! Every opcode of the table executes on random operands without panicking (debug builds
//! check arithmetic overflow), and the reported effects are consistent.

use pmprobe::spu::exec::{LS_SIZE, Quadword, SpuState, Status};
use pmprobe::spu::isa::Mnemonic;
use pmprobe::spu::isa::decode;

#[path = "support/xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

#[test]
fn every_mnemonic_executes_on_random_operands() {
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let mut spu = Box::new(SpuState::new(0));
    let mut seen = [false; Mnemonic::ALL.len()];
    for round in 0..200_000u32 {
        if round % 64 == 0 {
            for register in 0..128u8 {
                let value = (u128::from(rng.next()) << 64) | u128::from(rng.next());
                spu.set_register(register, Quadword(value));
            }
            spu.resume();
        }
        // Top 11 bits cycle through every opcode slot; the rest is random.
        let word = ((round % 2048) << 21) | (rng.next() as u32 & 0x1f_ffff);
        let Ok(insn) = decode(word) else { continue };
        seen[insn.mnemonic as usize] = true;
        spu.set_pc((rng.next() as u32) & (LS_SIZE - 4));
        let pc = spu.pc();
        let executed = spu.execute(&insn);
        assert_eq!(executed.pc, pc);
        assert!(executed.next_pc < LS_SIZE && executed.next_pc.is_multiple_of(4));
        if let Some(access) = executed.access {
            assert!(access.address < LS_SIZE && access.address.is_multiple_of(16));
            assert_eq!(access.size, 16);
        }
        if executed.retired {
            assert_eq!(spu.pc(), executed.next_pc);
        } else {
            assert_eq!(spu.pc(), pc, "a non-retired instruction keeps the PC");
        }
        if let Status::Stopped(_) | Status::Blocked { .. } = spu.status() {
            spu.resume();
        }
    }
    let missing: Vec<&str> = Mnemonic::ALL
        .iter()
        .filter(|m| !seen[**m as usize])
        .map(|m| m.name())
        .collect();
    assert!(missing.is_empty(), "never executed: {missing:?}");
}
