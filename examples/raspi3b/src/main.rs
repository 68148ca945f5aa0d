//! The embedding example on a second board, QEMU `raspi3b` (BCM2837: four Cortex-A53 cores that
//! enter at EL2, a PL011 at 0x3F20_1000, the BCM2836 local interrupt controller instead of a
//! GIC). pmprobe is used exactly as in `examples/embedded` (the QEMU `virt` firmware); what
//! differs is in `board.rs` (entry, memory map, console) and `local_intc.rs` / `timer_irq.rs`
//! (the interrupt controller). The firmware stays at EL2, where aarch64-rt's `el2` feature puts
//! its page table and vectors, and where the PMU counts (pmprobe sets PMEVTYPER.NSH there).
//!
//! It prints its results as `check <name> ... ok|FAILED` lines and exits 0 when all pass.
//! `docs/embedding.md` compares the two boards. Boot it with
//! `cargo build --release -p pmprobe-raspi3b --target aarch64-unknown-none` and
//! `qemu/run --machine raspi3b target/aarch64-unknown-none/release/pmprobe-raspi3b`.
#![cfg_attr(target_os = "none", no_std, no_main)]

#[cfg(target_os = "none")]
mod board;
#[cfg(target_os = "none")]
mod local_intc;
#[cfg(target_os = "none")]
mod timer_irq;

#[cfg(target_os = "none")]
mod firmware {
    use aarch64_rt::{entry, exception_handlers};
    use arm_pl011_uart::{DataBits, LineConfig, Parity, StopBits, Uart};
    use core::cell::{Cell, RefCell};
    use core::fmt::Write;

    use pmprobe::pmu::SysRegPmu;
    use pmprobe::pmu::{Event, Pmu};
    use pmprobe::probe::Listener;
    use pmprobe::spu::isa::asm::assemble;
    use pmprobe::spu::probes::SpuProbes;
    use pmprobe::spu::unit::{Mode, SpuUnit};
    use pmprobe::sync::IrqMutex;

    use crate::board::{UART_CLOCK_HZ, uart};
    use crate::local_intc::CNTPNS;
    use crate::timer_irq::{self, Exceptions, TimerReport};

    exception_handlers!(Exceptions);

    // 64 pages = 256 KiB of boot stack.
    entry!(main, 64);

    #[panic_handler]
    fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
        if let Some(mut console) = uart() {
            let _ = writeln!(console, "\n*** PANIC: {info}");
        }
        semihosting::process::exit(101)
    }

    // ---- What pmprobe does: the same as on `virt`. ----

    /// The one SPU, in static storage behind pmprobe's interrupt-masking lock.
    static SPU: IrqMutex<RefCell<SpuUnit>> = IrqMutex::new(RefCell::new(SpuUnit::new(0)));

    /// A listener of ours on the SPU's `RetiredInsts` probe point.
    struct RetiredCounter(Cell<u64>);

    impl Listener<u64> for RetiredCounter {
        fn notify(&self, retired: &u64) {
            self.0.set(self.0.get() + retired);
        }
    }

    const PROGRAM: &str = include_str!("../../../spu/programs/dot.s");
    /// What `dot.s` leaves in $3: 1^2 + ... + 16^2 = 1496.0.
    const EXPECTED: u32 = 0x44bb_0000;
    /// CurrentEL's value at EL2 (the level is in bits 3:2).
    const CURRENT_EL_2: u64 = 2 << 2;

    /// What one run measured.
    struct Measured {
        result: u32,
        spu_cycles: u64,
        spu_instructions: u64,
        listener_instructions: u64,
        host_instructions: u64,
        host_cycles: u64,
    }

    fn main(_x0: u64, _x1: u64, _x2: u64, _x3: u64) -> ! {
        let Some(mut console) = uart() else {
            semihosting::process::exit(2)
        };
        let line = LineConfig {
            data_bits: DataBits::Bits8,
            parity: Parity::None,
            stop_bits: StopBits::One,
        };
        let _ = console.enable(line, 115_200, UART_CLOCK_HZ);
        let _ = writeln!(
            console,
            "pmprobe embedded on raspi3b (BCM2837, aarch64-rt at EL2)"
        );
        let (current_el, sctlr, mpidr): (u64, u64, u64);
        // SAFETY: reading these registers has no side effect.
        unsafe {
            core::arch::asm!(
                "mrs {0}, CurrentEL",
                "mrs {1}, sctlr_el2",
                "mrs {2}, mpidr_el1",
                out(reg) current_el,
                out(reg) sctlr,
                out(reg) mpidr,
                options(nomem, nostack),
            );
        }
        let _ = writeln!(
            console,
            "  core {} at EL{}, MMU {}, caches {} (SCTLR_EL2 {sctlr:#x})",
            mpidr & 0xff,
            (current_el >> 2) & 3,
            if sctlr & 1 != 0 { "on" } else { "off" },
            if sctlr & 0x1004 == 0x1004 {
                "on"
            } else {
                "off"
            },
        );
        let timer = timer_irq::run();
        let status = match run(&mut console) {
            Ok(m) => report(&mut console, &m, &timer, current_el == CURRENT_EL_2),
            Err(e) => {
                let _ = writeln!(console, "raspi3b: {e}");
                1
            }
        };
        semihosting::process::exit(status)
    }

    fn run(console: &mut Uart<'_>) -> Result<Measured, &'static str> {
        let mut pmu = Pmu::new(SysRegPmu::new()).map_err(|_| "no usable PMU")?;
        let host_instructions = pmu
            .program(Event::INST_RETIRED)
            .map_err(|_| "cannot program INST_RETIRED")?;
        let host_cycles = pmu
            .program(Event::CPU_CYCLES)
            .map_err(|_| "cannot program CPU_CYCLES")?;

        let mut image = [0u8; 1024];
        let program = assemble::<16>(PROGRAM, &mut image).map_err(|_| "dot.s does not assemble")?;
        let image = image.get(..program.len).ok_or("dot.s image")?;

        let counter = RetiredCounter(Cell::new(0));
        let probes = SpuProbes::new();
        probes
            .retired_insts
            .add_object(&counter)
            .map_err(|_| "cannot attach the listener")?;

        SPU.lock(|spu| {
            let mut unit = spu.try_borrow_mut().map_err(|_| "the SPU is in use")?;
            unit.set_mode(Mode::Pipeline);
            unit.load_program(image, program.entry)
                .map_err(|_| "dot.s does not fit the local store")?;
            pmu.start().map_err(|_| "PMU start")?;
            let outcome = unit.run(100_000, &probes, console);
            pmu.stop().map_err(|_| "PMU stop")?;
            let outcome = outcome.map_err(|_| "the SPU model failed")?;
            Ok(Measured {
                result: unit.arch().register(3).preferred_word(),
                spu_cycles: outcome.cycles,
                spu_instructions: outcome.instructions,
                listener_instructions: counter.0.get(),
                host_instructions: pmu.read(host_instructions).map_err(|_| "PMU read")?,
                host_cycles: pmu.read(host_cycles).map_err(|_| "PMU read")?,
            })
        })
    }

    fn report(console: &mut Uart<'_>, m: &Measured, timer: &TimerReport, at_el2: bool) -> i32 {
        let _ = writeln!(
            console,
            "  SPU0     dot.s in pipeline mode: $3 = {:#010x} ({}), {} instructions in {} cycles",
            m.result,
            f32::from_bits(m.result),
            m.spu_instructions,
            m.spu_cycles
        );
        let _ = writeln!(
            console,
            "  probe    RetiredInsts listener counted {} instructions",
            m.listener_instructions
        );
        let _ = writeln!(
            console,
            "  host PMU {} instructions, {} cycles at EL2 ({} host instructions per SPU cycle)",
            m.host_instructions,
            m.host_cycles,
            m.host_instructions / m.spu_cycles.max(1)
        );
        let _ = writeln!(
            console,
            "  timer    CNTPNS pending in the local interrupt controller: {}; IRQs taken at EL2: {}, sources {:#x}",
            if timer.pending_through_controller {
                "yes"
            } else {
                "no"
            },
            timer.irqs_taken,
            timer.sources_seen
        );
        let checks = [
            ("el2", at_el2),
            ("result", m.result == EXPECTED),
            (
                "listener",
                m.listener_instructions == m.spu_instructions && m.spu_instructions > 0,
            ),
            (
                "host_pmu",
                m.host_instructions > m.spu_cycles && m.host_cycles > 0,
            ),
            ("timer_routed", timer.pending_through_controller),
            (
                "timer_irq",
                timer.irqs_taken == 1 && timer.sources_seen == CNTPNS,
            ),
        ];
        let mut failed = 0;
        for (name, ok) in checks {
            let _ = writeln!(
                console,
                "check {name} ... {}",
                if ok { "ok" } else { "FAILED" }
            );
            failed += i32::from(!ok);
        }
        let _ = writeln!(console, "raspi3b: {failed} checks failed");
        i32::from(failed != 0)
    }
}

/// Built for a hosted target only so that host builds of the workspace compile; the firmware
/// needs `--target aarch64-unknown-none`.
#[cfg(not(target_os = "none"))]
fn main() {
    eprintln!(
        "pmprobe-raspi3b: a bare-metal firmware; build it with --target aarch64-unknown-none"
    );
    std::process::exit(2);
}
