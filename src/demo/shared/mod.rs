//! What every room of the demo reads, and which reads no room: leaves.
//!
//! - [`output`]: `out!`/`outln!` to the console or a captured per-SPU section, headings;
//! - [`checks`]: the cross-checks' tally, whose verdict is the exit status;
//! - [`core_lock`]: the lock that shares a value between cores and leaves interrupts on;
//! - [`files`]: a buffered file on the host (semihosting);
//! - [`host_meter`]: the host core's real PMU around a piece of work;
//! - [`kernels`]: the SPU kernels of the SPU runs (`spu/programs/demo_*.s`) and their Rust
//!   replays;
//! - [`mode_name`]: what the tables call an SPU mode.
pub mod checks;
pub mod core_lock;
pub mod files;
pub mod host_meter;
pub mod kernels;
pub mod mode_name;
pub mod output;
