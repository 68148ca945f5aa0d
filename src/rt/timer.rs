//! The EL1 physical generic timer (CNTP_*_EL0), interrupt INTID 30 on QEMU `virt`.
use aarch64_cpu::registers::{
    CNTFRQ_EL0, CNTP_CTL_EL0, CNTP_TVAL_EL0, CNTPCT_EL0, Readable, Writeable,
};

/// The GIC INTID of the EL1 physical timer on QEMU virt (PPI 14).
pub const PHYSICAL_TIMER_INTID: u32 = 30;

/// The counter frequency in Hz (CNTFRQ_EL0).
pub fn frequency() -> u64 {
    CNTFRQ_EL0.get()
}

/// The current count (CNTPCT_EL0).
pub fn now() -> u64 {
    CNTPCT_EL0.get()
}

/// Fires the timer interrupt `ticks` counter ticks from now (and enables it).
pub fn arm(ticks: u32) {
    CNTP_TVAL_EL0.set(u64::from(ticks));
    CNTP_CTL_EL0.write(CNTP_CTL_EL0::ENABLE::SET + CNTP_CTL_EL0::IMASK::CLEAR);
}

/// Stops the timer (its interrupt line drops).
pub fn disarm() {
    CNTP_CTL_EL0.write(CNTP_CTL_EL0::ENABLE::CLEAR + CNTP_CTL_EL0::IMASK::SET);
}
