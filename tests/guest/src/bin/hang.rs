//! Spins forever: the runner's wall-clock timeout must kill it and report the hang.
#![no_std]
#![no_main]

pmprobe::entry!(main);

fn main() -> i32 {
    pmprobe::println!("spinning forever");
    loop {
        core::hint::spin_loop();
    }
}
