//! Instruction-mode speed on the host: instructions per second on the example loop and
//! dot-product programs. Run with
//! `cargo bench --target x86_64-unknown-linux-gnu --bench spu_instruction_mode`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use pmprobe::spu::exec::{RunEnd, SpuState, StopReason};
use pmprobe::spu::isa::asm::assemble;

/// Each program is re-run until at least this much time has passed.
const MEASURE_FOR: Duration = Duration::from_secs(2);

fn measure(name: &str, source: &str) {
    let mut image = vec![0u8; 64 * 1024];
    let program = assemble::<64>(source, &mut image).expect("example program assembles");
    let mut spu = Box::new(SpuState::new(0));
    spu.load_program(&image[..program.len], program.entry)
        .expect("image fits");

    let mut instructions = 0u64;
    let mut runs = 0u64;
    let start = Instant::now();
    while start.elapsed() < MEASURE_FOR {
        for _ in 0..1000 {
            // The loop and dot-product programs do not modify the local store, so a register
            // reset is enough to rerun them.
            spu.reset(program.entry);
            let outcome = spu.run(black_box(1_000_000));
            assert!(
                matches!(outcome.end, RunEnd::Stopped(StopReason::Stop { .. })),
                "{name} must stop: {:?}",
                outcome.end
            );
            instructions += outcome.instructions;
            runs += 1;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{name}: {runs} runs, {instructions} instructions in {seconds:.3} s = {:.1} M instructions/s",
        instructions as f64 / seconds / 1e6
    );
}

fn main() {
    measure("loop.s", include_str!("../spu/programs/loop.s"));
    measure("dot.s", include_str!("../spu/programs/dot.s"));
}
