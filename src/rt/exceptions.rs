//! The EL1 exception vector table.
//!
//! Every entry saves the full register state (x0-x30, ELR, SPSR, FPSR, FPCR and q0-q31: Rust code
//! in a handler may use SIMD registers, so an interrupted program's FP state must survive) and calls
//! [`__pmprobe_exception`]. IRQs are dispatched to [`super::irq`] and return to the interrupted
//! code; every other exception prints a report and ends QEMU with
//! [`EXIT_EXCEPTION`](super::EXIT_EXCEPTION) instead of hanging.
use crate::arch::esr::{Syndrome, VectorKind};
use aarch64_cpu::registers::{ESR_EL1, FAR_EL1, Readable};
use core::arch::global_asm;

/// Saved register state of an interrupted context, as laid out by the vector code.
#[repr(C)]
#[derive(Debug)]
pub struct ExceptionFrame {
    /// x0..x30.
    pub x: [u64; 31],
    /// ELR_EL1: the return address (the faulting instruction for a synchronous exception).
    pub elr: u64,
    /// SPSR_EL1: the interrupted PSTATE.
    pub spsr: u64,
    /// FPSR of the interrupted context.
    pub fpsr: u64,
    /// FPCR of the interrupted context.
    pub fpcr: u64,
    _pad: u64,
    /// q0..q31.
    pub q: [u128; 32],
}

const _: () = assert!(core::mem::size_of::<ExceptionFrame>() == 800);

global_asm!(
    r#"
    .equ FRAME_SIZE, 800

.macro VECTOR kind
    .balign 0x80
    sub     sp, sp, #FRAME_SIZE
    stp     x0, x1, [sp, #0]
    mov     x0, #\kind
    b       __pmprobe_vector_common
.endm

    .section .text.vectors, "ax"
    .balign 0x800
    .global __pmprobe_vectors
__pmprobe_vectors:
    VECTOR 0
    VECTOR 1
    VECTOR 2
    VECTOR 3
    VECTOR 4
    VECTOR 5
    VECTOR 6
    VECTOR 7
    VECTOR 8
    VECTOR 9
    VECTOR 10
    VECTOR 11
    VECTOR 12
    VECTOR 13
    VECTOR 14
    VECTOR 15

__pmprobe_vector_common:
    stp     x2, x3, [sp, #16]
    stp     x4, x5, [sp, #32]
    stp     x6, x7, [sp, #48]
    stp     x8, x9, [sp, #64]
    stp     x10, x11, [sp, #80]
    stp     x12, x13, [sp, #96]
    stp     x14, x15, [sp, #112]
    stp     x16, x17, [sp, #128]
    stp     x18, x19, [sp, #144]
    stp     x20, x21, [sp, #160]
    stp     x22, x23, [sp, #176]
    stp     x24, x25, [sp, #192]
    stp     x26, x27, [sp, #208]
    stp     x28, x29, [sp, #224]
    mrs     x1, elr_el1
    stp     x30, x1, [sp, #240]
    mrs     x1, spsr_el1
    mrs     x2, fpsr
    stp     x1, x2, [sp, #256]
    mrs     x1, fpcr
    str     x1, [sp, #272]
    stp     q0, q1, [sp, #288]
    stp     q2, q3, [sp, #320]
    stp     q4, q5, [sp, #352]
    stp     q6, q7, [sp, #384]
    stp     q8, q9, [sp, #416]
    stp     q10, q11, [sp, #448]
    stp     q12, q13, [sp, #480]
    stp     q14, q15, [sp, #512]
    stp     q16, q17, [sp, #544]
    stp     q18, q19, [sp, #576]
    stp     q20, q21, [sp, #608]
    stp     q22, q23, [sp, #640]
    stp     q24, q25, [sp, #672]
    stp     q26, q27, [sp, #704]
    stp     q28, q29, [sp, #736]
    stp     q30, q31, [sp, #768]
    mov     x1, sp
    bl      __pmprobe_exception
    ldp     q0, q1, [sp, #288]
    ldp     q2, q3, [sp, #320]
    ldp     q4, q5, [sp, #352]
    ldp     q6, q7, [sp, #384]
    ldp     q8, q9, [sp, #416]
    ldp     q10, q11, [sp, #448]
    ldp     q12, q13, [sp, #480]
    ldp     q14, q15, [sp, #512]
    ldp     q16, q17, [sp, #544]
    ldp     q18, q19, [sp, #576]
    ldp     q20, q21, [sp, #608]
    ldp     q22, q23, [sp, #640]
    ldp     q24, q25, [sp, #672]
    ldp     q26, q27, [sp, #704]
    ldp     q28, q29, [sp, #736]
    ldp     q30, q31, [sp, #768]
    ldr     x1, [sp, #272]
    msr     fpcr, x1
    ldp     x1, x2, [sp, #256]
    msr     spsr_el1, x1
    msr     fpsr, x2
    ldp     x30, x1, [sp, #240]
    msr     elr_el1, x1
    ldp     x0, x1, [sp, #0]
    ldp     x2, x3, [sp, #16]
    ldp     x4, x5, [sp, #32]
    ldp     x6, x7, [sp, #48]
    ldp     x8, x9, [sp, #64]
    ldp     x10, x11, [sp, #80]
    ldp     x12, x13, [sp, #96]
    ldp     x14, x15, [sp, #112]
    ldp     x16, x17, [sp, #128]
    ldp     x18, x19, [sp, #144]
    ldp     x20, x21, [sp, #160]
    ldp     x22, x23, [sp, #176]
    ldp     x24, x25, [sp, #192]
    ldp     x26, x27, [sp, #208]
    ldp     x28, x29, [sp, #224]
    add     sp, sp, #FRAME_SIZE
    eret
"#
);

/// IRQ taken from the current EL while using SP_ELx: the only vector that returns.
const IRQ_CURRENT_EL_SPX: u64 = 5;

#[unsafe(no_mangle)]
extern "C" fn __pmprobe_exception(kind: u64, frame: &mut ExceptionFrame) {
    if kind == IRQ_CURRENT_EL_SPX {
        super::irq::dispatch();
        return;
    }
    report(VectorKind(kind as u8), frame);
    super::exit(super::EXIT_EXCEPTION);
}

/// Prints the exception report (the format `qemu/run` users and the QEMU tests read).
fn report(kind: VectorKind, frame: &ExceptionFrame) {
    let esr = Syndrome(ESR_EL1.get());
    let far = FAR_EL1.get();
    crate::println!();
    crate::println!("*** EXCEPTION: {}", kind);
    crate::println!(
        "    class: {} (EC=0x{:02x}, IL={})",
        esr.class(),
        esr.ec(),
        u8::from(esr.il())
    );
    crate::println!("    ESR_EL1  = 0x{:016x} (ISS=0x{:07x})", esr.0, esr.iss());
    crate::println!("    ELR_EL1  = 0x{:016x}", frame.elr);
    crate::println!("    FAR_EL1  = 0x{:016x}", far);
    crate::println!("    SPSR_EL1 = 0x{:016x}", frame.spsr);
    crate::println!(
        "    x0 = 0x{:016x}  x1 = 0x{:016x}  lr = 0x{:016x}",
        frame.x[0],
        frame.x[1],
        frame.x[30]
    );
}
