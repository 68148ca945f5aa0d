//! The din text decoder: what `MemTrace::write_din` writes reads back, the spellings other
//! tools write are taken, and every malformed line is a typed error naming its line.

use pmprobe::probe::listeners::{AccessKind, MemAccess, MemTrace, OverflowPolicy};
use pmprobe::probe::listeners::{DinDecodeError, DinDecoder, DinRecord};

use AccessKind::{InstructionFetch, Read, Write};

fn decode(text: &str) -> Vec<Result<DinRecord, DinDecodeError>> {
    DinDecoder::new(text.as_bytes()).collect()
}

fn record(kind: AccessKind, address: u64) -> Result<DinRecord, DinDecodeError> {
    Ok(DinRecord { kind, address })
}

#[test]
fn what_write_din_writes_reads_back() {
    let mut trace: MemTrace<8> = MemTrace::new(OverflowPolicy::DropNewest);
    for (index, (kind, address)) in [(Read, 0x10), (Write, 0), (InstructionFetch, u64::MAX)]
        .into_iter()
        .enumerate()
    {
        trace.record(MemAccess {
            tick: index as u64,
            pc: 4 * index as u64,
            address,
            size: 16,
            kind,
        });
    }
    let mut text = String::new();
    trace.write_din(&mut text).unwrap();
    assert_eq!(text, "0 10\n1 0\n2 ffffffffffffffff\n");
    assert_eq!(
        decode(&text),
        [
            record(Read, 0x10),
            record(Write, 0),
            record(InstructionFetch, u64::MAX)
        ]
    );
}

#[test]
fn other_spellings_of_a_line_are_taken() {
    assert_eq!(
        decode("\n0 0xAbC\r\n\n  1\t\t00ff  \n2 0X1"),
        [
            record(Read, 0xabc),
            record(Write, 0xff),
            record(InstructionFetch, 1)
        ]
    );
    assert_eq!(decode(""), []);
    assert_eq!(decode(" \n\t\n"), []);
}

#[test]
fn malformed_lines_are_errors_naming_the_line_and_end_the_trace() {
    use DinDecodeError::*;
    for (text, error) in [
        ("3 10", BadLabel { line: 1 }),
        ("0 1\n4 10", BadLabel { line: 2 }),
        ("00 10", BadLabel { line: 1 }),
        ("r 10", BadLabel { line: 1 }),
        ("0", BadAddress { line: 1 }),
        ("0 0x", BadAddress { line: 1 }),
        ("0 10g", BadAddress { line: 1 }),
        ("0 -10", BadAddress { line: 1 }),
        ("0 10000000000000000", BadAddress { line: 1 }),
        ("0 \u{e9}", BadAddress { line: 1 }),
        ("\n\n1 10 4", TrailingText { line: 3 }),
    ] {
        let decoded = decode(&format!("{text}\n0 20\n"));
        assert_eq!(decoded.last(), Some(&Err(error)), "{text:?}");
        assert!(error.to_string().contains("din line"));
    }
    // 16 significant digits fit, leading zeros do not count.
    assert_eq!(decode("0 000ffffffffffffffff"), [record(Read, u64::MAX)]);
}
