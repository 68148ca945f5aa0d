//! The views: what reads a pipeline, or a program, to show it, and changes nothing.
//!
//! What lives here: the simulator's per-cycle trace frame (`trace`), the Konata pipeline
//! viewer log (`konata`) and the static spu_timing-style listing (`timing`).
//!
//! What it may use: the model's types and the [`Pipeline`](super::Pipeline)'s read-only
//! accessors (the listing runs the model's issue rules on straight-line code). Neither the
//! model nor the shortcuts import a view.

pub(super) mod konata;
pub(super) mod timing;
pub(super) mod trace;
