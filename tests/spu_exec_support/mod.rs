//! Shared helpers for the spu_exec_* integration tests: instruction encoders (field layouts
//! from the SPU ISA, opcode values from the opcode table) and a small execution harness.
#![allow(dead_code)]

use pmprobe::spu::exec::{Executed, Quadword, SpuState};
use pmprobe::spu::isa::Mnemonic;
use pmprobe::spu::isa::decode;

fn op(m: Mnemonic) -> u32 {
    u32::from(m.info().opcode) << 21
}

/// RR: RB bits 11-17, RA 18-24, RT 25-31.
pub fn rr(m: Mnemonic, rt: u32, ra: u32, rb: u32) -> u32 {
    op(m) | (rb << 14) | (ra << 7) | rt
}

/// RRR: RT (destination) bits 4-10, RB 11-17, RA 18-24, RC 25-31.
pub fn rrr(m: Mnemonic, rt: u32, ra: u32, rb: u32, rc: u32) -> u32 {
    op(m) | (rt << 21) | (rb << 14) | (ra << 7) | rc
}

/// RI7: I7 bits 11-17.
pub fn ri7(m: Mnemonic, rt: u32, ra: u32, i7: i32) -> u32 {
    op(m) | (((i7 as u32) & 0x7f) << 14) | (ra << 7) | rt
}

/// RI8: I8 bits 10-17.
pub fn ri8(m: Mnemonic, rt: u32, ra: u32, i8: u32) -> u32 {
    op(m) | ((i8 & 0xff) << 14) | (ra << 7) | rt
}

/// RI10: I10 bits 8-17.
pub fn ri10(m: Mnemonic, rt: u32, ra: u32, i10: i32) -> u32 {
    op(m) | (((i10 as u32) & 0x3ff) << 14) | (ra << 7) | rt
}

/// RI16: I16 bits 9-24.
pub fn ri16(m: Mnemonic, rt: u32, i16: i32) -> u32 {
    op(m) | (((i16 as u32) & 0xffff) << 7) | rt
}

/// RI18: I18 bits 7-24.
pub fn ri18(m: Mnemonic, rt: u32, i18: u32) -> u32 {
    op(m) | ((i18 & 0x3_ffff) << 7) | rt
}

/// A boxed SPU plus helpers to set registers and execute single words.
pub struct Harness {
    pub spu: Box<SpuState>,
}

impl Harness {
    pub fn new() -> Self {
        Harness {
            spu: Box::new(SpuState::new(0)),
        }
    }

    pub fn set(&mut self, register: u8, words: [u32; 4]) {
        self.spu.set_register(register, Quadword::from_words(words));
    }

    pub fn set_bytes(&mut self, register: u8, bytes: [u8; 16]) {
        self.spu.set_register(register, Quadword::from_bytes(bytes));
    }

    pub fn set_doubles(&mut self, register: u8, values: [f64; 2]) {
        self.spu.set_register(
            register,
            Quadword::from_doublewords([values[0].to_bits(), values[1].to_bits()]),
        );
    }

    pub fn get(&self, register: u8) -> [u32; 4] {
        self.spu.register(register).words()
    }

    pub fn get_bytes(&self, register: u8) -> [u8; 16] {
        self.spu.register(register).bytes()
    }

    pub fn get_halfwords(&self, register: u8) -> [u16; 8] {
        self.spu.register(register).halfwords()
    }

    pub fn get_doublewords(&self, register: u8) -> [u64; 2] {
        self.spu.register(register).doublewords()
    }

    /// Decodes `word` and executes it at the current PC.
    pub fn exec(&mut self, word: u32) -> Executed {
        let insn = decode(word).unwrap_or_else(|e| panic!("test encoded an illegal word: {e}"));
        self.spu.execute(&insn)
    }

    /// Executes `word` at `pc`.
    pub fn exec_at(&mut self, pc: u32, word: u32) -> Executed {
        self.spu.set_pc(pc);
        self.exec(word)
    }
}

/// Bytes 0..16 plus `base`.
pub fn sequence(base: u8) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    for (index, byte) in bytes.iter_mut().enumerate() {
        *byte = base.wrapping_add(index as u8);
    }
    bytes
}

pub const T: u32 = u32::MAX;
pub const F: u32 = 0;
