//! Section 5: the host core that runs the SPU model, measured with its real PMU.
//!
//! - [`host_table`]: each SPU's run against the host instructions and cycles it took, with
//!   its listeners attached and bare ([`HostRow`](host_table::HostRow), which the SPU runs
//!   fill);
//! - [`topdown`]: the host core's top-down level 1 with Arm's formulas, where the core has
//!   them.

pub mod host_table;
pub mod topdown;
