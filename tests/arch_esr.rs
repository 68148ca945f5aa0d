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
