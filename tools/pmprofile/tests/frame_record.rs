//! When the sampled function's caller is in the link register: hand-assembled AArch64
//! prologues and epilogues, and the firmware's own code.
mod common;

use pmprofile::Symbolizer;
use pmprofile::frame_record::record_established;

fn code(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

const STP_FP_LR_PRE: u32 = 0xA9BF_7BFD; // stp x29, x30, [sp, #-16]!
const MOV_FP_SP: u32 = 0x9100_03FD; // mov x29, sp
const BL: u32 = 0x9400_0010; // bl .+64
const LDP_FP_LR_POST: u32 = 0xA8C1_7BFD; // ldp x29, x30, [sp], #16
const RET: u32 = 0xD65F_03C0; // ret
const SUB_SP_32: u32 = 0xD100_83FF; // sub sp, sp, #32
const STP_FP_LR_16: u32 = 0xA901_7BFD; // stp x29, x30, [sp, #16]
const ADD_FP_SP_16: u32 = 0x9100_43FD; // add x29, sp, #16
const ADD_X0_1: u32 = 0x9100_0400; // add x0, x0, #1

#[test]
fn the_record_exists_between_the_frame_set_up_and_the_ret() {
    let f = code(&[STP_FP_LR_PRE, MOV_FP_SP, BL, LDP_FP_LR_POST, RET]);
    let established: Vec<bool> = (0..5).map(|i| record_established(&f, 4 * i)).collect();
    // At the stp and at the mov (not yet executed) x29 is the caller's; at the ret the record
    // was taken down.
    assert_eq!(established, [false, false, true, true, false]);
}

#[test]
fn a_frame_set_up_with_an_offset_counts_too() {
    let f = code(&[SUB_SP_32, STP_FP_LR_16, ADD_FP_SP_16, BL, RET]);
    assert!(!record_established(&f, 8));
    assert!(record_established(&f, 12));
}

#[test]
fn a_function_without_frame_pointer_never_has_a_record() {
    let f = code(&[ADD_X0_1, ADD_X0_1, RET]);
    assert!((0..3).all(|i| !record_established(&f, 4 * i)));
    assert!(!record_established(&[], 0));
}

#[test]
fn firmware_functions_have_their_record_after_the_prologue_only() {
    let elf = std::fs::read(common::firmware_elf()).unwrap();
    let symbolizer = Symbolizer::new(&elf).unwrap();
    let function = symbolizer
        .symbols()
        .iter()
        // `fetch_unit::<impl ..::fetch_unit::state::FetchUnit>::cycle`: the impl is not in the
        // type's module, so the symbol names both.
        .find(|s| s.name.contains("FetchUnit") && s.name.ends_with("::cycle"))
        .expect("a pipeline function in the firmware");
    assert!(
        symbolizer.caller_in_lr(function.address),
        "at the first instruction the caller is in x30"
    );
    let past_prologue = (1..32u64)
        .map(|i| function.address + 4 * i)
        .find(|&pc| !symbolizer.caller_in_lr(pc));
    assert!(
        past_prologue.is_some_and(|pc| pc - function.address <= 32),
        "{} keeps a frame record after a short prologue (built with frame pointers)",
        function.name
    );
}
