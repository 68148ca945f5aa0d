//! Debug-exception syndromes and watchpoint access sizes.
//!
//! The instruction words below were produced by an assembler (`llvm-mc -triple=aarch64
//! -mattr=+lse -show-encoding`), not derived from the decoder under test.
use pmprobe::hwdebug::{DebugEvent, data_access_size};

const ASSEMBLED: &[(&str, u32, Option<u32>)] = &[
    ("str w1, [x0]", 0xb900_0001, Some(4)),
    ("ldr x0, [x1]", 0xf940_0020, Some(8)),
    ("strb w1, [x0]", 0x3900_0001, Some(1)),
    ("ldrh w0, [x1]", 0x7940_0020, Some(2)),
    ("stp x29, x30, [sp, #-16]!", 0xa9bf_7bfd, Some(16)),
    ("ldp w0, w1, [x2]", 0x2940_0440, Some(8)),
    ("str q0, [x0]", 0x3d80_0000, Some(16)),
    ("ldr d0, [x0]", 0xfd40_0000, Some(8)),
    ("ldur w0, [x1, #-4]", 0xb85f_c020, Some(4)),
    ("ldr x0, [x1, x2]", 0xf862_6820, Some(8)),
    ("ldr w0, <literal>", 0x1800_0000, Some(4)),
    ("ldr x0, <literal>", 0x5800_0000, Some(8)),
    ("ldr q0, <literal>", 0x9c00_0000, Some(16)),
    ("ldxr x0, [x1]", 0xc85f_7c20, Some(8)),
    ("stxr w2, x0, [x1]", 0xc802_7c20, Some(8)),
    ("ldaxp x0, x1, [x2]", 0xc87f_8440, Some(16)),
    ("ldadd w0, w1, [x2]", 0xb820_0041, Some(4)),
    ("swp x0, x1, [x2]", 0xf820_8041, Some(8)),
    ("prfm pldl1keep, [x0]", 0xf980_0000, None),
    ("add x0, x0, #1", 0x9100_0400, None),
    ("str x0, [x1], #8", 0xf800_8420, Some(8)),
    ("ldrsw x0, [x1]", 0xb980_0020, Some(4)),
    ("stp q0, q1, [x0]", 0xad00_0400, Some(32)),
    ("casp x0, x1, x2, x3, [x4]", 0x4820_7c82, Some(16)),
    ("ldarb w0, [x1]", 0x08df_fc20, Some(1)),
    ("stlr x0, [x1]", 0xc89f_fc20, Some(8)),
    ("ld1 {v0.16b}, [x0]", 0x4c40_7000, None),
    ("ldtr x0, [x1]", 0xf840_0820, Some(8)),
    ("ldrsb x0, [x1, #1]!", 0x3880_1c20, Some(1)),
];

#[test]
fn access_sizes_of_assembled_loads_and_stores() {
    for &(text, word, size) in ASSEMBLED {
        assert_eq!(data_access_size(word), size, "{text} ({word:#010x})");
    }
}

#[test]
fn no_word_panics_and_sizes_are_plausible() {
    // A sweep over a spread of words: every answer is a power of two of at most 32 bytes.
    let mut word = 0u32;
    for _ in 0..1_000_000 {
        word = word.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        if let Some(size) = data_access_size(word) {
            assert!(
                size.is_power_of_two() && size <= 32,
                "{word:#010x} -> {size}"
            );
        }
    }
}

fn esr(ec: u64, iss: u64) -> u64 {
    (ec << 26) | (1 << 25) | iss
}

#[test]
fn debug_exception_classes_decode() {
    assert_eq!(
        DebugEvent::from_esr(esr(0x31, 0x22)),
        Some(DebugEvent::Breakpoint { same_el: true })
    );
    assert_eq!(
        DebugEvent::from_esr(esr(0x30, 0x22)),
        Some(DebugEvent::Breakpoint { same_el: false })
    );
    assert_eq!(
        DebugEvent::from_esr(esr(0x33, (1 << 24) | (1 << 6) | 0x22)),
        Some(DebugEvent::SoftwareStep {
            load_exclusive: true,
            ex_valid: true
        })
    );
    assert_eq!(
        DebugEvent::from_esr(esr(0x35, (1 << 6) | 0x22)),
        Some(DebugEvent::Watchpoint {
            write: true,
            cache_maintenance: false,
            same_el: true
        })
    );
    assert_eq!(
        DebugEvent::from_esr(esr(0x34, (1 << 8) | 0x22)),
        Some(DebugEvent::Watchpoint {
            write: false,
            cache_maintenance: true,
            same_el: false
        })
    );
    assert_eq!(
        DebugEvent::from_esr(esr(0x3c, 0xbeef)),
        Some(DebugEvent::Brk { comment: 0xbeef })
    );
    // An undefined instruction and an SVC are not debug exceptions.
    assert_eq!(DebugEvent::from_esr(esr(0x00, 0)), None);
    assert_eq!(DebugEvent::from_esr(esr(0x15, 0)), None);
}
