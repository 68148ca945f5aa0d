//! The exception handlers behind aarch64-rt's vector table.
//!
//! aarch64-rt's vectors save x0-x18, x29, x30, ELR and SPSR and call a handler per exception kind.
//! They do not save the FP/SIMD registers, which the interrupted code may be using while a handler
//! written in Rust may use them too (any `memcpy` does): the two handlers that *return* (IRQ, and
//! a synchronous exception from the current EL, which a PSCI probe or a future breakpoint resumes
//! from) therefore first save q0-q7, q16-q31, FPSR and FPCR (the registers AAPCS64 lets a callee
//! change; d8-d15 are kept by the Rust code itself), in a naked wrapper.
//!
//! An IRQ is dispatched to [`super::irq`] and returns to the interrupted code. Every other
//! exception prints a report (the exception class by name, ESR, ELR, FAR, SPSR) and ends QEMU
//! with [`EXIT_EXCEPTION`](super::EXIT_EXCEPTION) instead of hanging; the one synchronous
//! exception that returns is the fault a probe of the runtime expects (an `hvc`/`smc` that no
//! firmware answers, a read where no device is).
use crate::arch::esr::{ExceptionKind, Syndrome, VectorKind};
use aarch64_cpu::registers::{ESR_EL1, FAR_EL1, Readable};
use aarch64_rt::{ExceptionHandlers, RegisterState, RegisterStateRef};
use core::arch::naked_asm;

/// The vector table's handlers.
struct Handlers;

aarch64_rt::exception_handlers!(Handlers);

/// Saves the caller-saved FP/SIMD state and the frame record, calls `$handler` with the
/// register-state pointer still in x0, restores, returns. 416 bytes of stack.
macro_rules! preserving_fp_state {
    ($handler:path) => {
        naked_asm!(
            "stp x29, x30, [sp, #-416]!",
            "mov x29, sp",
            "stp q0, q1, [sp, #16]",
            "stp q2, q3, [sp, #48]",
            "stp q4, q5, [sp, #80]",
            "stp q6, q7, [sp, #112]",
            "stp q16, q17, [sp, #144]",
            "stp q18, q19, [sp, #176]",
            "stp q20, q21, [sp, #208]",
            "stp q22, q23, [sp, #240]",
            "stp q24, q25, [sp, #272]",
            "stp q26, q27, [sp, #304]",
            "stp q28, q29, [sp, #336]",
            "stp q30, q31, [sp, #368]",
            "mrs x9, fpsr",
            "mrs x10, fpcr",
            "stp x9, x10, [sp, #400]",
            "bl {handler}",
            "ldp x9, x10, [sp, #400]",
            "msr fpsr, x9",
            "msr fpcr, x10",
            "ldp q0, q1, [sp, #16]",
            "ldp q2, q3, [sp, #48]",
            "ldp q4, q5, [sp, #80]",
            "ldp q6, q7, [sp, #112]",
            "ldp q16, q17, [sp, #144]",
            "ldp q18, q19, [sp, #176]",
            "ldp q20, q21, [sp, #208]",
            "ldp q22, q23, [sp, #240]",
            "ldp q24, q25, [sp, #272]",
            "ldp q26, q27, [sp, #304]",
            "ldp q28, q29, [sp, #336]",
            "ldp q30, q31, [sp, #368]",
            "ldp x29, x30, [sp], #416",
            "ret",
            handler = sym $handler,
        )
    };
}

impl ExceptionHandlers for Handlers {
    #[unsafe(naked)]
    extern "C" fn sync_current(register_state: RegisterStateRef) {
        preserving_fp_state!(synchronous)
    }

    #[unsafe(naked)]
    extern "C" fn irq_current(register_state: RegisterStateRef) {
        preserving_fp_state!(irq)
    }

    extern "C" fn fiq_current(register_state: RegisterStateRef) {
        fatal(ExceptionKind::Fiq, false, &register_state)
    }

    extern "C" fn serror_current(register_state: RegisterStateRef) {
        fatal(ExceptionKind::SError, false, &register_state)
    }

    extern "C" fn sync_lower(register_state: RegisterStateRef) {
        fatal(ExceptionKind::Synchronous, true, &register_state)
    }

    extern "C" fn irq_lower(register_state: RegisterStateRef) {
        fatal(ExceptionKind::Irq, true, &register_state)
    }

    extern "C" fn fiq_lower(register_state: RegisterStateRef) {
        fatal(ExceptionKind::Fiq, true, &register_state)
    }

    extern "C" fn serror_lower(register_state: RegisterStateRef) {
        fatal(ExceptionKind::SError, true, &register_state)
    }
}

/// A synchronous exception from the current EL: resumed only when it is a debug exception the
/// debug monitor handled or the fault a probe expected (no PSCI firmware, no device), otherwise
/// reported.
extern "C" fn synchronous(mut register_state: RegisterStateRef) {
    // SAFETY: the debug monitor only changes ELR and SPSR, to return to the same instruction
    // with a single step armed or to the next one after the step.
    if super::debug_exceptions::handle(unsafe { register_state.get_mut() }) {
        return;
    }
    // SAFETY: `skip_expected_fault` only moves ELR past the one probing instruction and sets x0,
    // that instruction's only output, to a neutral result.
    if super::fault_probe::skip_expected_fault(unsafe { register_state.get_mut() }) {
        return;
    }
    fatal(ExceptionKind::Synchronous, false, &register_state)
}

extern "C" fn irq(register_state: RegisterStateRef) {
    super::irq::dispatch(register_state.as_ref());
}

/// Prints the report and ends QEMU.
fn fatal(kind: ExceptionKind, from_lower_el: bool, state: &RegisterState) -> ! {
    report(
        VectorKind::from_spsr(kind, from_lower_el, state.spsr),
        state,
    );
    super::exit(super::EXIT_EXCEPTION)
}

/// Prints the exception report (the format `qemu/run` users and the QEMU tests read).
fn report(kind: VectorKind, state: &RegisterState) {
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
    crate::println!("    ELR_EL1  = 0x{:016x}", state.elr);
    crate::println!("    FAR_EL1  = 0x{:016x}", far);
    crate::println!("    SPSR_EL1 = 0x{:016x}", state.spsr);
    // aarch64-rt's `sp` field holds x30, the link register.
    crate::println!(
        "    x0 = 0x{:016x}  x1 = 0x{:016x}  lr = 0x{:016x}",
        state.registers[0],
        state.registers[1],
        state.sp
    );
}
