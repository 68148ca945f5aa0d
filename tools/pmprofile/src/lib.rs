//! pmprofile: the host side of pmprobe's sampling profiler.
//!
//! Reads a `PMPS` sample file written by the firmware (`pmprobe::sampling::wire`) and the
//! firmware ELF, symbolizes every PC and return address with `addr2line` (inlined frames
//! included, Rust names demangled), and produces a top-N table of self and total shares,
//! folded stacks, a flamegraph SVG rendered with `inferno`, a Firefox Profiler profile
//! ([`firefox`]) and a perf.data file for `perf report` ([`perf_data`]); optionally checks the share of samples through given functions against
//! figures the firmware measured ([`expect`]).

#![warn(missing_docs)]

pub mod expect;
pub mod firefox;
pub mod frame_record;
pub mod perf_data;
pub mod profile;
pub mod report;
pub mod symbolize;

pub use profile::{
    FunctionShare, Profile, Resolve, SymbolTableOnly, core_frame, return_addresses, stack_of,
};
pub use symbolize::{Frame, FunctionSymbol, Symbolizer, UNKNOWN, demangle};
