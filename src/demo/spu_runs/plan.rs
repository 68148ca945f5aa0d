//! What the demo runs, as data: one [`Plan`] per SPU (kernel, mode, fetch model, what else is
//! attached), the listeners' sizes and the names of the files it writes. A leaf: the scenario,
//! the per-SPU run and the reports all read it, and it reads none of them.

use pmprobe::probe::MutListener;
use pmprobe::probe::listeners::{MemTrace, StackDistance};
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::unit::Mode;

use crate::demo::shared::kernels::{self, Kernel};

/// Records the big trace ring holds (enough for the traced SPU's whole run).
pub const TRACE_RECORDS: usize = 16 * 1024;
/// Records of the small ring attached next to it, which overflows on purpose.
pub const SMALL_TRACE_RECORDS: usize = 256;
/// Lines the stack distance calculator tracks, and its linear bins.
pub const DISTANCE_LINES: usize = 256;
/// Linear bins of its histogram.
pub const DISTANCE_BINS: usize = 64;
/// Line size of the stack distance calculator: one LS quadword (the SPU's load/store unit).
pub const DISTANCE_LINE_BYTES: u64 = 16;

pub type Trace = MutListener<MemTrace<TRACE_RECORDS>>;
pub type SmallTrace = MutListener<MemTrace<SMALL_TRACE_RECORDS>>;
pub type Distances = MutListener<StackDistance<DISTANCE_LINES, DISTANCE_BINS>>;

/// The memory trace file (Dinero IV "din") and the Konata pipeline log.
pub const DIN_FILE: &str = "pmprobe-demo-spu3.din";
/// The Konata pipeline log of SPU2's log run.
pub const KONATA_FILE: &str = "pmprobe-demo-spu2.konata";

/// What a kernel's SPU carries besides its PMU.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A `BreakPcEvent` at this label.
    Breakpoint(&'static str),
    /// The stack distance calculator on its data accesses.
    StackDistance,
    /// Nothing else.
    Plain,
    /// The memory trace recorders (the big ring and the small one).
    Trace,
}

#[derive(Clone, Copy)]
pub struct Plan {
    /// The fetch model in pipeline mode.
    pub fetch: FetchKind,
    /// Write the Kanata log (in a run of its own, cycle by cycle, that counts nothing).
    pub konata: bool,
    pub spu: usize,
    pub kernel: Kernel,
    pub mode: Mode,
    pub role: Role,
    /// Host instructions (millions) the plan's runs take on one core, measured under
    /// `-icount`: the weight by which the SPU phase deals the plans to the cores. A stale figure
    /// makes the split less even, never wrong.
    pub weight: u32,
}

pub const PLANS: [Plan; 4] = [
    Plan {
        spu: 0,
        kernel: kernels::SAXPY,
        mode: Mode::Pipeline,
        // The real fetch unit: the hbrr-hinted loop shows hint hits and its exits mispredict.
        fetch: FetchKind::Real,
        konata: false,
        role: Role::Breakpoint("saxpy_branch"),
        weight: 254,
    },
    Plan {
        spu: 1,
        kernel: kernels::CHAIN,
        mode: Mode::Pipeline,
        fetch: FetchKind::Real,
        konata: false,
        role: Role::StackDistance,
        weight: 381,
    },
    Plan {
        spu: 2,
        kernel: kernels::DOUBLE,
        mode: Mode::Pipeline,
        fetch: FetchKind::Real,
        konata: true,
        role: Role::Plain,
        weight: 896,
    },
    Plan {
        spu: 3,
        kernel: kernels::SAXPY,
        mode: Mode::Instruction,
        fetch: FetchKind::Ideal,
        konata: false,
        role: Role::Trace,
        weight: 63,
    },
];
