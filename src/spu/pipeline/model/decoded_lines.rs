//! A decoded instruction as one line of the decoded code's memory, which pipeline mode borrows.
//!
//! The fetch models' [`DecodeCache`](super::decode_cache::DecodeCache) keeps 512 records: a
//! loop decodes once, but straight-line code longer than that (a hashing kernel of thousands
//! of instructions) would be decoded again on every pass. Behind it, in the 512 KiB that
//! instruction mode uses for its ops and pipeline mode leaves idle
//! ([`SpuState::lent_code_lines`]), each record is kept in a line of four 64-bit words,
//! direct-mapped by word address (16 384 lines: 64 KiB of code): a miss of the small cache
//! copies the line back instead of decoding. A line is checked by its address and word, so a
//! word changed by a store or DMA misses and is decoded again, as in the small cache.
//!
//! The line holds what decoding computes; what a table gives from the mnemonic (the class)
//! and what follows from the operands (the register set) is derived again when it is read.
//! Layout (bit 0 is the least significant):
//!
//! | word | bits |
//! |---|---|
//! | 0 | the address, complemented (0..31: zero bits are no address); the word (32..63) |
//! | 1 | mnemonic (0..7), RT, RA, RB, RC, target, third source (48..55), flags (56..63) |
//! | 2 | immediate (0..31), hint offset (32..47), first and second sources (48..63) |
//! | 3 | unused (zero) |
//!
//! Flags: completion duties (bits 0..1), illegal (2), replay (3..4), and whether fetch
//! predicts the next address rather than this one (5: channel instructions).

use super::decoded::{Decoded, Replay};
use super::inflight::{InFlight, NO_REGISTER};
use crate::spu::exec::LS_ADDRESS_MASK;
use crate::spu::exec::LentLine;
#[cfg(doc)]
use crate::spu::exec::SpuState;
use crate::spu::isa::{Instruction, Mnemonic};

const ILLEGAL: u64 = 1 << 2;
const REPLAY_SHIFT: u32 = 3;
const PREDICTS_NEXT: u64 = 1 << 5;

/// The line that keeps `decoded`.
pub(super) fn line_of(decoded: &Decoded) -> LentLine {
    let inflight = &decoded.inflight;
    let instruction = &inflight.instruction;
    let replay = match decoded.replay {
        Replay::Serializing => 0,
        Replay::Never => 1,
        Replay::Checked => 2,
        Replay::Target => 3,
    };
    let flags = u64::from(inflight.completion_duties & 3)
        | if inflight.illegal { ILLEGAL } else { 0 }
        | replay << REPLAY_SHIFT
        | if inflight.predicted_next != inflight.pc {
            PREDICTS_NEXT
        } else {
            0
        };
    [
        key(inflight.pc, instruction.word),
        u64::from(instruction.mnemonic as u8)
            | u64::from(instruction.rt) << 8
            | u64::from(instruction.ra) << 16
            | u64::from(instruction.rb) << 24
            | u64::from(instruction.rc) << 32
            | u64::from(inflight.target) << 40
            | u64::from(inflight.sources[2]) << 48
            | flags << 56,
        u64::from(instruction.imm as u32)
            | u64::from(instruction.hint_offset as u16) << 32
            | u64::from(inflight.sources[0]) << 48
            | u64::from(inflight.sources[1]) << 56,
        0,
    ]
}

/// The record `line` keeps for `word` at `pc`, `None` if it keeps another (or none).
#[inline(always)]
pub(super) fn decoded_from(line: &LentLine, pc: u32, word: u32) -> Option<Decoded> {
    let [kept, fields, immediates, _] = *line;
    if kept != key(pc, word) {
        return None;
    }
    let byte = |word: u64, at: u32| (word >> at) as u8;
    let mnemonic = *Mnemonic::ALL.get(usize::from(byte(fields, 0)))?;
    let instruction = Instruction {
        word,
        mnemonic,
        rt: byte(fields, 8),
        ra: byte(fields, 16),
        rb: byte(fields, 24),
        rc: byte(fields, 32),
        imm: immediates as u32 as i32,
        hint_offset: (immediates >> 32) as u16 as i16,
    };
    let target = byte(fields, 40);
    let sources = [byte(immediates, 48), byte(immediates, 56), byte(fields, 48)];
    let flags = byte(fields, 56);
    let replay = match (flags >> REPLAY_SHIFT) & 3 {
        0 => Replay::Serializing,
        1 => Replay::Never,
        2 => Replay::Checked,
        _ => Replay::Target,
    };
    let predicted_next = if u64::from(flags) & PREDICTS_NEXT != 0 {
        pc.wrapping_add(4) & LS_ADDRESS_MASK & !3
    } else {
        pc
    };
    // As `InFlight::new` sets it: NO_REGISTER (128) sets no bit.
    let mut registers = [0u64; 2];
    for register in [sources[0], sources[1], sources[2], target] {
        let bit = u64::from(register < NO_REGISTER) << (register % 64);
        registers[usize::from((register / 64) & 1)] |= bit;
    }
    Some(Decoded::from_parts(
        InFlight {
            pc,
            instruction,
            predicted_next,
            class: instruction.info().class,
            target,
            sources,
            registers,
            completion_duties: flags & 3,
            illegal: u64::from(flags) & ILLEGAL != 0,
            seq: 0,
        },
        replay,
    ))
}

/// Word 0 of the line of `word` at `pc`: never zero (no instruction is at `u32::MAX`).
#[inline(always)]
fn key(pc: u32, word: u32) -> u64 {
    u64::from(!pc) | u64::from(word) << 32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every record read back from its line is the record decoding builds, for words of every
    /// kind: each opcode's fields (every mnemonic binutils' SPU table lists decodes from some
    /// of these), channel instructions (which predict the next address), branches with
    /// feature bits, a `prof_cp` checkpoint, and illegal words.
    #[test]
    fn a_line_gives_back_the_decoded_record() {
        // Words whose kind the SPU ISA fixes by their opcode bits; the sweep below adds every
        // opcode with a few operand patterns.
        let named = [
            0x0000_0000, // stop 0
            0x4020_0000, // nop
            0x0020_0000, // lnop
            0x01a0_0002, // rdch (opcode 0x00d)
            0x21a0_0603, // wrch (opcode 0x10d)
            0xffff_ffff, // no opcode
        ];
        // `and $n,$n,$n` (opcode 0x0c1): a prof_cp checkpoint for n up to 31.
        let checkpoints = [0u32, 5, 31, 32].map(|n| 0x0c1 << 21 | n << 14 | n << 7 | n);
        // Opcode bits over the whole space, with the operand bits of a few patterns.
        let sweep = (0..2048u32).flat_map(|opcode| {
            [0x0012_3456, 0x001f_ffff, 0x0000_0001, 0x000a_bcde]
                .map(|operands| opcode << 21 | operands)
        });
        let words = named.into_iter().chain(checkpoints).chain(sweep);
        let mut decoded_count = 0;
        for (index, word) in words.enumerate() {
            let pc = (index as u32 * 4) & LS_ADDRESS_MASK;
            let built = Decoded::new(pc, word);
            let line = line_of(&built);
            let Some(read) = decoded_from(&line, pc, word) else {
                panic!("the line of {word:#010x} at {pc:#x} reads as no record");
            };
            assert_eq!(read.inflight, built.inflight, "{word:#010x}");
            assert!(read.replay == built.replay, "{word:#010x}: replay");
            assert_eq!(read.pc(), pc);
            // Another address or word is no hit.
            assert!(decoded_from(&line, pc ^ 4, word).is_none());
            assert!(decoded_from(&line, pc, word ^ 1).is_none());
            decoded_count += usize::from(!built.inflight.illegal);
        }
        assert!(decoded_count > 4000, "{decoded_count} legal words only");
        // An empty line (all-zero bits) keeps nothing, not even for the zero word.
        assert!(decoded_from(&[0; 4], 0, 0).is_none());
        assert!(decoded_from(&[0; 4], LS_ADDRESS_MASK & !3, 0).is_none());
    }
}
