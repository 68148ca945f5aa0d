//! Built-in listeners: a PMU event feeder, a stack distance calculator and a memory trace
//! recorder.
#![forbid(unsafe_code)]

mod mem_access;
mod mem_trace;
mod pmu_counter;
mod stack_distance;

pub use mem_access::{AccessKind, MemAccess};
pub use mem_trace::{
    BINARY_MAGIC, BINARY_VERSION, DinDecodeError, DinDecoder, DinRecord, MemTrace, OverflowPolicy,
    TraceDecodeError, TraceDecoder, TraceEncodeError,
};
pub use pmu_counter::{
    EVENTS_PER_POINT, GEM5_DEFAULT_MAPPINGS, PmuCounterError, PmuEventCounter, PmuEventSink,
    PmuFeed, SyncReport,
};
pub use stack_distance::{
    Distance, DistanceHistograms, LOG2_BINS, StackDistance, StackDistanceError,
};
