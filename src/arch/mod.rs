//! AArch64 architecture pieces that every part of pmprobe shares: the exception syndrome
//! decoder (portable, usable on any host) and the one interrupt-masking primitive (real on
//! bare-metal AArch64, a no-op on hosted targets).
pub mod esr;
pub mod interrupts;
