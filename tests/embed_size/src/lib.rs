//! The pieces of pmprobe an embedder may take, one function each, which the binaries in
//! `src/bin/` combine into firmware configurations of growing size: the PMU driver alone,
//! then probe points and listeners, one SPU in instruction mode, pipeline mode, the
//! assembler, and the event catalogue's names. `tests/embed_size.rs` builds them for
//! `aarch64-unknown-none` and reads the sections each one links (docs/embedding.md has the
//! table).
//!
//! Nothing here runs: the configurations are linked, not booted. Their inputs go through
//! [`black_box`] so that the compiler cannot fold the work away, and their results go into
//! one too, so that what they compute is kept. Each binary is [`firmware!`]: an entry symbol
//! that calls its pieces, and the panic handler below, the only other code they hold
//! (the `baseline` binary is that alone).
#![no_std]

use core::cell::{Cell, RefCell};
use core::fmt::{self, Write as _};
use core::hint::black_box;

use pmprobe::pmu::catalogue::for_midr;
use pmprobe::pmu::{Event, Pmu, SysRegPmu};
use pmprobe::probe::listeners::{AccessKind, MemAccess, MemTrace, OverflowPolicy, StackDistance};
use pmprobe::probe::{Listener, MutListener, ProbePoint};
use pmprobe::spu::exec::SpuState;
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::probes::SpuProbes;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};
use pmprobe::sync::IrqMutex;

/// An entry symbol, `_start`, that runs `$body` and hands its result to [`black_box`]: the
/// root the linker keeps everything else from.
#[macro_export]
macro_rules! firmware {
    ($body:expr) => {
        #[unsafe(no_mangle)]
        pub extern "C" fn _start() -> ! {
            core::hint::black_box($body);
            loop {
                core::hint::spin_loop();
            }
        }
    };
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}

/// `prof_cp30; il $3, 5; prof_cp31; stop 0x2000` (the words of `SpuState::run_with_output`'s
/// documented example, which its doc test runs).
const PROGRAM: [u32; 4] = [0x1827_8f1e, 0x4080_0283, 0x1827_cf9f, 0x0000_2000];

/// The SPU program the assembler configuration assembles at run time.
const SOURCE: &str = include_str!("../../../spu/programs/dot.s");

/// The PMU driver on the core's own registers: detect and reset, two counters, start, stop,
/// read.
pub fn pmu() -> u64 {
    let Ok(mut pmu) = Pmu::new(SysRegPmu::new()) else {
        return 0;
    };
    let (Ok(instructions), Ok(cycles)) = (
        pmu.program(black_box(Event::INST_RETIRED)),
        pmu.program(black_box(Event::CPU_CYCLES)),
    ) else {
        return 1;
    };
    if pmu.start().is_err() {
        return 2;
    }
    black_box(());
    if pmu.stop().is_err() {
        return 3;
    }
    pmu.read(instructions).unwrap_or(0) ^ pmu.read(cycles).unwrap_or(0)
}

/// A listener of the firmware's own.
struct Counter(Cell<u64>);

impl Listener<u64> for Counter {
    fn notify(&self, n: &u64) {
        self.0.set(self.0.get() + n);
    }
}

/// Probe points and listeners: a counting point with a listener of ours, and a data-access
/// point with the built-in memory trace and stack distance listeners.
pub fn probes() -> u64 {
    let counter = Counter(Cell::new(0));
    let retired: ProbePoint<u64, 4> = ProbePoint::new();
    let trace = MutListener::new(MemTrace::<256>::new(OverflowPolicy::DropNewest));
    let Ok(distance) = StackDistance::<64, 16>::new(16) else {
        return 0;
    };
    let distance = MutListener::new(distance);
    let accesses: ProbePoint<MemAccess, 4> = ProbePoint::new();
    if retired.add_object(&counter).is_err()
        || accesses.add_object(&trace).is_err()
        || accesses.add_object(&distance).is_err()
    {
        return 1;
    }
    for tick in 0..black_box(64u64) {
        retired.notify(&1);
        accesses.notify(&MemAccess {
            tick,
            pc: tick * 4,
            address: black_box(tick * 48),
            size: 16,
            kind: AccessKind::Read,
        });
    }
    let held = trace.with(|t| t.len() as u64).unwrap_or(0);
    let evictions = distance.with(|d| d.evictions()).unwrap_or(0);
    counter.0.get() ^ held ^ evictions
}

/// One SPU in instruction mode alone ([`SpuState`], the architectural model: no pipeline),
/// its retired instructions counted on a probe point.
pub fn spu_instruction() -> u64 {
    static SPU: IrqMutex<RefCell<SpuState>> = IrqMutex::new(RefCell::new(SpuState::new(0)));
    let counter = Counter(Cell::new(0));
    let retired: ProbePoint<u64, 4> = ProbePoint::new();
    if retired.add_object(&counter).is_err() {
        return 0;
    }
    SPU.lock(|spu| {
        let Ok(mut spu) = spu.try_borrow_mut() else {
            return 1;
        };
        if spu.load_program_words(&black_box(PROGRAM), 0).is_err() {
            return 2;
        }
        let run = spu.run_observed(black_box(1000), &mut |_| {
            retired.notify(&1);
            Ok(())
        });
        run.map_or(3, |outcome| outcome.instructions ^ counter.0.get())
    })
}

/// One SPU in pipeline mode ([`SpuUnit`], which holds both modes), with its probe points.
pub fn spu_pipeline() -> u64 {
    run_unit(&black_box(PROGRAM), 0)
}

/// Runs `words` from `entry` on a [`SpuUnit`] in pipeline mode with a listener on its
/// `RetiredInsts` point.
fn run_unit(words: &[u32], entry: u32) -> u64 {
    static SPU: IrqMutex<RefCell<SpuUnit>> = IrqMutex::new(RefCell::new(SpuUnit::new(0)));
    let counter = Counter(Cell::new(0));
    let probes = SpuProbes::new();
    if probes.retired_insts.add_object(&counter).is_err() {
        return 0;
    }
    SPU.lock(|spu| {
        let Ok(mut unit) = spu.try_borrow_mut() else {
            return 1;
        };
        unit.set_mode(black_box(Mode::Pipeline));
        if unit.load_program_words(words, entry).is_err() {
            return 2;
        }
        let run = unit.run(black_box(100_000), &probes, &mut Discard);
        run.map_or(3, |outcome| outcome.cycles ^ counter.0.get())
    })
}

/// The assembler: an SPU source assembled at run time, then run in pipeline mode.
pub fn assembler() -> u64 {
    let mut image = [0u8; 1024];
    let Ok(program) = assemble::<16>(black_box(SOURCE), &mut image) else {
        return 0;
    };
    let mut words = [0u32; 256];
    for (word, bytes) in words.iter_mut().zip(image[..program.len].chunks_exact(4)) {
        *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    run_unit(&words[..program.len / 4], program.entry)
}

/// A writer that keeps only the length of what it is given.
struct Length(usize);

impl fmt::Write for Length {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// The event catalogue's names: an [`Event`] printed by its Arm ARM name, and an event of
/// the running core's own table looked up by number.
pub fn event_names() -> u64 {
    let mut out = Length(0);
    let _ = write!(out, "{}", black_box(Event::INST_RETIRED));
    let core = for_midr(black_box(0x411f_d070));
    if let Some(event) = core.lookup(black_box(0x40)) {
        out.0 += event.name().len();
    }
    out.0 as u64
}
