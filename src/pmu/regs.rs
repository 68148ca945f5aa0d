//! Layouts of the AArch64 PMUv3 system registers, declared once with tock-registers.
//!
//! Field positions follow the Arm ARM (D-profile), chapter "The Performance Monitors Extension".
//! Both back ends expose these layouts through [`RegisterView`](super::RegisterView), so
//! `read`, `write`, `modify` and `is_set` work the same on the real CPU and on the emulated PMU.
//! ID registers that aarch64-cpu already describes (ID_AA64DFR0_EL1, MIDR_EL1, CurrentEL) are
//! taken from there.
//!
//! Code that works on raw register values (the emulated PMU's state, the driver's cached bits)
//! takes its masks from these declarations through [`field_bits`] and the constants at the end
//! of this file, so that every bit position is written down once, here.
#![forbid(unsafe_code)]
#![allow(non_snake_case, non_camel_case_types, missing_docs)]

use tock_registers::register_bitfields;

register_bitfields! {u64,
    /// Performance Monitors Control Register.
    pub PMCR_EL0 [
        /// Implementer code (same encoding as MIDR_EL1.Implementer).
        IMP OFFSET(24) NUMBITS(8) [],
        /// Identification code, IMPLEMENTATION DEFINED.
        IDCODE OFFSET(16) NUMBITS(8) [],
        /// Number of event counters implemented.
        N OFFSET(11) NUMBITS(5) [],
        /// Freeze-on-overflow (FEAT_PMUv3p7): event counters stop while an overflow flag is set.
        FZO OFFSET(9) NUMBITS(1) [],
        /// Long event counter enable (FEAT_PMUv3p5): overflow at bit 63 instead of bit 31.
        LP OFFSET(7) NUMBITS(1) [],
        /// Long cycle counter enable: PMCCNTR overflow at bit 63 instead of bit 31.
        LC OFFSET(6) NUMBITS(1) [],
        /// Disable PMCCNTR when event counting is prohibited.
        DP OFFSET(5) NUMBITS(1) [],
        /// Export events to an external monitoring block.
        X OFFSET(4) NUMBITS(1) [],
        /// Clock divider: PMCCNTR counts once every 64 cycles (ignored when LC is 1).
        D OFFSET(3) NUMBITS(1) [],
        /// Cycle counter reset (write 1; reads as 0).
        C OFFSET(2) NUMBITS(1) [],
        /// Event counter reset (write 1; reads as 0).
        P OFFSET(1) NUMBITS(1) [],
        /// Enable all counters (together with PMCNTENSET).
        E OFFSET(0) NUMBITS(1) []
    ],
    /// Count Enable Set (write 1 to enable; reads the enable state).
    pub PMCNTENSET_EL0 [
        /// PMICNTR_EL0 (FEAT_PMUv3_ICNTR).
        F0 OFFSET(32) NUMBITS(1) [],
        /// PMCCNTR_EL0.
        C OFFSET(31) NUMBITS(1) [],
        /// Event counter m is bit m.
        P OFFSET(0) NUMBITS(31) []
    ],
    /// Count Enable Clear (write 1 to disable; reads the enable state).
    pub PMCNTENCLR_EL0 [
        F0 OFFSET(32) NUMBITS(1) [],
        C OFFSET(31) NUMBITS(1) [],
        P OFFSET(0) NUMBITS(31) []
    ],
    /// Overflow Flag Status Set.
    pub PMOVSSET_EL0 [
        F0 OFFSET(32) NUMBITS(1) [],
        C OFFSET(31) NUMBITS(1) [],
        P OFFSET(0) NUMBITS(31) []
    ],
    /// Overflow Flag Status Clear.
    pub PMOVSCLR_EL0 [
        F0 OFFSET(32) NUMBITS(1) [],
        C OFFSET(31) NUMBITS(1) [],
        P OFFSET(0) NUMBITS(31) []
    ],
    /// Interrupt Enable Set (EL1).
    pub PMINTENSET_EL1 [
        F0 OFFSET(32) NUMBITS(1) [],
        C OFFSET(31) NUMBITS(1) [],
        P OFFSET(0) NUMBITS(31) []
    ],
    /// Interrupt Enable Clear (EL1).
    pub PMINTENCLR_EL1 [
        F0 OFFSET(32) NUMBITS(1) [],
        C OFFSET(31) NUMBITS(1) [],
        P OFFSET(0) NUMBITS(31) []
    ],
    /// Software Increment (write-only): bit m increments event counter m if it counts SW_INCR.
    pub PMSWINC_EL0 [
        P OFFSET(0) NUMBITS(31) []
    ],
    /// Event Counter Selection for PMXEVTYPER/PMXEVCNTR (31 selects PMCCFILTR).
    pub PMSELR_EL0 [
        SEL OFFSET(0) NUMBITS(5) []
    ],
    /// Event Type register of event counter n.
    pub PMEVTYPER_EL0 [
        /// Don't count at EL1.
        P OFFSET(31) NUMBITS(1) [],
        /// Don't count at EL0.
        U OFFSET(30) NUMBITS(1) [],
        /// Non-secure EL1 filter (with EL3).
        NSK OFFSET(29) NUMBITS(1) [],
        /// Non-secure EL0 filter (with EL3).
        NSU OFFSET(28) NUMBITS(1) [],
        /// Count at EL2.
        NSH OFFSET(27) NUMBITS(1) [],
        /// EL3 filter.
        M OFFSET(26) NUMBITS(1) [],
        /// Event number (\[9:0\] in PMUv3, \[15:0\] from PMUv3p1).
        evtCount OFFSET(0) NUMBITS(16) [],
        /// The event number as PMUv3 (PMUVer 1) defines it: bits \[9:0\] of `evtCount`.
        evtCount_v3 OFFSET(0) NUMBITS(10) []
    ],
    /// Selected Event Type register (through PMSELR).
    pub PMXEVTYPER_EL0 [
        P OFFSET(31) NUMBITS(1) [],
        U OFFSET(30) NUMBITS(1) [],
        NSK OFFSET(29) NUMBITS(1) [],
        NSU OFFSET(28) NUMBITS(1) [],
        NSH OFFSET(27) NUMBITS(1) [],
        M OFFSET(26) NUMBITS(1) [],
        evtCount OFFSET(0) NUMBITS(16) []
    ],
    /// Event counter n (32-bit, 64-bit with FEAT_PMUv3p5).
    pub PMEVCNTR_EL0 [
        VALUE OFFSET(0) NUMBITS(64) []
    ],
    /// Selected event counter (through PMSELR).
    pub PMXEVCNTR_EL0 [
        VALUE OFFSET(0) NUMBITS(64) []
    ],
    /// Cycle counter (64-bit).
    pub PMCCNTR_EL0 [
        VALUE OFFSET(0) NUMBITS(64) []
    ],
    /// Cycle counter filter.
    pub PMCCFILTR_EL0 [
        P OFFSET(31) NUMBITS(1) [],
        U OFFSET(30) NUMBITS(1) [],
        NSK OFFSET(29) NUMBITS(1) [],
        NSU OFFSET(28) NUMBITS(1) [],
        NSH OFFSET(27) NUMBITS(1) [],
        M OFFSET(26) NUMBITS(1) []
    ],
    /// User Enable register: which PMU registers EL0 may access.
    pub PMUSERENR_EL0 [
        /// EL0 read access to PMICNTR (FEAT_PMUv3_ICNTR).
        IR OFFSET(5) NUMBITS(1) [],
        /// Event counter read at EL0 (also PMSELR access).
        ER OFFSET(3) NUMBITS(1) [],
        /// Cycle counter read at EL0.
        CR OFFSET(2) NUMBITS(1) [],
        /// Software increment write at EL0.
        SW OFFSET(1) NUMBITS(1) [],
        /// EL0 access to all EL0-accessible PMU registers.
        EN OFFSET(0) NUMBITS(1) []
    ],
    /// Common Event Identification 0: events 0x00..0x1F and 0x4000..0x401F.
    pub PMCEID0_EL0 [
        IDhi OFFSET(32) NUMBITS(32) [],
        ID OFFSET(0) NUMBITS(32) []
    ],
    /// Common Event Identification 1: events 0x20..0x3F and 0x4020..0x403F.
    pub PMCEID1_EL0 [
        IDhi OFFSET(32) NUMBITS(32) [],
        ID OFFSET(0) NUMBITS(32) []
    ],
    /// Fixed instruction counter (FEAT_PMUv3_ICNTR), counts INST_RETIRED.
    pub PMICNTR_EL0 [
        VALUE OFFSET(0) NUMBITS(64) []
    ],
    /// Debug Feature Register 1: only the field the PMU driver needs (aarch64-cpu reads the
    /// register but does not describe it).
    pub ID_AA64DFR1_EL1 [
        /// FEAT_PMUv3_ICNTR: PMICNTR_EL0 and PMICFILTR_EL0 are implemented when non-zero.
        PMICNTR OFFSET(36) NUMBITS(4) []
    ],
    /// Instruction counter filter (FEAT_PMUv3_ICNTR).
    pub PMICFILTR_EL0 [
        P OFFSET(31) NUMBITS(1) [],
        U OFFSET(30) NUMBITS(1) [],
        NSK OFFSET(29) NUMBITS(1) [],
        NSU OFFSET(28) NUMBITS(1) [],
        NSH OFFSET(27) NUMBITS(1) [],
        M OFFSET(26) NUMBITS(1) [],
        /// Reads as INST_RETIRED (0x0008).
        evtCount OFFSET(0) NUMBITS(16) []
    ]
}

pub use aarch64_cpu::registers::{CurrentEL, ID_AA64DFR0_EL1, MIDR_EL1};

use tock_registers::RegisterLongName;
use tock_registers::fields::Field;

/// The bits of `field` within its register: the field's mask shifted into place.
pub const fn field_bits<R: RegisterLongName>(field: Field<u64, R>) -> u64 {
    field.mask << field.shift
}

/// Bit of the cycle counter in PMCNTEN*, PMOVS*, PMINTEN*.
pub const CYCLE_COUNTER_BIT: u32 = PMCNTENSET_EL0::C.shift as u32;
/// Bit of the instruction counter (PMICNTR) in PMCNTEN*, PMOVS*, PMINTEN*.
pub const INSTRUCTION_COUNTER_BIT: u32 = PMCNTENSET_EL0::F0.shift as u32;
/// PMSELR.SEL value that selects PMCCFILTR through PMXEVTYPER: the cycle counter's number.
pub const SEL_CYCLE_COUNTER: u8 = CYCLE_COUNTER_BIT as u8;
/// Number of architecturally possible event counters (PMEVCNTR0..30): the width of the P
/// fields of PMCNTEN*, PMOVS*, PMINTEN*.
pub const MAX_EVENT_COUNTERS: u8 = PMCNTENSET_EL0::P.mask.count_ones() as u8;
/// Bits of all event counters in PMCNTEN*, PMOVS*, PMINTEN*.
pub const EVENT_COUNTER_BITS: u64 = field_bits(PMCNTENSET_EL0::P);
/// The EL filter bits shared by PMEVTYPER, PMCCFILTR and PMICFILTR (P, U, NSK, NSU, NSH, M).
pub const FILTER_MASK: u64 = field_bits(PMEVTYPER_EL0::P)
    | field_bits(PMEVTYPER_EL0::U)
    | field_bits(PMEVTYPER_EL0::NSK)
    | field_bits(PMEVTYPER_EL0::NSU)
    | field_bits(PMEVTYPER_EL0::NSH)
    | field_bits(PMEVTYPER_EL0::M);
/// The PMUSERENR_EL0 bits that exist (IR, ER, CR, SW, EN).
pub const USERENR_MASK: u64 = field_bits(PMUSERENR_EL0::IR)
    | field_bits(PMUSERENR_EL0::ER)
    | field_bits(PMUSERENR_EL0::CR)
    | field_bits(PMUSERENR_EL0::SW)
    | field_bits(PMUSERENR_EL0::EN);
/// The value range of a 32-bit counter (PMEVCNTR without PMCR.LP, PMCCNTR without PMCR.LC):
/// it overflows past this.
pub const COUNTER_32_MAX: u64 = u32::MAX as u64;
