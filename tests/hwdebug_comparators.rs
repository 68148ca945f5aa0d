//! Breakpoint and watchpoint comparators on the emulated debug unit: counts from
//! ID_AA64DFR0_EL1, the register values the driver writes (checked by the unit's architectural
//! match rules), and every typed error.
use pmprobe::hwdebug::regs::{DBGBCR_EL1, DBGWCR_EL1, OSLSR_EL1};
use pmprobe::hwdebug::{
    DebugAccessError, DebugBackend, DebugRegister, EmulatedDebug, HwDebug, HwDebugError, WatchKind,
    WatchRangeError,
};
use tock_registers::interfaces::Readable;

#[test]
fn counts_come_from_id_aa64dfr0() {
    let a57 = EmulatedDebug::qemu_cortex_a57();
    let debug = HwDebug::new(&a57).unwrap();
    let counts = debug.counts();
    assert_eq!(
        (counts.breakpoints, counts.watchpoints, counts.context_aware),
        (6, 4, 2)
    );
    let big = EmulatedDebug::new(16, 16, 16);
    let counts = HwDebug::new(&big).unwrap().counts();
    assert_eq!((counts.breakpoints, counts.watchpoints), (16, 16));
    // ID_AA64DFR0_EL1 stores "count minus one" in 4-bit fields.
    assert_eq!((a57.id_aa64dfr0() >> 12) & 0xF, 5);
    assert_eq!((a57.id_aa64dfr0() >> 20) & 0xF, 3);
}

#[test]
fn registers_past_the_count_are_undefined() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    assert_eq!(
        unit.write(DebugRegister::Bcr(6), 1),
        Err(DebugAccessError::NotImplemented {
            register: DebugRegister::Bcr(6),
            implemented: 6
        })
    );
    assert!(unit.read(DebugRegister::Wvr(4)).is_err());
    assert!(unit.read(DebugRegister::Wvr(3)).is_ok());
    assert_eq!(
        unit.read(DebugRegister::Oslar),
        Err(DebugAccessError::WriteOnly(DebugRegister::Oslar))
    );
    assert_eq!(
        unit.write(DebugRegister::Oslsr, 0),
        Err(DebugAccessError::ReadOnly(DebugRegister::Oslsr))
    );
    assert_eq!(
        DebugRegister::Bcr(6).to_string(),
        "DBGBCR6_EL1",
        "registers display with their number"
    );
}

#[test]
fn nothing_fires_until_debug_exceptions_are_enabled() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let mut debug = HwDebug::new(&unit).unwrap();
    debug.install_breakpoint(0x1000).unwrap();
    debug
        .install_watchpoint(0x2000, 8, WatchKind::ReadWrite)
        .unwrap();
    let oslsr = unit.view::<OSLSR_EL1::Register>(DebugRegister::Oslsr);
    assert!(
        oslsr.is_set(OSLSR_EL1::OSLK),
        "the OS lock is locked out of reset"
    );
    assert_eq!(unit.breakpoint_hit(0x1000), None);
    assert_eq!(unit.watchpoint_hit(0x2000, 4, true), None);

    debug.enable_debug_exceptions().unwrap();
    assert!(!oslsr.is_set(OSLSR_EL1::OSLK));
    assert_eq!(unit.breakpoint_hit(0x1000), Some(0));
    assert_eq!(unit.watchpoint_hit(0x2000, 4, true), Some(0));

    unit.set_debug_masked(true);
    assert_eq!(unit.breakpoint_hit(0x1000), None, "PSTATE.D masks them");
    unit.set_debug_masked(false);

    debug.disable_debug_exceptions().unwrap();
    assert_eq!(unit.breakpoint_hit(0x1000), None);
}

#[test]
fn a_breakpoint_matches_its_instruction_only() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let mut debug = HwDebug::new(&unit).unwrap();
    debug.enable_debug_exceptions().unwrap();
    let breakpoint = debug.install_breakpoint(0x4008_2a60).unwrap();
    let bcr = unit.view::<DBGBCR_EL1::Register>(DebugRegister::Bcr(breakpoint.comparator()));
    assert!(bcr.is_set(DBGBCR_EL1::E));
    assert_eq!(bcr.read(DBGBCR_EL1::BAS), 0b1111);
    assert_eq!(bcr.read(DBGBCR_EL1::PMC), 0b11);
    assert_eq!(
        unit.breakpoint_hit(0x4008_2a60),
        Some(breakpoint.comparator())
    );
    assert_eq!(unit.breakpoint_hit(0x4008_2a5c), None);
    assert_eq!(unit.breakpoint_hit(0x4008_2a64), None);
    debug.remove_breakpoint(breakpoint).unwrap();
    assert_eq!(unit.breakpoint_hit(0x4008_2a60), None);
    assert_eq!(
        debug.remove_breakpoint(breakpoint),
        Err(HwDebugError::NotInstalled)
    );
    assert_eq!(
        debug.install_breakpoint(0x4008_2a62),
        Err(HwDebugError::MisalignedBreakpoint {
            address: 0x4008_2a62
        })
    );
}

#[test]
fn every_breakpoint_in_use_is_a_typed_error_naming_the_count() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let mut debug = HwDebug::new(&unit).unwrap();
    debug.enable_debug_exceptions().unwrap();
    let installed: Vec<_> = (0..6)
        .map(|i| debug.install_breakpoint(0x1000 + 4 * i).unwrap())
        .collect();
    let error = debug.install_breakpoint(0x2000).unwrap_err();
    assert_eq!(error, HwDebugError::NoFreeBreakpoint { implemented: 6 });
    assert_eq!(
        error.to_string(),
        "all 6 hardware breakpoint comparators are in use"
    );
    for (i, breakpoint) in installed.iter().enumerate() {
        assert_eq!(
            unit.breakpoint_hit(0x1000 + 4 * i as u64),
            Some(breakpoint.comparator())
        );
    }
    debug.remove_breakpoint(installed[2]).unwrap();
    let again = debug.install_breakpoint(0x2000).unwrap();
    assert_eq!(again.comparator(), installed[2].comparator());
    assert_eq!(unit.breakpoint_hit(0x2000), Some(again.comparator()));
    assert_eq!(unit.breakpoint_hit(0x1008), None);
}

/// Whether the byte ranges [a, a+alen) and [b, b+blen) overlap: the oracle for watchpoints.
fn overlap(a: u64, alen: u64, b: u64, blen: u64) -> bool {
    a < b + blen && b < a + alen
}

#[test]
fn byte_watchpoints_report_exactly_the_overlapping_accesses() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let mut debug = HwDebug::new(&unit).unwrap();
    debug.enable_debug_exceptions().unwrap();
    let base = 0x4010_0000u64;
    for offset in 0..8 {
        for len in 1..=(8 - offset) {
            let watchpoint = debug
                .install_watchpoint(base + offset, len, WatchKind::ReadWrite)
                .unwrap();
            let wcr =
                unit.view::<DBGWCR_EL1::Register>(DebugRegister::Wcr(watchpoint.comparator()));
            assert_eq!(wcr.read(DBGWCR_EL1::MASK), 0);
            for size in [1u64, 2, 4, 8] {
                for address in (base - 8)..(base + 16) {
                    let expected = overlap(address, size, base + offset, len);
                    assert_eq!(
                        unit.watchpoint_hit(address, size, true).is_some(),
                        expected,
                        "watch {len} at +{offset}, access {size} at +{}",
                        address as i64 - base as i64
                    );
                }
            }
            debug.remove_watchpoint(watchpoint).unwrap();
        }
    }
}

#[test]
fn read_and_write_watchpoints_filter_by_direction() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let mut debug = HwDebug::new(&unit).unwrap();
    debug.enable_debug_exceptions().unwrap();
    let reads = debug.install_watchpoint(0x100, 4, WatchKind::Read).unwrap();
    let writes = debug
        .install_watchpoint(0x200, 4, WatchKind::Write)
        .unwrap();
    assert_eq!(
        unit.watchpoint_hit(0x100, 4, false),
        Some(reads.comparator())
    );
    assert_eq!(unit.watchpoint_hit(0x100, 4, true), None);
    assert_eq!(
        unit.watchpoint_hit(0x200, 4, true),
        Some(writes.comparator())
    );
    assert_eq!(unit.watchpoint_hit(0x200, 4, false), None);
}

#[test]
fn power_of_two_blocks_use_the_address_mask() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let mut debug = HwDebug::new(&unit).unwrap();
    debug.enable_debug_exceptions().unwrap();
    for log2 in 4..=20u32 {
        let len = 1u64 << log2;
        let address = 0x4000_0000u64;
        let watchpoint = debug
            .install_watchpoint(address, len, WatchKind::Write)
            .unwrap();
        let wcr = unit.view::<DBGWCR_EL1::Register>(DebugRegister::Wcr(watchpoint.comparator()));
        assert_eq!(wcr.read(DBGWCR_EL1::MASK), u64::from(log2));
        assert_eq!(wcr.read(DBGWCR_EL1::BAS), 0xFF);
        assert!(unit.watchpoint_hit(address, 1, true).is_some());
        assert!(unit.watchpoint_hit(address + len - 1, 1, true).is_some());
        assert!(unit.watchpoint_hit(address + len, 1, true).is_none());
        assert!(unit.watchpoint_hit(address - 1, 1, true).is_none());
        assert!(
            unit.watchpoint_hit(address - 4, 8, true).is_some(),
            "straddles the start"
        );
        debug.remove_watchpoint(watchpoint).unwrap();
    }
}

#[test]
fn unsupported_ranges_and_full_comparators_are_typed_errors() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let mut debug = HwDebug::new(&unit).unwrap();
    let rw = WatchKind::ReadWrite;
    assert_eq!(
        debug.install_watchpoint(0x100, 0, rw),
        Err(HwDebugError::WatchRange(WatchRangeError::Empty))
    );
    assert_eq!(
        debug.install_watchpoint(0x106, 4, rw),
        Err(HwDebugError::WatchRange(
            WatchRangeError::CrossesDoubleword {
                address: 0x106,
                len: 4
            }
        ))
    );
    assert_eq!(
        debug.install_watchpoint(0x100, 24, rw),
        Err(HwDebugError::WatchRange(
            WatchRangeError::UnsupportedLength { len: 24 }
        ))
    );
    assert_eq!(
        debug.install_watchpoint(0x108, 16, rw),
        Err(HwDebugError::WatchRange(WatchRangeError::Misaligned {
            address: 0x108,
            len: 16
        }))
    );
    assert_eq!(
        debug.install_watchpoint(0, 1 << 32, rw),
        Err(HwDebugError::WatchRange(
            WatchRangeError::UnsupportedLength { len: 1 << 32 }
        ))
    );
    for i in 0..4 {
        debug.install_watchpoint(0x100 + 8 * i, 8, rw).unwrap();
    }
    let error = debug.install_watchpoint(0x200, 8, rw).unwrap_err();
    assert_eq!(error, HwDebugError::NoFreeWatchpoint { implemented: 4 });
    assert!(error.to_string().contains("all 4 hardware watchpoint"));
}

#[test]
fn a_new_driver_disables_comparators_left_enabled() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    // State left by an earlier program: comparator 3 enabled on 0x3000.
    unit.write(DebugRegister::Bvr(3), 0x3000).unwrap();
    unit.write(DebugRegister::Bcr(3), 0x1E7).unwrap();
    unit.write(DebugRegister::Oslar, 0).unwrap();
    unit.write(DebugRegister::Mdscr, (1 << 15) | (1 << 13))
        .unwrap();
    assert_eq!(unit.breakpoint_hit(0x3000), Some(3));
    let _debug = HwDebug::new(&unit).unwrap();
    assert_eq!(unit.breakpoint_hit(0x3000), None);
}
