//! What the DMA race checker's tests share: the race kernels of `spu/programs/races/`
//! assembled (their `.include "dma.inc"` inlined), run in either mode under a checker whose
//! races are recorded, and their labels looked up.

#![allow(dead_code)] // each test file uses its own part

use std::cell::RefCell;

use pmprobe::probe::Listener;
use pmprobe::spu::dma_check::{DmaCheckStats, DmaRace, DmaRaceChecker, LaterAccess};
use pmprobe::spu::exec::{RunEnd, StopReason};
use pmprobe::spu::isa::asm::{Program, assemble};
use pmprobe::spu::main_memory::MainMemory;
use pmprobe::spu::probes::SpuObserver;
use pmprobe::spu::runtime::start::preferred_doubleword;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

/// Both modes.
pub const MODES: [Mode; 2] = [Mode::Instruction, Mode::Pipeline];

/// The kernels' directory.
const KERNELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/spu/programs/races");

/// Kernel `name`'s source with `dma.inc` inlined (the library's assembler reads no files).
pub fn source(name: &str) -> String {
    let read = |file: &str| {
        std::fs::read_to_string(format!("{KERNELS}/{file}"))
            .unwrap_or_else(|e| panic!("{file}: {e}"))
    };
    read(name).replace(".include \"dma.inc\"", &read("dma.inc"))
}

/// The assembled kernel: its image and program (labels).
pub fn assembled(name: &str) -> (Vec<u8>, Box<Program<512>>) {
    assembled_text(&source(name))
}

/// `text` assembled.
pub fn assembled_text(text: &str) -> (Vec<u8>, Box<Program<512>>) {
    let mut image = vec![0u8; 256 * 1024];
    let program = assemble::<512>(text, &mut image)
        .map(Box::new)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    image.truncate(program.len);
    (image, program)
}

/// `text` with the kernels' `dma.inc` macros before it.
pub fn with_macros(text: &str) -> String {
    format!("{}\n{text}", source("dma.inc"))
}

/// The address of `label` in kernel `name`.
pub fn label(name: &str, label: &str) -> u32 {
    assembled(name)
        .1
        .symbol(label)
        .unwrap_or_else(|| panic!("{name} has no label {label}"))
}

/// Records every race.
#[derive(Default)]
pub struct Races(pub RefCell<Vec<DmaRace>>);

impl Listener<DmaRace> for Races {
    fn notify(&self, race: &DmaRace) {
        self.0.borrow_mut().push(*race);
    }
}

/// What a checked run gives.
pub struct Checked {
    pub races: Vec<DmaRace>,
    pub stats: DmaCheckStats,
    /// Each SPU's end and its unit.
    pub ends: Vec<RunEnd>,
    pub units: Vec<Box<SpuUnit>>,
}

/// Runs kernel `name` on `threads` SPUs (thread n gets start arguments 1 = `variant` and
/// 2 = n, in their preferred doublewords) in `mode` over one main memory, in turns of 1024
/// cycles, each under the checker, until every SPU stopped.
pub fn run(name: &str, variant: u64, mode: Mode, threads: u8) -> Checked {
    run_text(&source(name), variant, mode, threads)
}

/// [`run`] for a program given as text.
pub fn run_text(text: &str, variant: u64, mode: Mode, threads: u8) -> Checked {
    let (image, program) = assembled_text(text);
    let name = "the program";
    let memory: &'static MainMemory<Vec<u8>> =
        Box::leak(Box::new(MainMemory::new(vec![0u8; 1 << 20])));
    let races = Races::default();
    let checker = Box::new(DmaRaceChecker::new());
    checker.races().add_object(&races).unwrap();
    let mut units: Vec<Box<SpuUnit>> = (0..threads)
        .map(|id| {
            let mut unit = Box::new(SpuUnit::new(id));
            unit.load_program(&image, program.entry).unwrap();
            unit.attach_main_memory(memory);
            let arch = unit.arch_mut();
            arch.set_register(3, preferred_doubleword(variant));
            arch.set_register(4, preferred_doubleword(u64::from(id)));
            unit.set_mode(mode);
            unit
        })
        .collect();
    let observers: Vec<_> = (0..threads)
        .map(|id| checker.observer(id).unwrap())
        .collect();
    let mut ends: Vec<Option<RunEnd>> = vec![None; usize::from(threads)];
    for _round in 0..10_000 {
        for ((unit, observer), end) in units.iter_mut().zip(&observers).zip(ends.iter_mut()) {
            if end.is_some() {
                continue;
            }
            let outcome = unit.run(1024, observer, &mut Discard).unwrap();
            if let RunEnd::Stopped(_) = outcome.end {
                *end = Some(outcome.end);
            }
        }
        if ends.iter().all(Option::is_some) {
            break;
        }
    }
    let ends: Vec<RunEnd> = ends
        .into_iter()
        .map(|end| end.unwrap_or_else(|| panic!("{name} variant {variant} never stopped")))
        .collect();
    let stats = checker.stats();
    drop(observers);
    let races = races.0.take();
    Checked {
        races,
        stats,
        ends,
        units,
    }
}

/// Runs kernel `name` on one SPU.
pub fn run_one(name: &str, variant: u64, mode: Mode) -> Checked {
    run(name, variant, mode, 1)
}

/// The stop code an SPU ended with.
pub fn stop_code(end: &RunEnd) -> Option<u16> {
    match end {
        RunEnd::Stopped(StopReason::Stop { signal, .. }) => Some(*signal),
        _ => None,
    }
}

/// A race without its cycle: what both modes must agree on.
pub fn timeless(race: &DmaRace) -> DmaRace {
    let mut race = *race;
    race.cycle = 0;
    race.earlier.cycle = 0;
    if let LaterAccess::Transfer(transfer) = &mut race.later {
        transfer.cycle = 0;
    }
    race
}

/// Races without cycles.
pub fn timeless_all(races: &[DmaRace]) -> Vec<DmaRace> {
    races.iter().map(timeless).collect()
}

/// Any observer can run the kernels too (for tests that compose the checker).
pub fn run_observed(unit: &mut SpuUnit, observer: &impl SpuObserver) -> RunEnd {
    unit.run(10_000_000, observer, &mut Discard).unwrap().end
}
