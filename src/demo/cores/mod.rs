//! The SPU runs spread over the cores, and the check that the spread changed nothing.
//!
//! - [`spread`]: the plans dealt to the cores heaviest first, each core measuring its share
//!   with its own PMU, the per-core table;
//! - [`reference`]: every plan again on the boot core alone, compared with its run on the
//!   core that ran it (the host table's figures when several cores ran).

pub mod reference;
pub mod spread;
