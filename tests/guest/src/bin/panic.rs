//! Panics on purpose: the panic handler must print the message and location and exit non-zero.
#![no_std]
#![no_main]

pmprobe::entry!(main);

fn main() -> i32 {
    let value = core::hint::black_box(42);
    if value == 42 {
        panic!("deliberate guest panic, value = {value}");
    }
    0
}
