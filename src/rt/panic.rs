//! The panic handler: print the message and location, then end QEMU with a non-zero status.
use core::panic::PanicInfo;

#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    match info.location() {
        Some(loc) => crate::println!(
            "\n*** PANIC at {}:{}:{}: {}",
            loc.file(),
            loc.line(),
            loc.column(),
            info.message()
        ),
        None => crate::println!("\n*** PANIC: {}", info.message()),
    }
    super::exit(super::EXIT_PANIC)
}
