//! Ending the QEMU session, and the exit statuses the runtime ends it with. A leaf: the boot
//! path, the exception and panic handlers and the defmt logger all end the session.

use super::{console, semihosting};

/// Exit status after an unexpected exception (the report is printed first).
pub const EXIT_EXCEPTION: u32 = 3;
/// Exit status after a panic (the message is printed first).
pub const EXIT_PANIC: u32 = 101;

/// Ends the QEMU session with `status` as qemu-system-aarch64's exit status, after writing out
/// this core's unfinished console line.
pub fn exit(status: u32) -> ! {
    console::flush_this_core();
    semihosting::exit(status)
}
