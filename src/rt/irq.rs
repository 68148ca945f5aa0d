//! Interrupts: the GIC (v2 or v3, found at run time, driven by the `arm-gic` crate) and a table
//! of handlers indexed by INTID.
//!
//! [`enable`] installs a handler and enables its interrupt (setting the GIC up on first use);
//! the dispatcher, called from the IRQ vector, acknowledges the interrupt, runs its handler with
//! IRQs masked and ends it. Useful INTIDs on `virt`: 30 = EL1 physical timer (PPI 14), 27 =
//! virtual timer (PPI 11), 23 = PMU overflow (PPI 7). Private interrupts (SGIs and PPIs) are
//! enabled for the calling core: each core enables its own PMU overflow PPI, with the same
//! handler table.
//!
//! The GIC is reached only under one lock ([`IrqSpinMutex`]: IRQs masked on this core, other
//! cores kept out), which makes the driver object unique on the whole machine: the distributor
//! is shared by all cores, and arm-gic's driver object covers the distributor and the calling
//! core's CPU interface (GICv2) or redistributor (GICv3) together. The distributor is set up
//! once, by the first core that uses the GIC; each core sets up its own CPU interface the first
//! time it uses the GIC after it was powered on.
use crate::sync::IrqSpinMutex;
use arm_gic::gicv2::GicV2;
use arm_gic::gicv3::registers::{Gicd, GicrSgi};
use arm_gic::gicv3::{GicCpuInterface, GicRedistributorIterator, GicV3};
use arm_gic::{IntId, InterruptGroup, UniqueMmioPointer};
use core::fmt;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use super::core_id::{MAX_CORES, this_core};
use super::fault_probe;
use super::platform::{GICC_BASE, GICD_BASE, GICR_BASE};

/// Handler slots: every SGI, PPI and SPI INTID (0..1020). The GIC may implement fewer; see
/// [`lines`].
pub const HANDLER_SLOTS: u32 = 1020;

/// The priority given to every enabled interrupt (lower is more urgent; the mask lets all
/// through).
const PRIORITY: u8 = 0x80;

/// Which GIC architecture the board has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GicVersion {
    /// GICv2: memory-mapped CPU interface.
    V2,
    /// GICv3 (or v4): system-register CPU interface and a redistributor per core.
    V3,
}

impl fmt::Display for GicVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::V2 => "GICv2",
            Self::V3 => "GICv3",
        })
    }
}

/// Why an interrupt could not be set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqError {
    /// No GICv2 or GICv3 distributor answers at the platform's address (GICD_PIDR2 is shown).
    NoGic {
        /// The GICD_PIDR2 value read.
        pidr2: u32,
    },
    /// The GICv3 has no redistributor for this core (its MPIDR is shown).
    NoRedistributor {
        /// MPIDR_EL1 of this core.
        mpidr: u64,
    },
    /// The INTID is not one the GIC implements (or a special one, 1020 and above).
    OutOfRange {
        /// The INTID asked for.
        intid: u32,
        /// INTIDs the GIC implements: 0..lines.
        lines: u32,
    },
    /// The GIC did not keep the enable bit (an INTID it does not implement).
    Refused {
        /// The INTID asked for.
        intid: u32,
    },
    /// The calling core has no core number (it was not started by this runtime), so the
    /// runtime keeps no GIC state for it.
    NoCoreNumber,
}

impl fmt::Display for IrqError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoGic { pidr2 } => write!(
                f,
                "no GICv2 or GICv3 distributor at {GICD_BASE:#x} (GICD_PIDR2 = {pidr2:#x})"
            ),
            Self::NoRedistributor { mpidr } => {
                write!(
                    f,
                    "no GICv3 redistributor for the core with MPIDR {mpidr:#x}"
                )
            }
            Self::OutOfRange { intid, lines } => write!(
                f,
                "INTID {intid} out of range (this GIC implements INTIDs 0 to {})",
                lines.saturating_sub(1)
            ),
            Self::Refused { intid } => write!(f, "the GIC refused to enable INTID {intid}"),
            Self::NoCoreNumber => f.write_str("this core has no core number from the runtime"),
        }
    }
}

impl core::error::Error for IrqError {}

/// What an interrupt interrupted: read from the exception frame, for handlers that sample the
/// interrupted code (the profiler's PMU overflow and timer handlers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted {
    /// ELR_EL1: the instruction the interrupt was taken before.
    pub pc: u64,
    /// x29 of the interrupted code: its innermost frame record.
    pub fp: u64,
    /// x30 of the interrupted code: its link register.
    pub lr: u64,
    /// SPSR_EL1: the interrupted PSTATE.
    pub spsr: u64,
}

/// Handler function pointers stored as `usize` (0 = none), so that an interrupt reading the table
/// while the program installs a handler sees either the old or the new value, never a torn one.
/// Bit 0 set marks a handler that takes the [`Interrupted`] context
/// ([`enable_with_context`]); A64 code is 4-byte aligned, so a function address never has it.
static HANDLERS: [AtomicUsize; HANDLER_SLOTS as usize] =
    [const { AtomicUsize::new(0) }; HANDLER_SLOTS as usize];

/// 0 = not found (yet), 2 / 3 = the GIC version.
static VERSION: AtomicU8 = AtomicU8::new(0);

/// What is set up, behind the lock that every GIC access takes.
struct GicState {
    /// The distributor (and, on a GICv3, every redistributor) has its default settings.
    distributor_ready: bool,
    /// Each core's CPU interface is enabled, by core number.
    cpu_interface_ready: [bool; MAX_CORES],
}

static GIC: IrqSpinMutex<GicState> = IrqSpinMutex::new(GicState {
    distributor_ready: false,
    cpu_interface_ready: [false; MAX_CORES],
});

/// Called when a core is powered on: its CPU interface is set up again at its next GIC use.
pub(super) fn forget_this_core() {
    GIC.lock(|state| {
        if let Some(ready) = state.cpu_interface_ready.get_mut(this_core().index()) {
            *ready = false;
        }
    });
}

/// The driver for this core, unique while it exists (only under the GIC lock).
enum Gic<'a> {
    V2(GicV2<'a>),
    V3 { gic: GicV3<'a>, core: usize },
}

/// Finds the GIC: a core with the GICv3 system-register CPU interface (ID_AA64PFR0_EL1.GIC) must
/// have a GICv3/v4 distributor, whose GICD_PIDR2 sits at 0xFFE8 of its 64 KiB frame; otherwise a
/// GICv2 distributor has it at 0xFE8 of its 4 KiB frame. Its ArchRev field (bits 7:4) must agree.
/// The read is probed: no device there is an error, not a crash.
fn detect() -> Result<GicVersion, IrqError> {
    use aarch64_cpu::registers::{ID_AA64PFR0_EL1, Readable};
    // ID_AA64PFR0_EL1.GIC, bits 27:24 (aarch64-cpu does not name the field).
    let sysreg_interface = (ID_AA64PFR0_EL1.get() >> 24) & 0xF != 0;
    let (offset, version) = if sysreg_interface {
        (0xFFE8, GicVersion::V3)
    } else {
        (0xFE8, GicVersion::V2)
    };
    let pidr2 = fault_probe::read_u32(GICD_BASE + offset).unwrap_or(0);
    match ((pidr2 >> 4) & 0xF, version) {
        (2, GicVersion::V2) | (3 | 4, GicVersion::V3) => Ok(version),
        _ => Err(IrqError::NoGic { pidr2 }),
    }
}

/// The board's GIC version (found once).
pub fn version() -> Result<GicVersion, IrqError> {
    match VERSION.load(Ordering::Relaxed) {
        2 => return Ok(GicVersion::V2),
        3 => return Ok(GicVersion::V3),
        _ => {}
    }
    let found = detect();
    VERSION.store(
        match found {
            Ok(GicVersion::V2) => 2,
            Ok(GicVersion::V3) => 3,
            Err(_) => 0,
        },
        Ordering::Relaxed,
    );
    found
}

fn mpidr() -> u64 {
    use aarch64_cpu::registers::{MPIDR_EL1, Readable};
    MPIDR_EL1.get()
}

/// Runs `f` on this core's GIC driver under the GIC lock, setting the distributor up on the
/// machine's first use and this core's CPU interface on this core's first use.
fn with_gic<R>(f: impl FnOnce(&mut Gic<'_>) -> R) -> Result<R, IrqError> {
    let version = version()?;
    GIC.lock(|state| {
        let mut gic = match version {
            GicVersion::V2 => {
                // SAFETY: the platform's GICv2 distributor and CPU interface frames, mapped as
                // Device memory; no other driver object exists while this one does (the GIC
                // lock).
                let gic = unsafe { GicV2::new(GICD_BASE as *mut _, GICC_BASE as *mut _) };
                Gic::V2(gic)
            }
            GicVersion::V3 => {
                let (gicd, gicr) = match (
                    NonNull::new(GICD_BASE as *mut Gicd),
                    NonNull::new(GICR_BASE as *mut GicrSgi),
                ) {
                    (Some(gicd), Some(gicr)) => (gicd, gicr),
                    _ => return Err(IrqError::NoGic { pidr2: 0 }),
                };
                let mpidr = mpidr();
                let (count, core) = redistributors(gicr, mpidr)?;
                let core = core.ok_or(IrqError::NoRedistributor { mpidr })?;
                // SAFETY: the platform's GICv3 distributor and redistributor frames, mapped as
                // Device memory up to the redistributor marked Last; unique as above.
                let gic = unsafe { GicV3::new(UniqueMmioPointer::new(gicd), gicr, count) }
                    .map_err(|_| IrqError::NoRedistributor { mpidr })?;
                Gic::V3 { gic, core }
            }
        };
        let cpu_ready = state
            .cpu_interface_ready
            .get_mut(this_core().index())
            .ok_or(IrqError::NoCoreNumber)?;
        if !*cpu_ready {
            match &mut gic {
                // GICv2: the CPU interface and the SGI/PPI group register are banked per core;
                // the rest of what `setup` writes is the same value from every core.
                Gic::V2(gic) => gic.setup(),
                Gic::V3 { gic, core } if !state.distributor_ready => gic.setup(*core),
                Gic::V3 { gic, core } => {
                    gic.init_cpu(*core);
                    GicCpuInterface::enable_group1(true);
                }
            }
            if let Gic::V3 { .. } = gic {
                GicCpuInterface::set_priority_mask(0xFF);
            }
            state.distributor_ready = true;
            *cpu_ready = true;
        }
        Ok(f(&mut gic))
    })
}

/// The number of redistributors and the index of the one whose affinity is `mpidr`'s.
fn redistributors(gicr: NonNull<GicrSgi>, mpidr: u64) -> Result<(usize, Option<usize>), IrqError> {
    // SAFETY: `gicr` is the redistributor region, mapped up to the frame marked Last; the
    // iterator's pointers live only in this function, under the caller's GIC lock.
    let frames = unsafe { GicRedistributorIterator::new(gicr) }
        .map_err(|_| IrqError::NoRedistributor { mpidr })?;
    let affinity = mpidr & AFFINITY;
    let mut count = 0;
    let mut this_core = None;
    for (index, frame) in frames.enumerate() {
        count = index + 1;
        if frame.typer().core_mpidr() & AFFINITY == affinity {
            this_core = Some(index);
        }
    }
    Ok((count, this_core))
}

/// INTIDs the GIC implements (SGIs, PPIs and SPIs): 0..lines.
pub fn lines() -> Result<u32, IrqError> {
    with_gic(|gic| match gic {
        Gic::V2(gic) => gic.typer().num_irqs(),
        Gic::V3 { gic, .. } => 32 + gic.typer().num_spis(),
    })
    .map(|lines| lines.min(HANDLER_SLOTS))
}

fn checked(intid: u32) -> Result<(IntId, &'static AtomicUsize), IrqError> {
    let lines = lines()?;
    let out_of_range = IrqError::OutOfRange { intid, lines };
    if intid >= lines {
        return Err(out_of_range);
    }
    let id = IntId::try_from(intid).map_err(|_| out_of_range)?;
    let slot = HANDLERS.get(intid as usize).ok_or(out_of_range)?;
    Ok((id, slot))
}

/// Installs `handler` for `intid` and enables that interrupt (for this core, if it is an SGI or
/// a PPI). IRQs stay masked at the CPU until [`unmask`].
pub fn enable(intid: u32, handler: fn(u32)) -> Result<(), IrqError> {
    install(intid, handler as usize)
}

/// Like [`enable`], for a handler that also gets what the interrupt [`Interrupted`]: the PC, the
/// frame pointer and the PSTATE of the interrupted code, as the exception entry saved them.
pub fn enable_with_context(intid: u32, handler: fn(u32, &Interrupted)) -> Result<(), IrqError> {
    let address = handler as usize;
    if address & CONTEXT_TAG != 0 {
        return Err(IrqError::Refused { intid });
    }
    install(intid, address | CONTEXT_TAG)
}

/// Bit 0 of a [`HANDLERS`] entry: the handler takes the interrupted context.
const CONTEXT_TAG: usize = 1;

fn install(intid: u32, entry: usize) -> Result<(), IrqError> {
    let (id, slot) = checked(intid)?;
    slot.store(entry, Ordering::Release);
    let enabled = with_gic(|gic| match gic {
        Gic::V2(gic) => {
            gic.set_interrupt_priority(id, PRIORITY);
            if id.is_spi() {
                target_this_core_v2(intid);
            }
            gic.enable_interrupt(id, true).is_ok()
        }
        Gic::V3 { gic, core } => {
            let core = Some(*core);
            // arm-gic writes the MPIDR into GICD_IROUTER as given; MPIDR bit 31 (RES1) would
            // select 1-of-N routing there, so only the affinity fields go in.
            let routed = !id.is_spi()
                || gic
                    .distributor()
                    .set_routing(id, Some(mpidr() & AFFINITY))
                    .is_ok();
            routed
                && gic.set_interrupt_priority(id, core, PRIORITY).is_ok()
                && gic.enable_interrupt(id, core, true).is_ok()
        }
    })?;
    if enabled {
        Ok(())
    } else {
        slot.store(0, Ordering::Release);
        Err(IrqError::Refused { intid })
    }
}

/// The affinity fields of MPIDR_EL1 (Aff3, Aff2, Aff1, Aff0).
const AFFINITY: u64 = 0xFF_00FF_FFFF;

/// GICv2: sends the SPI `intid` to this core's CPU interface (GICD_ITARGETSR<n>, one byte per
/// INTID). arm-gic 0.10's GICv2 driver has no call for it. The first ITARGETSR bytes (SGIs) are
/// banked and read as the reading core's own interface bit, as Linux's GIC driver uses them.
fn target_this_core_v2(intid: u32) {
    const GICD_ITARGETSR: usize = 0x800;
    let base = GICD_BASE + GICD_ITARGETSR;
    // SAFETY: byte accesses to GICD_ITARGETSR of the platform's GICv2 distributor (Device memory
    // in the identity map), under `with_gic`'s lock; `intid` < 1020 keeps the byte
    // inside the register array.
    unsafe {
        let this_core = core::ptr::read_volatile(base as *const u8);
        core::ptr::write_volatile((base + intid as usize) as *mut u8, this_core);
    }
}

/// Disables `intid` (for this core, if it is an SGI or a PPI) and removes its handler.
pub fn disable(intid: u32) -> Result<(), IrqError> {
    let (id, slot) = checked(intid)?;
    disable_in_gic(id)?;
    slot.store(0, Ordering::Release);
    Ok(())
}

fn disable_in_gic(id: IntId) -> Result<(), IrqError> {
    with_gic(|gic| match gic {
        Gic::V2(gic) => gic.enable_interrupt(id, false).is_ok(),
        Gic::V3 { gic, core } => gic.enable_interrupt(id, Some(*core), false).is_ok(),
    })
    .and_then(|ok| {
        if ok {
            Ok(())
        } else {
            Err(IrqError::Refused { intid: id.into() })
        }
    })
}

/// Called by the vector table for an IRQ with the interrupted code's saved registers:
/// acknowledge, run the handler, end of interrupt. The driver is not held while the handler runs,
/// so a handler may enable and disable interrupts.
pub(crate) fn dispatch(frame: &aarch64_rt::RegisterState) {
    // The GICv2 here runs without security extensions or in the non-secure state: both deliver
    // through GICC_IAR / GICC_EOIR, which arm-gic calls group 0. The GICv3 runs group 1.
    let acknowledged = with_gic(|gic| match gic {
        Gic::V2(gic) => gic.get_and_acknowledge_interrupt(InterruptGroup::Group0),
        Gic::V3 { .. } => GicCpuInterface::get_and_acknowledge_interrupt(InterruptGroup::Group1),
    });
    let Ok(Some(id)) = acknowledged else {
        return;
    };
    let intid = u32::from(id);
    let handler = HANDLERS
        .get(intid as usize)
        .map(|slot| slot.load(Ordering::Acquire))
        .unwrap_or(0);
    if handler & CONTEXT_TAG != 0 {
        let interrupted = Interrupted {
            pc: frame.elr as u64,
            fp: frame.fp,
            // aarch64-rt names the saved x30 `sp`.
            lr: frame.sp,
            spsr: frame.spsr,
        };
        // SAFETY: entries with the tag bit are only ever stored by `enable_with_context`, as the
        // address of a `fn(u32, &Interrupted)` plus the tag.
        let handler: fn(u32, &Interrupted) =
            unsafe { core::mem::transmute::<usize, fn(u32, &Interrupted)>(handler & !CONTEXT_TAG) };
        handler(intid, &interrupted);
    } else if handler != 0 {
        // SAFETY: other non-zero entries are only ever stored from a `fn(u32)` in `enable`.
        let handler: fn(u32) = unsafe { core::mem::transmute::<usize, fn(u32)>(handler) };
        handler(intid);
    } else {
        crate::println!("*** unexpected IRQ {intid} (no handler): disabling it");
        let _ = disable_in_gic(id);
    }
    let _ = with_gic(|gic| match gic {
        Gic::V2(gic) => gic.end_interrupt(id, InterruptGroup::Group0),
        Gic::V3 { .. } => GicCpuInterface::end_interrupt(id, InterruptGroup::Group1),
    });
}

/// Unmasks IRQs at the CPU (clears PSTATE.I).
///
/// # Safety
/// Must not be called inside a critical section ([`crate::arch::interrupts::free`], an
/// [`IrqMutex`](crate::sync::IrqMutex) lock): that would let an interrupt handler in while
/// the critical section still holds its references.
pub unsafe fn unmask() {
    // SAFETY: the caller's contract is that of `enable_irq`; the vector table is installed at
    // boot, before any Rust code runs.
    unsafe { crate::arch::interrupts::enable_irq() }
}

/// Masks IRQs at the CPU (sets PSTATE.I).
pub fn mask() {
    crate::arch::interrupts::disable_irq();
}
