//! The demo's SPU kernels: SPU assembly kept in `spu/programs/demo_*.s`, assembled at boot
//! into a caller buffer (no heap), and a Rust replay of each one on the host core that the
//! SPU's result must match.

use core::fmt::Write as _;

use pmprobe::spu::exec::SpuState;
use pmprobe::spu::isa::asm::{AsmError, Program, assemble};

/// Labels an assembled kernel may define (its symbol table capacity).
pub const SYMBOLS: usize = 32;
/// Bytes of the image buffer each kernel is assembled into.
pub const IMAGE_BYTES: usize = 8 * 1024;

/// An assembled kernel.
pub type Assembled = Program<SYMBOLS>;

/// A short description of a verified result, or of the first mismatch.
pub type Verdict = Result<heapless::String<96>, heapless::String<96>>;

/// One SPU program of the demo.
#[derive(Clone, Copy)]
pub struct Kernel {
    /// File name under `spu/programs/`.
    pub file: &'static str,
    /// What it computes, in a few words.
    pub what: &'static str,
    /// The assembly source.
    pub source: &'static str,
    /// Compares the SPU's final state with the Rust replay.
    pub verify: fn(&SpuState, &Assembled) -> Verdict,
}

/// SAXPY with `fma` and a hinted loop.
pub const SAXPY: Kernel = Kernel {
    file: "demo_saxpy.s",
    what: "SAXPY y = 0.5*x + y, 512 floats x 32 passes, fma, hbrr-hinted loop",
    source: include_str!("../../../spu/programs/demo_saxpy.s"),
    verify: verify_saxpy,
};

/// The xorshift-driven table walk (a dependency chain with data-dependent loads and stores).
pub const CHAIN: Kernel = Kernel {
    file: "demo_chain.s",
    what: "xorshift32 dependency chain driving table loads/stores, 2000 steps",
    source: include_str!("../../../spu/programs/demo_chain.s"),
    verify: verify_chain,
};

/// Double-precision accumulation.
pub const DOUBLE: Kernel = Kernel {
    file: "demo_dp.s",
    what: "double precision s += x*x, x += 0.1, 2 lanes x 1000 steps (dfa/dfm)",
    source: include_str!("../../../spu/programs/demo_dp.s"),
    verify: verify_double,
};

impl Kernel {
    /// Assembles the kernel into `image`.
    pub fn assemble(&self, image: &mut [u8]) -> Result<Assembled, AsmError> {
        assemble::<SYMBOLS>(self.source, image)
    }
}

fn text(args: core::fmt::Arguments<'_>) -> heapless::String<96> {
    let mut s = heapless::String::new();
    // Cut at capacity: a verdict is a one-line summary.
    let _ = s.write_fmt(args);
    s
}

fn symbol(program: &Assembled, name: &str) -> Result<u32, heapless::String<96>> {
    program
        .symbol(name)
        .ok_or_else(|| text(format_args!("label {name} missing")))
}

/// Passes and vector length of `demo_saxpy.s`.
const SAXPY_PASSES: u32 = 32;
const SAXPY_FLOATS: u32 = 512;

fn verify_saxpy(spu: &SpuState, program: &Assembled) -> Verdict {
    let y = symbol(program, "y")?;
    let ls = spu.local_store();
    for i in 0..SAXPY_FLOATS {
        let x = i as f32;
        let mut expected = 1.0f32;
        for _ in 0..SAXPY_PASSES {
            // y = a*x + y. Every product and sum is exact here, so the SPU's fused, truncating
            // fma and Rust's separately rounded f32 operations must agree bit for bit.
            expected += 0.5 * x;
        }
        let got = f32::from_bits(ls.load_word(y + 4 * i));
        if got.to_bits() != expected.to_bits() {
            return Err(text(format_args!(
                "y[{i}] = {got}, Rust f32 says {expected}"
            )));
        }
    }
    let last = f32::from_bits(ls.load_word(y + 4 * (SAXPY_FLOATS - 1)));
    Ok(text(format_args!(
        "all {SAXPY_FLOATS} y[i] equal Rust f32, y[511] = {last}"
    )))
}

/// Seed, steps and table size of `demo_chain.s`.
const CHAIN_SEED: u32 = 0x2545f;
const CHAIN_STEPS: u32 = 2000;
const CHAIN_ENTRIES: usize = 64;

fn verify_chain(spu: &SpuState, program: &Assembled) -> Verdict {
    let mut table: [u32; CHAIN_ENTRIES] = core::array::from_fn(|k| k as u32);
    let mut x = CHAIN_SEED;
    let mut sum = 0u32;
    for _ in 0..CHAIN_STEPS {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let index = ((x & 0x3f0) >> 4) as usize % CHAIN_ENTRIES;
        sum = sum.wrapping_add(table[index]);
        table[index] = sum;
    }
    let state = spu.register(3).words();
    let got_sum = spu.register(9).words();
    if state != [x; 4] || got_sum != [sum; 4] {
        return Err(text(format_args!(
            "$3 = {:#x}, $9 = {:#x}; Rust says {x:#x}, {sum:#x}",
            state[0], got_sum[0]
        )));
    }
    let base = symbol(program, "table")?;
    for (k, expected) in table.iter().enumerate() {
        let words = spu
            .local_store()
            .load_quadword(base + 16 * k as u32)
            .words();
        if words != [*expected; 4] {
            return Err(text(format_args!(
                "table[{k}] = {:#x}, Rust says {expected:#x}",
                words[0]
            )));
        }
    }
    Ok(text(format_args!(
        "state {x:#010x}, sum {sum:#010x} and 64 table entries equal Rust u32"
    )))
}

/// Steps of `demo_dp.s`.
const DOUBLE_STEPS: u32 = 1000;

fn verify_double(spu: &SpuState, _program: &Assembled) -> Verdict {
    let mut x = [1.0f64, 2.0];
    let mut s = [0.0f64; 2];
    let h = 0.1f64;
    for _ in 0..DOUBLE_STEPS {
        for lane in 0..2 {
            x[lane] += h;
            let square = x[lane] * x[lane];
            s[lane] += square;
        }
    }
    let got_s = spu.register(12).doublewords();
    let got_x = spu.register(10).doublewords();
    let want_s = [s[0].to_bits(), s[1].to_bits()];
    let want_x = [x[0].to_bits(), x[1].to_bits()];
    if got_s != want_s || got_x != want_x {
        return Err(text(format_args!(
            "s = {:e}/{:e}, Rust f64 says {:e}/{:e}",
            f64::from_bits(got_s[0]),
            f64::from_bits(got_s[1]),
            s[0],
            s[1]
        )));
    }
    Ok(text(format_args!(
        "s = {:.6} / {:.6} bit-equal to Rust f64",
        s[0], s[1]
    )))
}
