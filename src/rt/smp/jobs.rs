//! Running one function on every numbered core: each secondary core is powered on for it with
//! PSCI `CPU_ON` on its own stack, runs it, and powers itself off again with `CPU_OFF`.
#![allow(unsafe_code)]

use core::sync::atomic::Ordering;

use aarch64_rt::Stack;
use smccc::{Hvc, Smc};

use super::power::{AFFINITY, POWER, Power, init_secondary_core};
use super::start_error::{StartError, StartFailure};
use crate::rt::core_id::{CoreId, MAX_CORES, cores, mpidr, this_core};
use crate::rt::fault_probe::{Expect, Faulted, guarded};
use crate::rt::psci::{AffinityState, Conduit, Psci, PsciError};

/// Pages (4 KiB) of each secondary core's stack: 1 MiB, as much as the boot core has, since
/// the same work (an SPU run with its probes and listeners) runs on either.
const STACK_PAGES: usize = 256;

/// The secondary cores' stacks, one per core number 1..MAX_CORES. In a `.stack` section, which
/// is NOLOAD and not zeroed (a stack needs no initial value).
#[unsafe(link_section = ".stack.pmprobe_cores")]
static mut STACKS: [Stack<STACK_PAGES>; MAX_CORES - 1] = [const { Stack::new() }; MAX_CORES - 1];

/// The stack of core `core` (none for core 0, which runs on the boot stack).
fn stack_of(core: CoreId) -> Option<*mut Stack<STACK_PAGES>> {
    let slot = core.index().checked_sub(1)?;
    (slot < MAX_CORES - 1).then(|| {
        (&raw mut STACKS)
            .cast::<Stack<STACK_PAGES>>()
            .wrapping_add(slot)
    })
}

/// A job with its lifetime erased, to hand to a core that is being started.
#[derive(Clone, Copy)]
pub(super) struct JobRef(*const (dyn Fn(CoreId) + Sync + 'static));

// SAFETY: the job behind the pointer is `Sync`, so calling it from another core is allowed;
// whoever makes a `JobRef` keeps the job alive until every core it was sent to has finished.
unsafe impl Send for JobRef {}

impl JobRef {
    /// # Safety
    /// `job` must stay alive until every core it is sent to has reached [`Power::Finished`].
    pub(super) unsafe fn new(job: &(dyn Fn(CoreId) + Sync)) -> Self {
        let pointer: *const (dyn Fn(CoreId) + Sync + '_) = job;
        // SAFETY: only the lifetime changes; the caller keeps the job alive as long as it is used.
        Self(unsafe {
            core::mem::transmute::<
                *const (dyn Fn(CoreId) + Sync + '_),
                *const (dyn Fn(CoreId) + Sync + 'static),
            >(pointer)
        })
    }
}

/// A hint that lets QEMU's round-robin thread run another virtual core (QEMU implements `yield`
/// that way when it runs all vCPUs in one thread); a no-op hint on a real core.
fn let_others_run() {
    // SAFETY: `yield` is a hint with no architectural effect.
    unsafe { core::arch::asm!("yield", options(nomem, nostack, preserves_flags)) };
}

fn power(core: CoreId) -> Option<Power> {
    let state = POWER.get(core.index())?.load(Ordering::Acquire);
    Some(match state {
        0 => Power::Off,
        1 => Power::Running,
        _ => Power::Finished,
    })
}

fn set_power(core: CoreId, state: Power) {
    if let Some(slot) = POWER.get(core.index()) {
        slot.store(state as u8, Ordering::Release);
    }
}

/// Starts core `core` (MPIDR `target`) on its stack to run `job`.
pub(super) fn start(core: CoreId, target: u64, job: JobRef) -> Result<(), StartError> {
    let failed = |reason| StartError {
        mpidr: target,
        core: Some(core),
        reason,
    };
    let stack = stack_of(core).ok_or(failed(StartFailure::NoCoreNumberLeft))?;
    if power(core) != Some(Power::Off) {
        return Err(failed(StartFailure::StillOn));
    }
    set_power(core, Power::Running);
    let entry = move || secondary_main(core, job);
    let conduit = Conduit::default_for_this_core();
    let target = target & AFFINITY;
    // SAFETY: `stack` is core `core`'s own stack, in the identity map with the same attributes
    // for every core, and unused: the core is off (checked above), and no other core is started
    // on it (one stack per core number).
    let called = guarded(Expect::UnansweredCall, || unsafe {
        match conduit {
            Conduit::Hvc => aarch64_rt::start_core::<Hvc, _, STACK_PAGES>(target, stack, entry),
            Conduit::Smc => aarch64_rt::start_core::<Smc, _, STACK_PAGES>(target, stack, entry),
        }
    });
    let result = match called {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(failed(StartFailure::Psci(PsciError::Call(e)))),
        Err(Faulted) => Err(failed(StartFailure::Psci(PsciError::NotAnswering(conduit)))),
    };
    if result.is_err() {
        set_power(core, Power::Off);
    }
    result
}

/// A secondary core's life: learn its number, run the job, power off.
fn secondary_main(core: CoreId, job: JobRef) -> ! {
    init_secondary_core(core);
    // SAFETY: whoever sent the job keeps it alive until this core reports `Finished` below.
    let job = unsafe { &*job.0 };
    job(core);
    crate::rt::console::flush_this_core();
    set_power(core, Power::Finished);
    wake_waiters();
    // Returns only when the firmware refused; the core then stays parked here, and the core
    // waiting for it to power off reports it.
    let _ = Psci::default().cpu_off();
    loop {
        aarch64_cpu::asm::wfe();
    }
}

fn wake_waiters() {
    aarch64_cpu::asm::barrier::dsb(aarch64_cpu::asm::barrier::ISHST);
    aarch64_cpu::asm::sev();
}

/// AFFINITY_INFO polls before a finished core that is still on counts as stuck.
const POWER_OFF_POLLS: u32 = 1_000_000;

/// Waits until `core`, started for a job, has finished it and powered off. A core that
/// finished but stays on is reported and stays marked as running, so it is not started again.
pub(super) fn wait_until_off(core: CoreId, target: u64) -> Result<(), StartError> {
    while power(core) == Some(Power::Running) {
        aarch64_cpu::asm::wfe();
    }
    let psci = Psci::default();
    for _ in 0..POWER_OFF_POLLS {
        if psci.affinity_info(target) == Ok(AffinityState::Off) {
            set_power(core, Power::Off);
            return Ok(());
        }
        let_others_run();
    }
    Err(StartError {
        mpidr: target,
        core: Some(core),
        reason: StartFailure::DidNotPowerOff,
    })
}

/// Runs `job` on every numbered core at once, this core included (it runs its own part while the
/// others run theirs), and returns when every core has finished and the secondary cores are off
/// again. Returns the cores that could not be started for this round (their part is not run:
/// work that must not be lost is handed out so that the cores that did start take it, e.g. from
/// a shared counter).
///
/// Call it from one core at a time, while the other cores are off (between rounds): a core
/// still busy with another round is reported as [`StartFailure::StillOn`].
pub fn on_each_core(job: &(dyn Fn(CoreId) + Sync)) -> heapless::Vec<StartError, MAX_CORES> {
    let me = this_core();
    let mut errors = heapless::Vec::new();
    let mut started: heapless::Vec<(CoreId, u64), MAX_CORES> = heapless::Vec::new();
    // SAFETY: this function waits below until every core it started has finished the job.
    let job_ref = unsafe { JobRef::new(job) };
    for core in cores().filter(|&core| core != me) {
        let Some(target) = mpidr(core) else {
            continue;
        };
        match start(core, target, job_ref) {
            Ok(()) => {
                let _ = started.push((core, target));
            }
            Err(e) => {
                let _ = errors.push(e);
            }
        }
    }
    job(me);
    for &(core, target) in &started {
        if let Err(e) = wait_until_off(core, target) {
            let _ = errors.push(e);
        }
    }
    errors
}
