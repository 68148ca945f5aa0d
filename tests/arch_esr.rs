//! ESR_EL1 exception-class decoding, table-driven from the Arm ARM's EC encodings.
use pmprobe::arch::esr::{ExceptionClass, Syndrome, VectorKind};

#[test]
fn exception_classes_by_name() {
    // (EC, expected rendering) from the Arm ARM ESR_EL1 EC field description.
    let table: &[(u8, &str)] = &[
        (0x00, "Unknown reason"),
        (0x01, "Trapped WFI/WFE"),
        (0x07, "Trapped SIMD/FP access"),
        (0x0E, "Illegal execution state"),
        (0x15, "SVC (AArch64)"),
        (0x16, "HVC (AArch64)"),
        (0x17, "SMC (AArch64)"),
        (0x18, "Trapped MSR/MRS/system instruction"),
        (0x20, "Instruction abort from a lower EL"),
        (0x21, "Instruction abort from the same EL"),
        (0x22, "PC alignment fault"),
        (0x24, "Data abort from a lower EL"),
        (0x25, "Data abort from the same EL"),
        (0x26, "SP alignment fault"),
        (0x2C, "Trapped floating-point exception (AArch64)"),
        (0x2F, "SError interrupt"),
        (0x3C, "BRK (AArch64)"),
    ];
    for &(ec, name) in table {
        let esr = Syndrome(u64::from(ec) << 26 | 1 << 25);
        assert_eq!(esr.ec(), ec);
        assert_eq!(esr.class().to_string(), name, "EC 0x{ec:02x}");
    }
}

#[test]
fn unknown_classes_render_their_value_without_panicking() {
    for ec in [0x02u8, 0x0B, 0x10, 0x1E, 0x23, 0x2B, 0x3F] {
        let class = ExceptionClass::from_ec(ec);
        assert_eq!(class, ExceptionClass::Reserved(ec));
        assert_eq!(class.to_string(), format!("unknown (0x{ec:02x})"));
    }
    // Every 6-bit value decodes; bits above EC are ignored.
    for raw in 0..=u8::MAX {
        let _ = ExceptionClass::from_ec(raw).to_string();
    }
}

#[test]
fn syndrome_fields() {
    // A data abort from the same EL, 32-bit instruction, ISS = DFSC 0x04 (translation fault L0).
    let esr = Syndrome(0x9600_0004);
    assert_eq!(esr.ec(), 0x25);
    assert!(esr.il());
    assert_eq!(esr.iss(), 0x04);
    assert_eq!(esr.class(), ExceptionClass::DataAbortSame);
}

#[test]
fn vector_kinds() {
    assert_eq!(
        VectorKind(0).to_string(),
        "Synchronous from current EL with SP_EL0"
    );
    assert_eq!(VectorKind(5).to_string(), "IRQ from current EL with SP_ELx");
    assert_eq!(VectorKind(11).to_string(), "SError from lower EL (AArch64)");
    assert_eq!(VectorKind(14).to_string(), "FIQ from lower EL (AArch32)");
}

#[test]
fn vector_kind_from_the_interrupted_spsr() {
    use pmprobe::arch::esr::ExceptionKind;
    // SPSR.M = EL1h (0b0101): the current EL on SP_EL1; EL1t (0b0100): on SP_EL0.
    assert_eq!(
        VectorKind::from_spsr(ExceptionKind::Synchronous, false, 0x6000_03c5).to_string(),
        "Synchronous from current EL with SP_ELx"
    );
    assert_eq!(
        VectorKind::from_spsr(ExceptionKind::Irq, false, 0x3c4).to_string(),
        "IRQ from current EL with SP_EL0"
    );
    // A lower EL: EL0t in AArch64 (M = 0b00000), or AArch32 user mode (M = 0b10000).
    assert_eq!(
        VectorKind::from_spsr(ExceptionKind::SError, true, 0x0).to_string(),
        "SError from lower EL (AArch64)"
    );
    assert_eq!(
        VectorKind::from_spsr(ExceptionKind::Fiq, true, 0x10).to_string(),
        "FIQ from lower EL (AArch32)"
    );
}
