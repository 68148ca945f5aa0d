//! Checks of the `spu_printf` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): the SPU runtimes' print path on arbitrary formats and
//! arguments.
//!
//! The input's first byte picks where things go; up to its first NUL the rest is the format,
//! the bytes after it fill the local store from the argument block on (strings, arguments,
//! a `va_list`). The format goes through both argument conventions (the PS3's quadword block,
//! libspe2's `va_list` walk) and through lv2's print server (`SPU_WrOutIntrMbox` port 1).
//!
//! Checks: no panic; printf's count is the bytes the sink received; one conversion writes at
//! most twice `MAX_AMOUNT` plus a number's digits (so the output is bounded by the format's
//! length); a refusal names an offset inside the format; the print server writes at most
//! `MAX_PRINT_BYTES` and answers `CELL_OK` then the count (or -1 for a refused format), and a
//! truncation is reported with the number of bytes dropped.
use std::cell::RefCell;

use pmprobe::spu::exec::{LS_SIZE, LocalStore, Quadword, RunEnd, SpuState};
use pmprobe::spu::runtime::printf::{
    self, LsString, MAX_AMOUNT, PrintfError, PrintfSink, QuadwordArguments, VaListArguments,
};
use pmprobe::spu::runtime::{
    CELL_OK, Lv2Runtime, MAX_PRINT_BYTES, Notice, OutputFailed, ProgramOutput, Serviced,
    SpuRuntime, Stream,
};

/// A conversion's output past its width or precision: a sign, a prefix, 17 digits and the
/// zeros of a double's integer part (up to 309), an exponent.
const NUMBER_BYTES: usize = 400;

thread_local! {
    static SPU: RefCell<Box<SpuState>> = RefCell::new(Box::new(SpuState::new(0)));
}

#[derive(Default)]
struct Counting {
    bytes: usize,
}

impl PrintfSink for Counting {
    fn put(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len();
    }
}

#[derive(Default)]
struct Captured {
    stdout: usize,
    dropped: u64,
    refused: bool,
}

impl ProgramOutput for Captured {
    fn write(&mut self, stream: Stream, bytes: &[u8]) -> Result<(), OutputFailed> {
        assert_eq!(stream, Stream::Stdout, "spu_printf writes standard output");
        self.stdout += bytes.len();
        Ok(())
    }

    fn notice(&mut self, notice: Notice) {
        match notice {
            Notice::PrintTruncated { dropped } => self.dropped += dropped,
            Notice::PrintfRefused(_) => self.refused = true,
            other => panic!("unexpected notice {other:?}"),
        }
    }
}

fn checked_format(
    format: &[u8],
    local_store: &LocalStore,
    arguments: &mut dyn printf::PrintfArguments,
) -> Result<usize, PrintfError> {
    let mut sink = Counting::default();
    let result = printf::format(
        &LsString::new(local_store, FORMAT_AT),
        local_store,
        arguments,
        &mut sink,
    );
    let conversions = format.iter().filter(|&&b| b == b'%').count();
    let bound = format.len() + conversions * (2 * MAX_AMOUNT as usize + NUMBER_BYTES);
    assert!(
        sink.bytes <= bound,
        "{} bytes from a {}-byte format",
        sink.bytes,
        format.len()
    );
    match result {
        Ok(printed) => assert_eq!(printed, sink.bytes, "printf's count"),
        Err(
            PrintfError::UnfinishedConversion { offset }
            | PrintfError::UnsupportedConversion { offset, .. }
            | PrintfError::AmountTooLarge { offset },
        ) => {
            assert!(
                offset < format.len(),
                "offset {offset} in {} bytes",
                format.len()
            );
            assert_eq!(format[offset], b'%');
        }
    }
    result
}

const FORMAT_AT: u32 = 0x1000;

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let (format, fill) = match rest.iter().position(|&b| b == 0) {
        Some(nul) => (&rest[..nul], &rest[nul + 1..]),
        None => (rest, &[][..]),
    };
    // Keep the format under 4 KiB so that it never reaches the argument block.
    let format = &format[..format.len().min(0xf00)];
    // The block near the end of the local store for odd selectors: arguments and strings run
    // into its end.
    let block = if selector & 1 != 0 {
        LS_SIZE - 0x100 + u32::from(selector & 0xf0)
    } else {
        0x2000 + (u32::from(selector) << 4)
    };
    SPU.with(|spu| {
        let mut spu = spu.borrow_mut();
        let local_store = spu.local_store_mut();
        local_store.clear();
        for (offset, &byte) in format.iter().enumerate() {
            local_store.store_byte(FORMAT_AT + offset as u32, byte);
        }
        local_store.store_quadword(block, Quadword::from_words([FORMAT_AT, 0, 0, 0]));
        // The fill stops at the end of the local store: it never reaches the format.
        let room = (LS_SIZE - (block + 16)).min(0x8000) as usize;
        for (offset, &byte) in fill.iter().take(room).enumerate() {
            local_store.store_byte(block + 16 + offset as u32, byte);
        }
        let local_store = spu.local_store();
        let quadword = checked_format(
            format,
            local_store,
            &mut QuadwordArguments::new(local_store, block + 16),
        );
        let va_list = checked_format(
            format,
            local_store,
            &mut VaListArguments::at(local_store, block + 16),
        );
        // The format decides a refusal, not the arguments.
        assert_eq!(quadword.is_err(), va_list.is_err());

        // The same request through lv2's print server.
        spu.channels_mut().inbound.clear();
        spu.channels_mut().outbound.clear();
        spu.channels_mut().outbound_interrupt.clear();
        spu.channels_mut().outbound.push(block).unwrap();
        spu.channels_mut()
            .outbound_interrupt
            .push(0x0100_0000)
            .unwrap();
        let mut output = Captured::default();
        let mut runtime = Lv2Runtime::new();
        let serviced = runtime.service(&mut spu, RunEnd::Blocked { channel: 29 }, &mut output);
        assert_eq!(serviced, Ok(Serviced::Resume));
        assert!(output.stdout as u64 <= MAX_PRINT_BYTES);
        assert_eq!(spu.channels_mut().inbound.pop(), Some(CELL_OK));
        let count = spu.channels_mut().inbound.pop().expect("printf's count");
        match quadword {
            Ok(printed) => {
                assert!(!output.refused);
                assert_eq!(u64::from(count), printed as u64);
                assert_eq!(output.stdout as u64 + output.dropped, printed as u64);
            }
            Err(_) => {
                assert!(output.refused);
                assert_eq!(count, u32::MAX, "a refused format returns -1");
            }
        }
    });
}
