//! Layouts of the AArch64 self-hosted debug registers, declared once with tock-registers.
//!
//! Field positions follow the Arm ARM (D-profile), chapter "AArch64 Self-hosted Debug" and the
//! register descriptions of DBGBCR&lt;n&gt;_EL1, DBGBVR&lt;n&gt;_EL1, DBGWCR&lt;n&gt;_EL1, DBGWVR&lt;n&gt;_EL1 and
//! OSLSR_EL1. Registers that `aarch64-cpu` already declares are re-exported from there rather than
//! declared twice: MDSCR_EL1 (SS, KDE, MDE), OSLAR_EL1 (OSLK) and ID_AA64DFR0_EL1 (BRPs, WRPs,
//! CTX_CMPs, each "number implemented, minus one").
//!
//! Both back ends expose these layouts through
//! [`DebugRegisterView`](super::backend::DebugRegisterView), so `read`, `write`, `modify` and
//! `is_set` work the same on the real CPU and on the emulated debug unit.
#![allow(non_snake_case, non_camel_case_types, missing_docs)]

pub use aarch64_cpu::registers::{ID_AA64DFR0_EL1, MDSCR_EL1, OSLAR_EL1};
use tock_registers::register_bitfields;

register_bitfields! {u64,
    /// Breakpoint Control Register n: what breakpoint n matches and when it is enabled.
    pub DBGBCR_EL1 [
        /// Breakpoint type: what DBGBVR holds and whether the breakpoint is linked.
        BT OFFSET(20) NUMBITS(4) [
            /// Unlinked instruction address match (the only type pmprobe programs).
            UnlinkedAddressMatch = 0b0000,
            /// Linked instruction address match.
            LinkedAddressMatch = 0b0001,
            /// Unlinked Context ID match.
            UnlinkedContextIdMatch = 0b0010,
            /// Linked Context ID match.
            LinkedContextIdMatch = 0b0011
        ],
        /// Linked breakpoint number (for linked types).
        LBN OFFSET(16) NUMBITS(4) [],
        /// Security state control (with HMC and PMC: which states and levels match).
        SSC OFFSET(14) NUMBITS(2) [],
        /// Higher mode control (EL2 and above).
        HMC OFFSET(13) NUMBITS(1) [],
        /// Byte address select: for A64 instructions always 0b1111 (the whole word).
        BAS OFFSET(5) NUMBITS(4) [
            A64Instruction = 0b1111
        ],
        /// Privilege mode control: the Exception levels the breakpoint matches at.
        PMC OFFSET(1) NUMBITS(2) [
            El1 = 0b01,
            El0 = 0b10,
            El0AndEl1 = 0b11
        ],
        /// Enable.
        E OFFSET(0) NUMBITS(1) []
    ],
    /// Breakpoint Value Register n: the instruction address an address-match breakpoint compares.
    pub DBGBVR_EL1 [
        /// Sign extension of the top implemented address bit (bits \[63:53\]).
        RESS OFFSET(53) NUMBITS(11) [],
        /// Virtual address bits \[52:2\]; bits \[1:0\] are RES0 (A64 instructions are words).
        VA OFFSET(2) NUMBITS(51) [],
        /// For Context ID types: the CONTEXTIDR_EL1 value compared.
        ContextID OFFSET(0) NUMBITS(32) []
    ],
    /// Watchpoint Control Register n: which data accesses watchpoint n matches.
    pub DBGWCR_EL1 [
        /// Address mask: the number of low address bits ignored (0: none, 3..=31; 1 and 2 are
        /// reserved). With a mask, BAS must be 0xFF.
        MASK OFFSET(24) NUMBITS(5) [],
        /// Watchpoint type: 0 unlinked, 1 linked to a context breakpoint.
        WT OFFSET(20) NUMBITS(1) [],
        /// Linked breakpoint number.
        LBN OFFSET(16) NUMBITS(4) [],
        /// Security state control.
        SSC OFFSET(14) NUMBITS(2) [],
        /// Higher mode control.
        HMC OFFSET(13) NUMBITS(1) [],
        /// Byte address select: bit i watches byte i of the doubleword at DBGWVR.
        BAS OFFSET(5) NUMBITS(8) [],
        /// Load/store control: which accesses match.
        LSC OFFSET(3) NUMBITS(2) [
            Load = 0b01,
            Store = 0b10,
            LoadOrStore = 0b11
        ],
        /// Privilege access control: the Exception levels of the accesses that match.
        PAC OFFSET(1) NUMBITS(2) [
            El1 = 0b01,
            El0 = 0b10,
            El0AndEl1 = 0b11
        ],
        /// Enable.
        E OFFSET(0) NUMBITS(1) []
    ],
    /// Watchpoint Value Register n: the data address watchpoint n compares.
    pub DBGWVR_EL1 [
        /// Sign extension of the top implemented address bit (bits \[63:53\]).
        RESS OFFSET(53) NUMBITS(11) [],
        /// Virtual address bits \[52:2\]; bits \[1:0\] are RES0.
        VA OFFSET(2) NUMBITS(51) []
    ],
    /// OS Lock Status Register (read-only).
    pub OSLSR_EL1 [
        /// OS lock model, high bit (OSLM is {bit 3, bit 0}; 0b10: the lock is implemented).
        OSLM_HIGH OFFSET(3) NUMBITS(1) [],
        /// Not 32-bit access (RAZ: OSLAR is a 32-bit register).
        nTT OFFSET(2) NUMBITS(1) [],
        /// OS lock status: 1 while the OS lock is locked (debug exceptions other than BRK are
        /// then not generated).
        OSLK OFFSET(1) NUMBITS(1) [],
        /// OS lock model, low bit.
        OSLM_LOW OFFSET(0) NUMBITS(1) []
    ]
}
