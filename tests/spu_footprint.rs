//! The footprint of an SPU: a static arena, a static unit and static parts of one are all-zero
//! bits, so a firmware image carries none of their bytes (they land in `.bss`); a fresh arena's
//! SPUs behave exactly like SPUs built one by one; and `docs/spu-footprint.md` states the sizes
//! this build has.

use std::sync::Mutex;

use pmprobe::spu::arena::{Arena, SPU_COUNT};
use pmprobe::spu::exec::{INITIAL_STACK_POINTER, Quadword, SpuState};
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::pipeline::{Config, FetchKind, Pipeline};
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::unit::{Mode, SpuUnit};

static ARENA: Mutex<Arena> = Mutex::new(Arena::new());
static UNIT: Mutex<SpuUnit> = Mutex::new(SpuUnit::new(0));
static STATE: Mutex<SpuState> = Mutex::new(SpuState::new(0));
static PIPELINE: Mutex<Pipeline> = Mutex::new(Pipeline::new());
/// A control: one non-zero byte puts a static in `.data`.
static NOT_ZERO: Mutex<[u8; 4096]> = Mutex::new([1; 4096]);

/// Whether `value` lies in the program's `.bss`, between the linker's `__bss_start` and `_end`
/// (GNU ld, gold and lld define both on Linux).
#[cfg(target_os = "linux")]
fn in_bss<T>(value: &T) -> bool {
    unsafe extern "C" {
        safe static __bss_start: u8;
        safe static _end: u8;
    }
    let address = value as *const T as usize;
    let (start, end) = (&raw const __bss_start as usize, &raw const _end as usize);
    (start..end).contains(&address) && address + size_of::<T>() <= end
}

#[cfg(target_os = "linux")]
#[test]
fn static_arena_unit_state_and_pipeline_are_zero_bits() {
    assert!(!in_bss(&NOT_ZERO), "the check tells .bss from .data");
    assert!(in_bss(&ARENA), "Arena::new() has a non-zero byte");
    assert!(in_bss(&UNIT), "SpuUnit::new(0) has a non-zero byte");
    assert!(in_bss(&STATE), "SpuState::new(0) has a non-zero byte");
    assert!(in_bss(&PIPELINE), "Pipeline::new() has a non-zero byte");
}

const PROGRAM: &str = "
        and $30,$30,$30     # prof_cp30
        il $3,40
        il $4,1
        ila $5,0x2000
loop:   a $6,$6,$4
        stqd $6,0($5)
        lqd $7,0($5)
        fa $8,$7,$7
        ai $3,$3,-1
        brnz $3,loop
        and $31,$31,$31     # prof_cp31
        stop 0x2000
";

/// Runs `PROGRAM` on `unit` to its stop and returns the statistics text and the prof_cp lines.
fn run(unit: &mut SpuUnit) -> (String, String) {
    let mut image = vec![0u8; 4096];
    let program = assemble::<16>(PROGRAM, &mut image).expect("program assembles");
    unit.load_program(&image[..program.len], program.entry)
        .expect("image fits");
    let mut lines = String::new();
    let outcome = unit
        .run(100_000, &NoProbes, &mut lines)
        .expect("no model error");
    assert!(matches!(
        outcome.end,
        pmprobe::spu::exec::RunEnd::Stopped(_)
    ));
    let mut stats = String::new();
    unit.print_stats(&mut stats).unwrap();
    (stats, lines)
}

#[test]
fn a_fresh_arena_holds_reset_spus_numbered_in_order() {
    let mut arena = ARENA.lock().unwrap();
    for (index, unit) in arena.units().iter().enumerate() {
        assert_eq!(usize::from(unit.id()), index);
        assert_eq!(unit.mode(), Mode::Pipeline);
        assert_eq!(*unit.pipeline().config(), Config::cell());
        assert_eq!(unit.pipeline().fetch_kind(), FetchKind::Ideal);
        // On by default; the lean configuration has none.
        assert_eq!(
            unit.pipeline().fast_forward_enabled(),
            !cfg!(feature = "spu-lean")
        );
        assert_eq!(unit.pipeline().last_stall(), None);
        assert_eq!(unit.pipeline().clock(), 0);
        assert!(unit.arch().registers().iter().all(|r| *r == Quadword::ZERO));
    }
    assert_eq!(arena.get(SPU_COUNT - 1).unwrap().id(), 7);
    // SPU3 of the arena runs exactly like an SPU built as number 3, in both fetch models.
    for fetch in [FetchKind::Ideal, FetchKind::Real] {
        let mut alone = Box::new(SpuUnit::new(3));
        alone.set_fetch(fetch).unwrap();
        let expected = run(&mut alone);
        let in_arena = arena.get_mut(3).unwrap();
        in_arena.set_fetch(fetch).unwrap();
        in_arena.reset_stats();
        assert_eq!(run(in_arena), expected, "{fetch:?}");
        assert!(expected.1.starts_with("SPU3: CP30"), "{}", expected.1);
        assert_eq!(
            in_arena.arch().register(1).preferred_word(),
            INITIAL_STACK_POINTER,
            "a loaded program has the ABI's stack pointer"
        );
    }
}

/// The rows of the table in `docs/spu-footprint.md` (`| part | bytes | lean bytes | ...`):
/// each part with the bytes of this build's configuration.
fn documented_bytes() -> Vec<(String, usize)> {
    let column = if cfg!(feature = "spu-lean") { 3 } else { 2 };
    include_str!("../docs/spu-footprint.md")
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let bytes = cells.get(column)?.parse().ok()?;
            Some((cells.get(1)?.to_string(), bytes))
        })
        .collect()
}

#[test]
fn footprint_table_matches_the_build() {
    let footprint = SpuUnit::footprint();
    let documented = documented_bytes();
    let rows = footprint.rows();
    assert_eq!(
        documented.len(),
        rows.len(),
        "one table row per part: {documented:?}"
    );
    for ((name, bytes), (doc_name, doc_bytes)) in rows.iter().zip(&documented) {
        assert_eq!((*name, *bytes), (doc_name.as_str(), *doc_bytes));
    }
    let parts: usize = rows[..rows.len() - 1].iter().map(|(_, bytes)| bytes).sum();
    assert_eq!(parts, footprint.total, "the parts add up to the total");
    assert_eq!(footprint.total, size_of::<SpuUnit>());
    assert_eq!(size_of::<Arena>(), SPU_COUNT * footprint.total);
    if cfg!(feature = "spu-lean") {
        // The lean configuration's promise: at most the local store + 64 KiB per SPU.
        assert!(footprint.total <= footprint.local_store + 64 * 1024);
    }
}
