//! Model of the Cell BE Synergistic Processor Unit (SPU).

pub mod exec;
