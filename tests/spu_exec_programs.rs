//! The example programs in spu/programs, assembled with the spu-isa assembler and run in
//! instruction mode; each checks registers or local store at the stop.

use pmprobe::spu::exec::{RunEnd, SpuState, StopReason};
use pmprobe::spu::isa::asm::assemble;

const IMAGE_CAPACITY: usize = 4096;

struct Loaded {
    spu: Box<SpuState>,
    symbols: Vec<(String, u32)>,
}

impl Loaded {
    fn symbol(&self, name: &str) -> u32 {
        self.symbols
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, a)| *a)
            .unwrap_or_else(|| panic!("no symbol {name}"))
    }
}

fn load(source: &str) -> Loaded {
    let mut image = vec![0u8; IMAGE_CAPACITY];
    let program = assemble::<32>(source, &mut image).unwrap_or_else(|e| panic!("{e}"));
    let mut spu = Box::new(SpuState::new(0));
    spu.load_program(&image[..program.len], program.entry)
        .expect("image fits");
    let symbols = program
        .symbols
        .iter()
        .map(|s| (s.name.to_string(), s.address))
        .collect();
    Loaded { spu, symbols }
}

fn expect_stop(end: RunEnd, signal: u16) {
    match end {
        RunEnd::Stopped(StopReason::Stop { signal: s, .. }) => assert_eq!(s, signal),
        other => panic!("expected stop {signal:#x}, got {other:?}"),
    }
}

#[test]
fn count_down_loop_with_brnz() {
    let mut loaded = load(include_str!("../spu/programs/loop.s"));
    let mut out = String::new();
    let outcome = loaded.spu.run_with_output(10_000, &mut out).unwrap();
    expect_stop(outcome.end, 0x2000);
    assert_eq!(loaded.spu.register(3).words(), [0; 4]);
    assert_eq!(loaded.spu.register(4).words(), [100; 4]);
    // cp0, cp30, 2 il, 100 x (ai, ai, brnz), cp31, stop.
    assert_eq!(outcome.instructions, 2 + 2 + 300 + 1 + 1);
    // From cp30 (exclusive) to cp31 (inclusive): 2 + 300 + 1 instructions, cp31 is a NOP.
    assert_eq!(
        out,
        "SPU0: CP0, 0(0), 0\nSPU0: CP30, 0(0), 0\nSPU0: CP31, 303(302), 303\n"
    );
}

#[test]
fn function_call_with_brsl_and_bi_lr() {
    let mut loaded = load(include_str!("../spu/programs/call.s"));
    let outcome = loaded.spu.run(1000);
    expect_stop(outcome.end, 0x2000);
    assert_eq!(loaded.spu.register(3).words()[0], 49);
    assert_eq!(loaded.spu.register(5).words()[0], 50);
    assert_eq!(
        loaded.spu.register(0).words(),
        [8, 0, 0, 0],
        "link = address after brsl"
    );
    // il, brsl, mpy, bi, ai, stop
    assert_eq!(outcome.instructions, 6);
}

#[test]
fn memory_copy_with_lqd_and_stqd() {
    let mut loaded = load(include_str!("../spu/programs/memcpy.s"));
    let (src, dst) = (loaded.symbol("src"), loaded.symbol("dst"));
    assert!(src.is_multiple_of(16));
    assert_eq!(dst, src + 64);
    let outcome = loaded.spu.run(1000);
    expect_stop(outcome.end, 0x2000);
    let ls = loaded.spu.local_store();
    let expected: [[u32; 4]; 4] = [
        [0x0001_0203, 0x0405_0607, 0x0809_0a0b, 0x0c0d_0e0f],
        [0x1011_1213, 0x1415_1617, 0x1819_1a1b, 0x1c1d_1e1f],
        [0xdead_beef, 0xcafe_f00d, 0x0123_4567, 0x89ab_cdef],
        [0xffff_ffff, 0x0000_0000, 0x8000_0000, 0x7fff_ffff],
    ];
    for (index, words) in expected.iter().enumerate() {
        let offset = 16 * index as u32;
        assert_eq!(
            ls.load_quadword(dst + offset).words(),
            *words,
            "dst quadword {index}"
        );
        assert_eq!(
            ls.load_quadword(src + offset).words(),
            *words,
            "src unchanged"
        );
    }
    assert_eq!(loaded.spu.register(12).words(), [0; 4]);
}

#[test]
fn dot_product_with_fma() {
    let mut loaded = load(include_str!("../spu/programs/dot.s"));
    let outcome = loaded.spu.run(1000);
    expect_stop(outcome.end, 0x2000);
    // 1^2 + 2^2 + ... + 16^2 = 1496 = 0x44bb0000 (all partial sums are exact).
    assert_eq!(loaded.spu.register(3).words()[0], 0x44bb_0000);
    assert_eq!(f32::from_bits(loaded.spu.register(3).words()[0]), 1496.0);
}
