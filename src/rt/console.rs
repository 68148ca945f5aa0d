//! The console: PL011 UART0 of QEMU `virt`, driven by the `arm-pl011-uart` crate, with
//! `core::fmt` printing.
//!
//! [`println!`](crate::println) / [`print!`](crate::print) format straight to the UART. With the
//! `defmt` feature the UART carries defmt frames instead, so each `print!` call is formatted into a
//! line buffer and sent as one defmt `println` frame: the host runner decodes everything, and text
//! never corrupts the binary stream.
//!
//! Each write runs in a critical section: the driver object is unique while it exists (as the
//! crate requires), and an interrupt handler's output cannot land inside another write. Across
//! cores this needs a lock as well.
use arm_pl011_uart::{
    DataBits, LineConfig, PL011Registers, Parity, StopBits, Uart, UniqueMmioPointer,
};
use core::fmt;
use core::ptr::NonNull;

use super::platform::{UART_BASE, UART_BAUD, UART_CLOCK_HZ};
use crate::arch::interrupts::free;

/// Runs `f` on the UART driver, inside a critical section.
fn with_uart<R>(f: impl FnOnce(&mut Uart<'_>) -> R) -> Option<R> {
    free(|_| {
        let registers = NonNull::new(UART_BASE as *mut PL011Registers)?;
        // SAFETY: the platform's PL011 register block, mapped as Device memory by the identity
        // map; the driver object exists only inside this critical section, so it is unique.
        let mut uart = Uart::new(unsafe { UniqueMmioPointer::new(registers) });
        Some(f(&mut uart))
    })
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

/// Sends raw bytes to the UART (blocking while the FIFO is full).
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

/// A `core::fmt::Write` sink for the console.
#[derive(Clone, Copy, Debug, Default)]
pub struct Console;

impl fmt::Write for Console {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        write_bytes(s.as_bytes());
        Ok(())
    }
}

/// Implementation of [`print!`](crate::print); not for direct use.
#[doc(hidden)]
#[cfg(not(feature = "defmt"))]
pub fn _print(args: fmt::Arguments<'_>) {
    let _ = fmt::write(&mut Console, args);
}

/// Implementation of [`print!`](crate::print); not for direct use.
#[doc(hidden)]
#[cfg(feature = "defmt")]
pub fn _print(args: fmt::Arguments<'_>) {
    /// Collects the text of one `print!` call; a longer text is sent in several frames.
    struct LineBuffer(heapless::String<256>);
    impl LineBuffer {
        fn flush(&mut self) {
            let text = self.0.trim_end_matches('\n');
            defmt::println!("{=str}", text);
            self.0.clear();
        }
    }
    impl fmt::Write for LineBuffer {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            for c in s.chars() {
                if self.0.push(c).is_err() {
                    self.flush();
                    let _ = self.0.push(c);
                }
            }
            Ok(())
        }
    }
    let mut line = LineBuffer(heapless::String::new());
    let _ = fmt::write(&mut line, args);
    if !line.0.is_empty() {
        line.flush();
    }
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
