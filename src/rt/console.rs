//! The console: PL011 UART0 of QEMU `virt` (at 0x0900_0000) with `core::fmt` printing.
//!
//! [`println!`](crate::println) / [`print!`](crate::print) format straight to the UART. With the
//! `defmt` feature the UART carries defmt frames instead, so each `print!` call is formatted into a
//! line buffer and sent as one defmt `println` frame: the host runner decodes everything, and text
//! never corrupts the binary stream.
use core::fmt;
use tock_registers::interfaces::{Readable, Writeable};
use tock_registers::registers::{ReadOnly, ReadWrite, WriteOnly};
use tock_registers::{register_bitfields, register_structs};

register_bitfields! {
    u32,
    /// Flag register.
    FR [
        /// Transmit FIFO full: wait before writing DR.
        TXFF OFFSET(5) NUMBITS(1) [],
        /// The UART is still sending data.
        BUSY OFFSET(3) NUMBITS(1) []
    ],
    /// Integer part of the baud rate divisor.
    IBRD [ BAUD_DIVINT OFFSET(0) NUMBITS(16) [] ],
    /// Fractional part (in 1/64) of the baud rate divisor.
    FBRD [ BAUD_DIVFRAC OFFSET(0) NUMBITS(6) [] ],
    /// Line control.
    LCR_H [
        /// Word length.
        WLEN OFFSET(5) NUMBITS(2) [ EightBit = 0b11 ],
        /// FIFOs enabled.
        FEN OFFSET(4) NUMBITS(1) []
    ],
    /// Control.
    CR [
        /// Receive enable.
        RXE OFFSET(9) NUMBITS(1) [],
        /// Transmit enable.
        TXE OFFSET(8) NUMBITS(1) [],
        /// UART enable.
        UARTEN OFFSET(0) NUMBITS(1) []
    ],
    /// Interrupt clear.
    ICR [ ALL OFFSET(0) NUMBITS(11) [] ]
}

register_structs! {
    Pl011Registers {
        (0x00 => dr: ReadWrite<u32>),
        (0x04 => _reserved0),
        (0x18 => fr: ReadOnly<u32, FR::Register>),
        (0x1c => _reserved1),
        (0x24 => ibrd: WriteOnly<u32, IBRD::Register>),
        (0x28 => fbrd: WriteOnly<u32, FBRD::Register>),
        (0x2c => lcr_h: WriteOnly<u32, LCR_H::Register>),
        (0x30 => cr: WriteOnly<u32, CR::Register>),
        (0x34 => _reserved2),
        (0x44 => icr: WriteOnly<u32, ICR::Register>),
        (0x48 => @END),
    }
}

/// QEMU virt's UART0 base address.
const PL011_BASE: usize = 0x0900_0000;

fn registers() -> &'static Pl011Registers {
    // SAFETY: QEMU virt maps a PL011 at PL011_BASE for the whole run; the register block is
    // only ever accessed through volatile tock-registers accessors.
    unsafe { &*(PL011_BASE as *const Pl011Registers) }
}

/// Programs the UART for 115200 8N1 with FIFOs (UARTCLK is 24 MHz on QEMU virt).
pub(crate) fn init() {
    let r = registers();
    r.cr.set(0);
    r.icr.write(ICR::ALL::SET);
    // 24 MHz / (16 * 115200) = 13.02: IBRD 13, FBRD round(0.02 * 64) = 1.
    r.ibrd.write(IBRD::BAUD_DIVINT.val(13));
    r.fbrd.write(FBRD::BAUD_DIVFRAC.val(1));
    r.lcr_h.write(LCR_H::WLEN::EightBit + LCR_H::FEN::SET);
    r.cr.write(CR::UARTEN::SET + CR::TXE::SET + CR::RXE::SET);
}

/// Sends raw bytes to the UART (blocking while the FIFO is full).
pub fn write_bytes(bytes: &[u8]) {
    let r = registers();
    for &b in bytes {
        while r.fr.is_set(FR::TXFF) {
            core::hint::spin_loop();
        }
        r.dr.set(u32::from(b));
    }
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
