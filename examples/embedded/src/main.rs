//! A firmware that embeds pmprobe as a library (`default-features = false`) and brings its own
//! runtime: aarch64-rt boots it (MMU and caches on), arm-pl011-uart is its console, semihosting
//! ends the QEMU session. It uses the three parts of pmprobe on the core it runs on:
//!
//! - the PMU driver on the real system registers, around an SPU run;
//! - a probe point with a listener: the SPU's `RetiredInsts` point, counted by a listener of ours;
//! - one SPU from static storage, running `spu/programs/dot.s` in pipeline mode.
//!
//! It prints its results and exits 0 when the SPU's result and the counts agree, 1 otherwise.
//! `docs/embedding.md` explains each piece. Build and boot it with
//! `cargo run -p pmprobe-embedded --target aarch64-unknown-none` (it uses the repository's
//! `qemu/run`).
#![cfg_attr(target_os = "none", no_std, no_main)]

#[cfg(target_os = "none")]
mod firmware {
    use aarch64_paging::descriptor::El1Attributes;
    use aarch64_paging::mair::{Mair, MairAttribute, NormalMemory};
    use aarch64_rt::{ExceptionHandlers, InitialPagetable, entry, exception_handlers};
    use arm_pl011_uart::{
        DataBits, LineConfig, PL011Registers, Parity, StopBits, Uart, UniqueMmioPointer,
    };
    use core::cell::{Cell, RefCell};
    use core::fmt::Write;
    use core::ptr::NonNull;

    use pmprobe::pmu::SysRegPmu;
    use pmprobe::pmu::{Event, Pmu};
    use pmprobe::probe::Listener;
    use pmprobe::spu::isa::asm::assemble;
    use pmprobe::spu::probes::SpuProbes;
    use pmprobe::spu::unit::{Mode, SpuUnit};
    use pmprobe::sync::IrqMutex;

    // ---- What the embedder provides: memory map, entry, exceptions, console, exit. ----

    /// Device memory (the first GiB of `virt`: GIC, UART, ...), never executable.
    const DEVICE: El1Attributes = El1Attributes::VALID
        .union(El1Attributes::ATTRIBUTE_INDEX_0)
        .union(El1Attributes::ACCESSED)
        .union(El1Attributes::PXN)
        .union(El1Attributes::UXN);
    /// RAM (the second GiB), Normal write-back cacheable.
    const NORMAL: El1Attributes = El1Attributes::VALID
        .union(El1Attributes::ATTRIBUTE_INDEX_1)
        .union(El1Attributes::INNER_SHAREABLE)
        .union(El1Attributes::ACCESSED);
    const MAIR: Mair = Mair::EMPTY
        .with_attribute(0, MairAttribute::DEVICE_NGNRE)
        .with_attribute(
            1,
            MairAttribute::normal(
                NormalMemory::WriteBackNonTransientReadWriteAllocate,
                NormalMemory::WriteBackNonTransientReadWriteAllocate,
            ),
        );

    aarch64_rt::initial_pagetable!(
        {
            let mut idmap = [0; 512];
            idmap[0] = DEVICE.bits();
            idmap[1] = NORMAL.bits() | 0x4000_0000;
            InitialPagetable(idmap)
        },
        MAIR.0
    );

    /// aarch64-rt's default handlers panic, and the panic handler below reports and exits.
    struct Exceptions;
    impl ExceptionHandlers for Exceptions {}
    exception_handlers!(Exceptions);

    // 64 pages = 256 KiB of boot stack.
    entry!(main, 64);

    const UART_BASE: usize = 0x0900_0000;

    fn uart() -> Option<Uart<'static>> {
        let registers = NonNull::new(UART_BASE as *mut PL011Registers)?;
        // SAFETY: QEMU virt's PL011, mapped as Device memory above. This single-core firmware
        // creates one driver in `main` and another only in the panic handler, after which `main`
        // never runs again.
        Some(Uart::new(unsafe { UniqueMmioPointer::new(registers) }))
    }

    #[panic_handler]
    fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
        if let Some(mut console) = uart() {
            let _ = writeln!(console, "\n*** PANIC: {info}");
        }
        semihosting::process::exit(101)
    }

    // ---- What pmprobe does: the SPU, a probe point with a listener, the PMU. ----

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
        let _ = console.enable(line, 115_200, 24_000_000);
        let _ = writeln!(
            console,
            "pmprobe embedded in a firmware of its own (aarch64-rt)"
        );
        let sctlr: u64;
        // SAFETY: reading SCTLR_EL1 has no side effect.
        unsafe { core::arch::asm!("mrs {0}, sctlr_el1", out(reg) sctlr, options(nomem, nostack)) };
        let _ = writeln!(
            console,
            "  MMU {}, caches {} (SCTLR_EL1 {sctlr:#x})",
            if sctlr & 1 != 0 { "on" } else { "off" },
            if sctlr & 0x1004 == 0x1004 {
                "on"
            } else {
                "off"
            },
        );
        let status = match run(&mut console) {
            Ok(m) => report(&mut console, &m),
            Err(e) => {
                let _ = writeln!(console, "embedded: {e}");
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

    fn report(console: &mut Uart<'_>, m: &Measured) -> i32 {
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
            "  host PMU {} instructions, {} cycles ({} host instructions per SPU cycle)",
            m.host_instructions,
            m.host_cycles,
            m.host_instructions / m.spu_cycles.max(1)
        );
        let checks = [
            ("result", m.result == EXPECTED),
            (
                "listener",
                m.listener_instructions == m.spu_instructions && m.spu_instructions > 0,
            ),
            (
                "host_pmu",
                m.host_instructions > m.spu_cycles && m.host_cycles > 0,
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
        let _ = writeln!(console, "embedded: {failed} checks failed");
        i32::from(failed != 0)
    }
}

/// Built for a hosted target only so that host builds of the workspace compile; the firmware
/// needs `--target aarch64-unknown-none`.
#[cfg(not(target_os = "none"))]
fn main() {
    eprintln!(
        "pmprobe-embedded: a bare-metal firmware; build it with --target aarch64-unknown-none"
    );
    std::process::exit(2);
}
