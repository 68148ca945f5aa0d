//! perf's `-e` syntax and its modifiers, mapped to PMEVTYPER's filter bits.
//!
//! Expected values come from three sources, written out here:
//! - perf's `get_event_modifier` (`tools/perf/util/parse-events.c`, Linux 6.1): the first of
//!   `u`, `k`, `h` sets `exclude_user = exclude_kernel = exclude_hv = 1`, then each letter
//!   clears its own; `u` also sets `exclude_guest` unless `G`/`H` was given; the first of `G`,
//!   `H` sets `exclude_guest = exclude_host = 1`, then each clears its own; a group's
//!   modifiers start from the member's bits. An event without modifiers has perf's host
//!   default, `exclude_guest = 1` (`event_attr_init`).
//! - Linux's `armv8pmu_set_event_filter` (`drivers/perf/arm_pmuv3.c`): `exclude_kernel` ->
//!   `ARMV8_PMU_EXCLUDE_EL1` (bit 31), `exclude_user` -> `EXCLUDE_EL0` (bit 30),
//!   `!exclude_hv && !exclude_host` -> `INCLUDE_EL2` (bit 27); in hyp mode (EL2),
//!   `!exclude_kernel && !exclude_host` -> `INCLUDE_EL2`, `exclude_guest` -> `EXCLUDE_EL1`,
//!   `exclude_host` -> `EXCLUDE_EL0`; `exclude_idle` -> `-EPERM`.
//! - The Arm ARM's PMEVTYPER<n>_EL0: P bit 31, U 30, NSK 29, NSU 28, NSH 27, M 26, MT 25,
//!   SH 24; ID_AA64PFR0_EL1.EL2 bits \[11:8\], EL3 \[15:12\].
//!
//! perf's generic names are Linux's `armv8_pmuv3_perf_map`.
use pmprobe::pmu::catalogue::{EventList, EventListErrorKind, ParseEventError, for_midr};
use pmprobe::pmu::{
    EmulatedPmu, Event, EventFilter, ExceptionLevel, Exclude, FilterContext, FilterError,
    GroupKind, ModifierError, Multiplexer, Pmu,
};

const A57: u64 = 0x411f_d070;

/// (user, kernel, hv, host, guest) excluded.
fn bits(e: Exclude) -> (bool, bool, bool, bool, bool) {
    (e.user, e.kernel, e.hv, e.host, e.guest)
}

fn own(modifiers: &str) -> Exclude {
    Exclude::PERF_DEFAULT
        .with_modifiers(modifiers, false)
        .unwrap()
}

#[test]
fn modifiers_set_perfs_exclude_bits() {
    let t = true;
    let f = false;
    assert_eq!(bits(Exclude::PERF_DEFAULT), (f, f, f, f, t));
    assert_eq!(bits(own("u")), (f, t, t, f, t));
    assert_eq!(bits(own("k")), (t, f, t, f, f));
    assert_eq!(bits(own("h")), (t, t, f, f, f));
    assert_eq!(bits(own("uk")), (f, f, t, f, t));
    assert_eq!(bits(own("G")), (f, f, f, t, f));
    assert_eq!(bits(own("H")), (f, f, f, f, t));
    // `u` after `H`: exclude_GH is set, so `u` leaves exclude_guest as `H` made it.
    assert_eq!(bits(own("Hu")), (f, t, t, f, t));
    assert!(own("I").idle);
    for letter in ['p', 'P', 'S', 'D', 'e', 'W', 'b', 'x'] {
        assert_eq!(
            Exclude::PERF_DEFAULT.with_modifiers(&letter.to_string(), false),
            Err(ModifierError::Unsupported(letter))
        );
    }
}

#[test]
fn the_list_reads_groups_raw_numbers_generic_names_in_any_case() {
    let a57 = for_midr(A57);
    let list = EventList::<16>::parse(
        "CYCLES,{instructions,r1b}:u,inst_retired:k,branch-misses,0x11,L1D_CACHE_RD",
        a57,
    )
    .unwrap();
    let got: Vec<(&str, Event, u8)> = list.iter().map(|e| (e.name, e.event, e.group)).collect();
    assert_eq!(
        got,
        [
            ("CYCLES", Event::CPU_CYCLES, 0),
            ("instructions", Event::INST_RETIRED, 1),
            ("r1b", Event::INST_SPEC, 1),
            ("inst_retired:k", Event::INST_RETIRED, 2),
            ("branch-misses", Event::BR_MIS_PRED, 3),
            ("0x11", Event::CPU_CYCLES, 4),
            ("L1D_CACHE_RD", Event::raw(0x40), 5),
        ]
    );
    assert_eq!(list.groups(), 6);
    let e: Vec<Exclude> = list.iter().map(|e| e.exclude).collect();
    assert_eq!(e[0], Exclude::PERF_DEFAULT);
    // The group's `u` on members without modifiers of their own.
    assert_eq!(bits(e[1]), (false, true, true, false, true));
    assert_eq!(bits(e[2]), (false, true, true, false, true));
    assert_eq!(bits(e[3]), (true, false, true, false, false));
}

#[test]
fn a_groups_modifiers_complete_its_members_own() {
    let list = EventList::<4>::parse("{cycles:k,instructions}:u", for_midr(A57)).unwrap();
    let e: Vec<Exclude> = list.iter().map(|e| e.exclude).collect();
    // cycles:k: (1,0,1) guest 0; then the group's u from there: exclusion already set, so it
    // only clears exclude_user, and sets exclude_guest.
    assert_eq!(bits(e[0]), (false, false, true, false, true));
    assert_eq!(list.as_slice()[0].name, "cycles:k");
    assert_eq!(bits(e[1]), (false, true, true, false, true));
}

#[test]
fn bad_lists_name_the_token() {
    let a57 = for_midr(A57);
    let error = |text: &'static str| EventList::<4>::parse(text, a57).unwrap_err();
    let e = error("cycles,instructons");
    assert_eq!(e.token, "instructons");
    assert_eq!(e.at, 7);
    assert!(matches!(
        e.kind,
        EventListErrorKind::Event(ParseEventError::UnknownName { .. })
    ));
    let e = error("cycles:q");
    assert_eq!(
        (e.token, e.kind),
        (
            "cycles:q",
            EventListErrorKind::Modifier(ModifierError::Unsupported('q'))
        )
    );
    assert_eq!(
        error("{cycles,instructions").kind,
        EventListErrorKind::Braces
    );
    assert_eq!(error("cycles}").kind, EventListErrorKind::Braces);
    assert_eq!(error("{cycles,{r1}}").kind, EventListErrorKind::Braces);
    assert_eq!(
        error("cycles,,instructions").kind,
        EventListErrorKind::Empty
    );
    assert_eq!(error("").kind, EventListErrorKind::Empty);
    assert_eq!(
        error("r1FFFF").kind,
        EventListErrorKind::Event(ParseEventError::BadRawNumber)
    );
    assert_eq!(
        error("r1,r2,r3,r4,r5").kind,
        EventListErrorKind::TooManyEvents { capacity: 4 }
    );
    assert!(error("cycles:q").to_string().contains("`q`"));
}

#[test]
fn the_filter_bits_are_the_arm_arms() {
    assert_eq!(EventFilter::P.bits(), 1 << 31);
    assert_eq!(EventFilter::U.bits(), 1 << 30);
    assert_eq!(EventFilter::NSK.bits(), 1 << 29);
    assert_eq!(EventFilter::NSU.bits(), 1 << 28);
    assert_eq!(EventFilter::NSH.bits(), 1 << 27);
    assert_eq!(EventFilter::M.bits(), 1 << 26);
    assert_eq!(EventFilter::MT.bits(), 1 << 25);
    assert_eq!(EventFilter::SH.bits(), 1 << 24);
    // QEMU's cortex-a57 on `virt`: EL0 and EL1 AArch64 only, no EL2 or EL3.
    let qemu = FilterContext::from_id_aa64pfr0(ExceptionLevel::El1, 0x11);
    assert!(!qemu.el2 && !qemu.el3);
    let full = FilterContext::from_id_aa64pfr0(ExceptionLevel::El1, 0x2222);
    assert!(full.el2 && full.el3);
}

#[test]
fn modifiers_become_linuxs_filters() {
    let el1 = |el2| FilterContext {
        el: ExceptionLevel::El1,
        el2,
        el3: false,
    };
    let filter = |m: &str, core| {
        let exclude = if m.is_empty() {
            Exclude::PERF_DEFAULT
        } else {
            own(m)
        };
        exclude.filter(core)
    };
    let (p, u, nsh) = (EventFilter::P, EventFilter::U, EventFilter::NSH);
    // EL1 with EL2 present (Linux without VHE): EL2 is counted unless exclude_hv.
    assert_eq!(filter("", el1(true)), Ok(nsh));
    assert_eq!(filter("u", el1(true)), Ok(p));
    assert_eq!(filter("k", el1(true)), Ok(u));
    assert_eq!(filter("h", el1(true)), Ok(p.union(u).union(nsh)));
    assert_eq!(filter("uk", el1(true)), Ok(EventFilter::NONE));
    assert_eq!(filter("H", el1(true)), Ok(nsh));
    // Without EL2, NSH is RES0 and stays clear; `h` alone would count nothing.
    assert_eq!(filter("", el1(false)), Ok(EventFilter::NONE));
    assert_eq!(filter("u", el1(false)), Ok(p));
    assert_eq!(
        filter("h", el1(false)),
        Err(FilterError::CountsNothing(p.union(u)))
    );
    // At EL2 (Linux's VHE case): the default excludes the guest's EL1.
    let el2 = FilterContext {
        el: ExceptionLevel::El2,
        el2: true,
        el3: false,
    };
    assert_eq!(filter("", el2), Ok(nsh.union(p)));
    assert_eq!(filter("k", el2), Ok(nsh.union(u)));
    assert_eq!(filter("u", el2), Ok(p));
    // Guests and idle: nothing bare metal can count.
    assert_eq!(filter("G", el1(true)), Err(FilterError::NoGuest));
    assert_eq!(filter("I", el1(true)), Err(FilterError::ExcludeIdle));
    assert!(
        filter("h", el1(false))
            .unwrap_err()
            .to_string()
            .contains("EL2")
    );
}

/// The filter reaches PMEVTYPER through the multiplexer, and the emulated PMU (which models
/// the EL filter) counts by it: `instructions:u` at EL1 counts nothing, `:k` everything.
#[test]
fn filtered_groups_count_only_where_their_filter_allows() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    cpu.set_el(ExceptionLevel::El1);
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 4, 4>::new(&mut pmu);
    let core = FilterContext {
        el: ExceptionLevel::El1,
        el2: false,
        el3: false,
    };
    let user = own("u").filter(core).unwrap();
    let kernel = own("k").filter(core).unwrap();
    mux.add_group_filtered(&[(Event::INST_RETIRED, user)], GroupKind::Flexible)
        .unwrap();
    mux.add_group_filtered(&[(Event::INST_RETIRED, kernel)], GroupKind::Flexible)
        .unwrap();
    mux.start(0).unwrap();
    cpu.count(Event::INST_RETIRED.number(), 1_000);
    let readings = mux.read(10).unwrap();
    let raw: Vec<u64> = readings.iter().map(|r| r.raw).collect();
    assert_eq!(raw, [0, 1_000]);
}
