//! The console: PL011 UART0 of QEMU `virt`, driven by the `arm-pl011-uart` crate, with
//! `core::fmt` printing.
//!
//! [`println!`](crate::println) / [`print!`](crate::print) format into the calling core's line
//! buffer, and every finished line goes to the UART whole, under the console lock (an
//! [`IrqSpinMutex`]: IRQs masked on this core, the other cores kept out). Lines from several
//! cores and their interrupt handlers therefore come out one after the other, never mixed
//! within a line, also when a line is built by several `print!` calls. A line longer than
//! [`LINE_CAPACITY`] bytes is written in pieces of that size. An unfinished line waits in its
//! core's buffer until its newline, until the core's work ends ([`on_each_core`] writes it out),
//! or until the program exits ([`exit`](super::exit) writes the exiting core's).
//!
//! With the `defmt` feature the UART carries defmt frames instead: each finished line goes out
//! as one defmt `println` frame, so the host runner decodes everything and text never corrupts
//! the binary stream. The defmt logger holds its own lock across a frame and writes its bytes
//! with [`write_bytes`].
//!
//! [`on_each_core`]: super::smp::on_each_core
use arm_pl011_uart::{
    DataBits, LineConfig, PL011Registers, Parity, StopBits, Uart, UniqueMmioPointer,
};
use core::cell::RefCell;
use core::fmt;
use core::ptr::NonNull;

use super::core_id::{MAX_CORES, this_core};
use super::platform::{UART_BASE, UART_BAUD, UART_CLOCK_HZ};
use crate::sync::{IrqMutex, IrqSpinMutex};

/// Bytes of a core's unfinished line; a longer line is written in pieces of this size.
pub const LINE_CAPACITY: usize = 512;

/// The console lock: every write to the UART takes it.
static UART: IrqSpinMutex<()> = IrqSpinMutex::new(());

/// Runs `f` on the UART driver, under the console lock.
fn with_uart<R>(f: impl FnOnce(&mut Uart<'_>) -> R) -> Option<R> {
    UART.lock(|()| {
        let registers = NonNull::new(UART_BASE as *mut PL011Registers)?;
        // SAFETY: the platform's PL011 register block, mapped as Device memory by the identity
        // map; the driver object exists only under the console lock, so it is unique.
        let mut uart = Uart::new(unsafe { UniqueMmioPointer::new(registers) });
        Some(f(&mut uart))
    })
}

/// One core's line in the making.
struct Line {
    bytes: [u8; LINE_CAPACITY],
    len: usize,
}

impl Line {
    const fn new() -> Self {
        Self {
            bytes: [0; LINE_CAPACITY],
            len: 0,
        }
    }

    /// Sends what the line holds (to the UART as text, or as one defmt frame) and empties it.
    fn flush(&mut self) {
        let bytes = self.bytes.get(..self.len).unwrap_or(&[]);
        send_line(bytes);
        self.len = 0;
    }
}

/// Text mode: the line's bytes, newline included, to the UART.
#[cfg(not(feature = "defmt"))]
fn send_line(bytes: &[u8]) {
    write_bytes(bytes);
}

/// defmt mode: the line as one defmt `println` frame (the decoder adds the newline).
#[cfg(feature = "defmt")]
fn send_line(bytes: &[u8]) {
    // A line is filled a whole character at a time, so it is valid UTF-8.
    let text = match core::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => core::str::from_utf8(bytes.get(..e.valid_up_to()).unwrap_or(&[])).unwrap_or(""),
    };
    defmt::println!("{=str}", text.trim_end_matches('\n'));
}

impl fmt::Write for Line {
    /// Copies `s` in pieces that end at a newline (flushed at once) or where the buffer is full
    /// (cut at a character boundary, so that a line is always valid UTF-8).
    fn write_str(&mut self, mut s: &str) -> fmt::Result {
        while !s.is_empty() {
            let free = LINE_CAPACITY - self.len;
            let through_newline = s.find('\n').map_or(s.len(), |newline| newline + 1);
            let mut take = through_newline.min(free);
            while take > 0 && !s.is_char_boundary(take) {
                take -= 1;
            }
            let Some((piece, rest)) = s.split_at_checked(take).filter(|_| take > 0) else {
                // Full, or the next character does not fit: make room.
                self.flush();
                continue;
            };
            if let Some(slots) = self.bytes.get_mut(self.len..self.len + take) {
                slots.copy_from_slice(piece.as_bytes());
                self.len += take;
            }
            s = rest;
            if piece.ends_with('\n') || self.len == LINE_CAPACITY {
                self.flush();
            }
        }
        Ok(())
    }
}

/// Each core's unfinished line, by core number. Core-local: a core reaches only its own entry,
/// which it shares with its own interrupt handlers.
static PENDING: [IrqMutex<RefCell<Line>>; MAX_CORES] =
    [const { IrqMutex::new(RefCell::new(Line::new())) }; MAX_CORES];

/// Writes `args` through this core's line buffer. A print from inside a print on the same core
/// (a `Display` impl that prints, a panic while formatting) and a core without a number write
/// straight to the UART, piece by piece, rather than wait for a buffer they already hold.
fn print_buffered(args: fmt::Arguments<'_>) {
    let buffered = PENDING.get(this_core().index()).is_some_and(|pending| {
        pending.lock(|line| match line.try_borrow_mut() {
            Ok(mut line) => {
                let _ = fmt::write(&mut *line, args);
                true
            }
            Err(_) => false,
        })
    });
    if !buffered {
        let _ = fmt::write(&mut Unbuffered, args);
    }
}

/// Writes out this core's unfinished line, if it has one.
pub(crate) fn flush_this_core() {
    if let Some(pending) = PENDING.get(this_core().index()) {
        pending.lock(|line| {
            if let Ok(mut line) = line.try_borrow_mut() {
                line.flush();
            }
        });
    }
}

/// Each piece sent at once (as text, or as a defmt frame of its own).
struct Unbuffered;

impl fmt::Write for Unbuffered {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        send_line(s.as_bytes());
        Ok(())
    }
}

/// Programs the UART for 115200 8N1 with FIFOs.
pub(crate) fn init() {
    let config = LineConfig {
        data_bits: DataBits::Bits8,
        parity: Parity::None,
        stop_bits: StopBits::One,
    };
    // The divisor of the platform's constant clock and rate is valid; an error could only leave
    // the UART as the boot firmware set it, which QEMU's model prints through anyway.
    let _ = with_uart(|uart| uart.enable(config, UART_BAUD, UART_CLOCK_HZ));
}

/// Sends raw bytes to the UART at once, under the console lock (blocking while the FIFO is
/// full). They do not go through the line buffer: text written this way lands before the
/// calling core's unfinished line, if it has one.
pub fn write_bytes(bytes: &[u8]) {
    with_uart(|uart| {
        for &byte in bytes {
            while uart.is_tx_fifo_full() {
                core::hint::spin_loop();
            }
            uart.write_word(byte);
        }
    });
}

/// A `core::fmt::Write` sink for the console, through the calling core's line buffer.
#[derive(Clone, Copy, Debug, Default)]
pub struct Console;

impl fmt::Write for Console {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        print_buffered(format_args!("{s}"));
        Ok(())
    }
}

/// Implementation of [`print!`](crate::print); not for direct use.
#[doc(hidden)]
pub fn _print(args: fmt::Arguments<'_>) {
    print_buffered(args);
}

/// Prints to the QEMU console (PL011 UART0).
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => { $crate::rt::console::_print(format_args!($($arg)*)) };
}

/// Prints to the QEMU console (PL011 UART0), with a newline.
#[macro_export]
macro_rules! println {
    () => { $crate::print!("\n") };
    ($($arg:tt)*) => { $crate::rt::console::_print(format_args!("{}\n", format_args!($($arg)*))) };
}
