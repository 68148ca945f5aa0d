//! Portable decoders for AArch64 architectural values (usable on any host, e.g. in tests).
pub mod esr;
