//! Cost of the functional interpreter alone (no pipeline, no `SpuUnit`), in nanoseconds per
//! instruction. Run with
//! `cargo bench --target x86_64-unknown-linux-gnu --bench spu_exec` (words after `--` select
//! rows, e.g. `-- step loop`).
//!
//! Two rows per workload:
//! - `step`: [`SpuState::run`], i.e. fetch + decode + execute, as instruction mode does.
//! - `execute`: [`SpuState::execute`] on instructions decoded once up front and looked up by PC, as
//!   the pipeline does at stage o and in its ideal-fetch shadow.
//!
//! The workloads are the loops of the `spu_pipeline` bench: a chain of `a`, an even/odd stream
//! of `a`/`rotqby`, and a loop with a load, a store, a call and a return; plus a loop of
//! assorted instructions (compares, selects, halfword and float arithmetic, shuffles).

use std::hint::black_box;
use std::time::{Duration, Instant};

use pmprobe::spu::exec::{RunEnd, SpuState};
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::isa::{Instruction, decode};

#[path = "support/workloads.rs"]
mod workloads;
use workloads::{LOOP, chain, dual_stream};

const MEASURE_FOR: Duration = Duration::from_secs(2);
const SLICE: u64 = 1_000_000;

/// A loop of assorted everyday instructions: compares, selects, halfword arithmetic, shifts,
/// shuffles, single-precision and integer multiplies.
const MIXED: &str = "il $5,30000
ilhu $7,0x3f80
loop: ceq $10,$11,$12
cgt $13,$14,$15
clgti $16,$17,5
selb $18,$19,$20,$10
ah $21,$22,$23
sfh $24,$25,$26
shli $27,$28,3
roti $29,$40,4
shufb $31,$32,$33,$34
fa $35,$7,$7
fm $36,$7,$7
fma $37,$7,$7,$7
mpy $38,$39,$40
andi $41,$42,0xff
ceqhi $43,$44,7
rotqbyi $45,$46,4
ai $5,$5,-1
brnz $5,loop
br loop";

/// Nanoseconds this thread spent on a CPU (Linux `/proc/thread-self/schedstat`): the machine
/// may be shared, and on-CPU time is less disturbed by other jobs than wall-clock time.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Wall-clock and on-CPU seconds since `start` / `cpu_start`.
struct Elapsed {
    wall: f64,
    cpu: f64,
}

fn elapsed(start: Instant, cpu_start: Option<u64>) -> Elapsed {
    let cpu = match (cpu_start, thread_cpu_ns()) {
        (Some(begin), Some(end)) if end > begin => (end - begin) as f64 / 1e9,
        _ => f64::NAN,
    };
    Elapsed {
        wall: start.elapsed().as_secs_f64(),
        cpu,
    }
}

fn selected(labels: &[&str]) -> bool {
    std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .all(|word| labels.iter().any(|label| label.contains(word.as_str())))
}

fn load(source: &str) -> (Box<SpuState>, usize) {
    let mut image = vec![0u8; 64 * 1024];
    let program = assemble::<64>(source, &mut image).expect("benchmark program assembles");
    let mut spu = Box::new(SpuState::new(0));
    spu.load_program(&image[..program.len], program.entry)
        .expect("image fits");
    (spu, program.len)
}

fn report(name: &str, row: &str, instructions: u64, time: Elapsed) {
    let n = instructions as f64;
    println!(
        "{name:<11} {row:<8}: {:>6.2} ns/instruction on-CPU ({:>6.1} M/s), {:>6.2} ns wall ({:>6.1} M/s), {instructions} instructions",
        time.cpu * 1e9 / n,
        n / time.cpu / 1e6,
        time.wall * 1e9 / n,
        n / time.wall / 1e6,
    );
}

fn measure_step(name: &str, source: &str) {
    if !selected(&[name, "step"]) {
        return;
    }
    let (mut spu, _) = load(source);
    let mut instructions = 0u64;
    let cpu_start = thread_cpu_ns();
    let start = Instant::now();
    while start.elapsed() < MEASURE_FOR {
        let outcome = spu.run(black_box(SLICE));
        assert_eq!(outcome.end, RunEnd::CycleLimit, "{name} runs forever");
        instructions += outcome.instructions;
    }
    report(name, "step", instructions, elapsed(start, cpu_start));
}

fn measure_execute(name: &str, source: &str) {
    if !selected(&[name, "execute"]) {
        return;
    }
    let (mut spu, length) = load(source);
    // Decoded once, as a pipeline's fetch stage would; data words decode to whatever they are
    // and are never executed.
    let decoded: Vec<Option<Instruction>> = (0..length.div_ceil(4))
        .map(|index| decode(spu.local_store().load_word(index as u32 * 4)).ok())
        .collect();
    let mut instructions = 0u64;
    let cpu_start = thread_cpu_ns();
    let start = Instant::now();
    while start.elapsed() < MEASURE_FOR {
        for _ in 0..SLICE {
            let pc = spu.pc();
            let insn = decoded[(pc / 4) as usize].expect("the loop executes only code");
            let executed = spu.execute(black_box(&insn));
            black_box(&executed);
        }
        instructions += SLICE;
    }
    report(name, "execute", instructions, elapsed(start, cpu_start));
}

fn main() {
    let workloads = [
        ("dependency", chain()),
        ("dual-issue", dual_stream()),
        ("loop", LOOP.to_string()),
        ("mixed", MIXED.to_string()),
    ];
    for (name, source) in &workloads {
        measure_step(name, source);
        measure_execute(name, source);
    }
}
