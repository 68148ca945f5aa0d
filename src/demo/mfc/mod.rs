//! The MFC part of the demo, after the channel pair: one main memory shared by every SPU of
//! the arena and the host, and the three kernels of [`kernels`] over it, each in its own
//! section: streaming with one buffer and two ([`stream`]), a work queue on an atomic counter
//! ([`queue`]), a signal handshake across cores ([`signals`]). What every section needs (the
//! kernels as the firmware carries them, without their comments ([`source_strip`]), loading a
//! kernel, running an SPU in slices) is in the leaf [`section`].

use pmprobe::rt::timer;
use pmprobe::spu::arena::Arena;
use pmprobe::spu::main_memory::MainMemory;

use crate::demo::shared::checks::Checks;
use crate::demo::shared::output::outln;
use kernels::MEMORY_BYTES;

/// Main memory: the stream's input and output, the queue's counter and results. All-zero
/// bits (a zeroed array, no reservation, no signal), so it sits in `.bss` and costs the image
/// nothing.
static MEMORY: MainMemory<[u8; MEMORY_BYTES]> = MainMemory::new([0; MEMORY_BYTES]);

/// Attaches the arena's SPUs to the main memory and runs the three sections; `no_icount`:
/// QEMU runs every core as a host thread (`--no-icount`). Never inlined: the sections' code
/// stays in one place whatever its caller does (the image budget is counted in pages, and
/// inlining moved this code by a few KB between builds).
#[inline(never)]
pub fn run(arena: &mut Arena, no_icount: bool, checks: &mut Checks) {
    arena.attach_main_memory(&MEMORY);
    let units = arena.units_mut();
    timed(&mut || {
        if let Some(unit) = units.get_mut(stream::SPU) {
            stream::run(unit, &MEMORY, checks);
        }
    });
    timed(&mut || queue::run(units, &MEMORY, !no_icount, checks));
    timed(&mut || signals::run(units, &MEMORY, checks));
}

/// Runs a section and prints what it cost the host in virtual time: generic-timer ticks, which
/// under `-icount` count the instructions of every core (16 a tick), so the figure repeats.
fn timed(section: &mut dyn FnMut()) {
    let start = timer::now();
    section();
    outln!(
        "  section: {} virtual timer ticks",
        timer::now().wrapping_sub(start)
    );
}
pub mod kernels;
pub mod queue;
pub mod section;
pub mod signals;
pub mod source_strip;
pub mod stream;
