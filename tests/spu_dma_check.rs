//! The DMA race checker on the race kernels of `spu/programs/races/`, each rule with racy and
//! race-free variants, in both modes. The expected races come from the rules of
//! `docs/dma-races.md` applied to each kernel by hand: the PC is the racing instruction's
//! label, the earlier command's PC is its `wrch $MFC_Cmd` (the `dma` macro's 13th
//! instruction, at +0x30; `dmar`'s 6th, at +0x14), the ranges are the kernel's own.

mod spu_dma_check_support;

use pmprobe::spu::dma_check::{DmaRace, LaterAccess, RaceKind, Span, TransferInfo};
use pmprobe::spu::mfc::Command;
use pmprobe::spu::unit::Mode;
use spu_dma_check_support::*;

fn span(start: u64, end: u64) -> Span {
    Span { start, end }
}

fn command(opcode: u32) -> Command {
    Command::decode(opcode).unwrap()
}

/// A transfer of SPU `spu` as the expectations write it (cycles left 0: see `timeless`).
fn transfer(spu: u8, opcode: u32, tag: u8, ls: Span, ea: Span, pc: u32) -> TransferInfo {
    TransferInfo {
        spu,
        command: command(opcode),
        tag: Some(tag),
        ls,
        ea,
        element: None,
        pc,
        cycle: 0,
    }
}

fn race(kind: RaceKind, spu: u8, pc: u32, later: LaterAccess, earlier: TransferInfo) -> DmaRace {
    DmaRace {
        kind,
        spu,
        cycle: 0,
        pc,
        later,
        earlier,
    }
}

/// Runs `name` variant `variant` on `threads` SPUs in both modes; checks that both find the
/// races `expected` (cycles aside) and returns the instruction-mode run.
fn check(name: &str, variant: u64, threads: u8, expected: &[DmaRace]) -> Checked {
    let mut first = None;
    for mode in MODES {
        let checked = run(name, variant, mode, threads);
        assert_eq!(
            timeless_all(&checked.races),
            expected,
            "{name} variant {variant} in {mode:?} mode"
        );
        assert_eq!(checked.stats.races, expected.len() as u64);
        assert!(!checked.stats.incomplete(), "{:?}", checked.stats);
        first.get_or_insert(checked);
    }
    first.unwrap()
}

const LOAD_GET: &str = "load_get.s";

#[test]
fn a_load_or_store_of_bytes_a_pending_get_writes_races_with_it() {
    let get = transfer(
        0,
        0x40,
        3,
        span(0x4000, 0x4100),
        span(0x10000, 0x10100),
        label(LOAD_GET, "get_block") + 0x30,
    );
    check(LOAD_GET, 0, 1, &[]);
    let load = check(
        LOAD_GET,
        1,
        1,
        &[race(
            RaceKind::LoadFromGet,
            0,
            label(LOAD_GET, "racy_load"),
            LaterAccess::Load(span(0x4010, 0x4020)),
            get,
        )],
    );
    // Instruction mode: one cycle per instruction. The load is the 17th instruction run
    // (rotqbyi, 13 of `dma`, ceqi, brnz, lqa), the get's wrch the 14th.
    assert_eq!((load.races[0].cycle, load.races[0].earlier.cycle), (17, 14));
    let store = check(
        LOAD_GET,
        2,
        1,
        &[race(
            RaceKind::StoreToGet,
            0,
            label(LOAD_GET, "racy_store"),
            LaterAccess::Store(span(0x40f0, 0x4100)),
            get,
        )],
    );
    assert_eq!(store.races[0].cycle, 19);
}

#[test]
fn a_store_to_bytes_a_pending_put_reads_races_with_it_and_a_load_does_not() {
    let name = "store_put.s";
    let put = transfer(
        0,
        0x20,
        4,
        span(0x5000, 0x5100),
        span(0x20000, 0x20100),
        label(name, "put_block") + 0x30,
    );
    check(name, 0, 1, &[]);
    check(
        name,
        1,
        1,
        &[race(
            RaceKind::StoreToPut,
            0,
            label(name, "racy_store"),
            LaterAccess::Store(span(0x5080, 0x5090)),
            put,
        )],
    );
    check(name, 2, 1, &[]);
}

#[test]
fn running_code_a_pending_get_loads_races_and_its_outcome_depends_on_timing() {
    let name = "overlay.s";
    let get = transfer(
        0,
        0x40,
        5,
        span(0x8000, 0x8010),
        span(0x30000, 0x30010),
        label(name, "load_overlay") + 0x30,
    );
    let waited = check(name, 0, 1, &[]);
    assert_eq!(stop_code(&waited.ends[0]), Some(0x1234));
    check(
        name,
        1,
        1,
        &[race(
            RaceKind::FetchFromGet,
            0,
            0x8000,
            LaterAccess::Fetch(span(0x8000, 0x8004)),
            get,
        )],
    );
    // The same race, two outcomes: instruction mode completes the get at once, the pipeline
    // has it in flight for 300 cycles (docs/spu-mfc.md) when the jump fetches zeros: `stop 0`.
    let ends: Vec<_> = MODES
        .iter()
        .map(|&mode| stop_code(&run_one(name, 1, mode).ends[0]))
        .collect();
    assert_eq!(ends, [Some(0x1234), Some(0)]);
}

#[test]
fn double_buffering_races_only_without_the_fence() {
    let name = "double_buffer.s";
    let ok = check(name, 0, 1, &[]);
    // Four blocks of 256 words, each word the input (0) plus 1.
    assert_eq!(ok.units[0].arch().register(40).preferred_word(), 1024);
    let prefetch = label(name, "prefetch") + 0x14;
    let put = label(name, "put_block") + 0x14;
    let buffer = |b: u64| span(0x10000 + b * 0x400, 0x10400 + b * 0x400);
    let block = |base: u64, k: u64| span(base + k * 0x400, base + (k + 1) * 0x400);
    let expected: Vec<DmaRace> = [(2u64, 0u64), (3, 1)]
        .iter()
        .map(|&(k, earlier)| {
            let b = k & 1;
            race(
                RaceKind::LocalStore,
                0,
                prefetch,
                LaterAccess::Transfer(transfer(
                    0,
                    0x40,
                    b as u8,
                    buffer(b),
                    block(0x10000, k),
                    prefetch,
                )),
                transfer(0, 0x20, b as u8, buffer(b), block(0x20000, earlier), put),
            )
        })
        .collect();
    check(name, 1, 1, &expected);
}

#[test]
fn fences_barriers_syncs_and_tag_waits_order_commands_within_their_reach() {
    let name = "ordering.s";
    let at = |l: &str| label(name, l) + 0x30;
    let ls = span(0x6000, 0x6100);
    let first_ea = span(0x40000, 0x40100);
    let second_ea = span(0x40100, 0x40200);
    let get_race = |variant: &str, opcode: u32, tag: u8, second: &str| {
        race(
            RaceKind::LocalStore,
            0,
            at(second),
            LaterAccess::Transfer(transfer(0, opcode, tag, ls, second_ea, at(second))),
            transfer(0, 0x40, 1, ls, first_ea, at(variant)),
        )
    };
    for variant in [1, 2, 3, 4, 6, 9] {
        check(name, variant, 1, &[]);
    }
    check(name, 0, 1, &[get_race("v0", 0x40, 1, "second_get_1")]);
    check(name, 5, 1, &[get_race("v5", 0x42, 2, "second_getf_2")]);
    check(name, 7, 1, &[get_race("v7", 0x40, 1, "second_get_1")]);
    let other_ls = span(0x7000, 0x7100);
    check(
        name,
        8,
        1,
        &[race(
            RaceKind::MainMemory,
            0,
            at("second_put"),
            LaterAccess::Transfer(transfer(0, 0x20, 1, other_ls, first_ea, at("second_put"))),
            transfer(0, 0x20, 1, ls, first_ea, at("v8")),
        )],
    );
    check(
        name,
        10,
        1,
        &[race(
            RaceKind::MainMemory,
            0,
            at("second_put_other_tag"),
            LaterAccess::Transfer(transfer(
                0,
                0x20,
                2,
                other_ls,
                first_ea,
                at("second_put_other_tag"),
            )),
            transfer(0, 0x40, 1, ls, first_ea, at("v10")),
        )],
    );
}

#[test]
fn lists_race_through_their_elements_and_their_element_array() {
    let name = "list.s";
    let issue = label(name, "issue") + 0x28;
    let list = |ls: Span| transfer(0, 0x44, 2, ls, Span::EMPTY, issue);
    check(name, 0, 1, &[]);
    check(name, 3, 1, &[]);
    check(name, 5, 1, &[]);
    let mut element_2 = list(span(0x6100, 0x6140));
    element_2.ea = span(0x13000, 0x13040);
    element_2.element = Some(2);
    check(
        name,
        1,
        1,
        &[race(
            RaceKind::LoadFromGet,
            0,
            label(name, "racy_load"),
            LaterAccess::Load(span(0x6100, 0x6110)),
            element_2,
        )],
    );
    let plain = u64::from(label(name, "plain"));
    check(
        name,
        2,
        1,
        &[race(
            RaceKind::StoreToList,
            0,
            label(name, "racy_store"),
            LaterAccess::Store(span(plain, plain + 16)),
            list(span(plain, plain + 24)),
        )],
    );
    let stalls = u64::from(label(name, "stalls"));
    let rewrite = label(name, "racy_rewrite");
    let elements = list(span(stalls, stalls + 24));
    check(
        name,
        4,
        1,
        &[
            race(
                RaceKind::StoreToList,
                0,
                rewrite,
                LaterAccess::Store(span(stalls, stalls + 16)),
                elements,
            ),
            race(
                RaceKind::StoreToList,
                0,
                rewrite + 4,
                LaterAccess::Store(span(stalls + 16, stalls + 32)),
                elements,
            ),
        ],
    );
}

#[test]
fn across_spus_a_put_races_with_a_get_nothing_orders_after_it() {
    let name = "across_spus.s";
    for variant in [0, 3, 4] {
        check(name, variant, 2, &[]);
    }
    let ls = span(0x3000, 0x3100);
    let ea = span(0x40000, 0x40100);
    let get = label(name, "get_data") + 0x30;
    let expected = [race(
        RaceKind::AcrossSpus,
        1,
        get,
        LaterAccess::Transfer(transfer(1, 0x40, 1, ls, ea, get)),
        transfer(0, 0x20, 1, ls, ea, label(name, "put_data") + 0x30),
    )];
    // Nothing at all, and a signal that may overtake the put.
    check(name, 1, 2, &expected);
    check(name, 2, 2, &expected);
}

#[test]
fn the_report_line_names_the_rule_the_pcs_and_the_ranges() {
    let racy = run_one(LOAD_GET, 1, Mode::Instruction);
    let line = racy.races[0].to_string();
    let load = label(LOAD_GET, "racy_load");
    let get = label(LOAD_GET, "get_block") + 0x30;
    assert_eq!(
        line,
        format!(
            "DMA race (load from LS a pending get writes): SPU0 cycle 17 pc {load:#07x}: load of \
             LS 0x04010..0x04020 races with get tag 3 LS 0x04000..0x04100 EA 0x010000..0x010100, \
             issued by SPU0 at cycle 14 pc {get:#07x}, not yet seen complete by a tag-status read"
        )
    );
}

/// Firmware finds the race point by name in its probe manager, as it finds the SPU's own points,
/// and attaches a plain function to it; a wrong name is refused by name.
#[test]
fn firmware_attaches_to_the_dma_race_point_by_name() {
    use core::sync::atomic::{AtomicU64, Ordering};
    use pmprobe::probe::{Manager, ManagerError};
    use pmprobe::spu::dma_check::DmaRaceChecker;
    use pmprobe::spu::main_memory::MainMemory;
    use pmprobe::spu::unit::{Discard, SpuUnit};

    static SEEN: AtomicU64 = AtomicU64::new(0);
    fn count(race: &DmaRace) {
        assert_eq!(race.kind, RaceKind::LoadFromGet);
        SEEN.fetch_add(1, Ordering::Relaxed);
    }
    let checker: &'static DmaRaceChecker<'static> = Box::leak(Box::new(DmaRaceChecker::new()));
    let mut manager: Manager<'static, 4> = Manager::new();
    checker.register(&mut manager).unwrap();
    assert!(matches!(
        manager.connect_fn::<DmaRace>("DmaRaces", count),
        Err(ManagerError::UnknownPoint("DmaRaces"))
    ));
    manager.connect_fn::<DmaRace>("DmaRace", count).unwrap();
    let (image, program) = assembled(LOAD_GET);
    let memory: &'static MainMemory<Vec<u8>> =
        Box::leak(Box::new(MainMemory::new(vec![0u8; 1 << 20])));
    for (spu, mode) in MODES.into_iter().enumerate() {
        let mut unit = Box::new(SpuUnit::new(spu as u8));
        unit.load_program(&image, program.entry).unwrap();
        unit.attach_main_memory(memory);
        unit.arch_mut()
            .set_register(3, pmprobe::spu::runtime::start::preferred_doubleword(1));
        unit.set_mode(mode);
        let observer = checker.observer(spu as u8).unwrap();
        unit.run(100_000, &observer, &mut Discard).unwrap();
    }
    // load_get.s variant 1 races once, in each mode.
    assert_eq!(SEEN.load(Ordering::Relaxed), 2);
}
