//! Asking the platform whether something is there without crashing when it is not.
//!
//! Two questions end in a synchronous exception on a board that lacks the answer: an `hvc` or
//! `smc` that no firmware handles is an undefined instruction, and a read of a device that does not
//! exist is an external data abort. [`guarded`] arms the exception handler for exactly one such
//! fault: it skips the faulting instruction, gives it a neutral result, and the caller gets
//! `Err(Faulted)`, so the runtime reports "no PSCI firmware" or "no GIC" instead of dying.
//!
//! The armed state is per core (a table indexed by the core's number, [`super::core_id::this_core`]):
//! a probe covers one instruction of the core that armed it, inside a critical section of that
//! core, while other cores may probe at the same time.
use crate::arch::esr::{ExceptionClass, Syndrome};
use crate::arch::interrupts::free;
use aarch64_cpu::registers::{ESR_EL1, Readable};
use aarch64_rt::RegisterState;
use core::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use super::core_id::{MAX_CORES, this_core};

/// The fault a probe expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Expect {
    /// An `hvc #imm` / `smc #imm` that is undefined (EC 0): returns NOT_SUPPORTED (-1) in x0.
    UnansweredCall = 1,
    /// A data abort on [`read_u32`]'s load: returns 0.
    MissingDevice = 2,
}

/// The probed operation raised the fault it expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Faulted;

/// One core's probe state.
struct ProbeFlags {
    /// 0 = nothing armed, otherwise the `Expect` value.
    armed: AtomicU8,
    faulted: AtomicBool,
}

static FLAGS: [ProbeFlags; MAX_CORES] = [const {
    ProbeFlags {
        armed: AtomicU8::new(0),
        faulted: AtomicBool::new(false),
    }
}; MAX_CORES];

/// A probe needs its core's flags; code running on a core without a number (not started by
/// this runtime) probes nothing, and its faults are reported as any other.
fn this_core_flags() -> Option<&'static ProbeFlags> {
    FLAGS.get(this_core().index())
}

/// Forgets whatever a core's previous power-on left armed.
pub(super) fn reset_this_core() {
    if let Some(flags) = this_core_flags() {
        flags.armed.store(0, Ordering::Relaxed);
        flags.faulted.store(false, Ordering::Relaxed);
    }
}

/// Runs `f` with the handler armed for one `expect` fault.
pub(super) fn guarded<R>(expect: Expect, f: impl FnOnce() -> R) -> Result<R, Faulted> {
    free(|_| {
        let Some(flags) = this_core_flags() else {
            return Ok(f());
        };
        flags.faulted.store(false, Ordering::Relaxed);
        flags.armed.store(expect as u8, Ordering::Relaxed);
        let result = f();
        flags.armed.store(0, Ordering::Relaxed);
        if flags.faulted.swap(false, Ordering::Relaxed) {
            Err(Faulted)
        } else {
            Ok(result)
        }
    })
}

/// `ldr w0, [x1]`: the one load [`read_u32`] probes with.
const PROBE_LOAD: u32 = 0xB940_0020;
/// `hvc #imm` and `smc #imm` with the immediate masked out.
const HVC: u32 = 0xD400_0002;
const SMC: u32 = 0xD400_0003;
const IMM16_MASK: u32 = 0xFFFF << 5;
/// SMCCC's NOT_SUPPORTED (-1).
const NOT_SUPPORTED: u64 = u64::MAX;

/// Reads the 32-bit device register at `address`; `Err` when nothing answers there.
pub(super) fn read_u32(address: usize) -> Result<u32, Faulted> {
    guarded(Expect::MissingDevice, || {
        let value: u64;
        // SAFETY: a single load from an address the identity map covers as Device memory; when
        // no device decodes it, the data abort is skipped by `skip_expected_fault`, which
        // recognises exactly this instruction. Reading a device ID register has no side effect.
        unsafe {
            core::arch::asm!(
                ".inst {load}",
                load = const PROBE_LOAD,
                in("x1") address,
                lateout("x0") value,
                options(nostack, readonly, preserves_flags),
            );
        }
        value as u32
    })
}

/// Called by the synchronous exception handler: when the exception is the fault a probe armed
/// for, skips the instruction, sets its neutral result and reports `true`.
pub(super) fn skip_expected_fault(state: &mut RegisterState) -> bool {
    let Some(flags) = this_core_flags() else {
        return false;
    };
    let armed = flags.armed.load(Ordering::Relaxed);
    if armed == 0 {
        return false;
    }
    let class = Syndrome(ESR_EL1.get()).class();
    // SAFETY: ELR is the address of the instruction that raised the exception; it was just
    // fetched for execution, so it is mapped and readable at EL1.
    let word = unsafe { core::ptr::read_volatile(state.elr as *const u32) };
    let (expected, result) = if armed == Expect::UnansweredCall as u8 {
        let call = word & !IMM16_MASK;
        (
            class == ExceptionClass::Unknown && (call == HVC || call == SMC),
            NOT_SUPPORTED,
        )
    } else {
        (
            class == ExceptionClass::DataAbortSame && word == PROBE_LOAD,
            0,
        )
    };
    if !expected {
        return false;
    }
    flags.faulted.store(true, Ordering::Relaxed);
    state.registers[0] = result;
    state.elr += 4;
    true
}
