//! The host core's top-down level 1, with Arm's formulas (`pmu::topdown`) where the core has
//! them: Neoverse N1, N2 and V1 whose PMU announces the events. There the formulas' events are
//! counted as one group around a piece of host work (assembling the demo's four kernels, 16
//! times); on any other core, QEMU's cortex-a57 and `max` among them, the line says "not
//! available on this core" and why.

use pmprobe::pmu::topdown::Method;
use pmprobe::pmu::{GroupKind, Multiplexer, Pmu, SysRegPmu};

use crate::demo::shared::kernels::{self, IMAGE_BYTES};
use crate::demo::shared::output::{out, outln};

/// Prints this core's level 1 (`profiling`: `--profile` is sampling with this core's PMU, which
/// a measurement here would reset).
pub fn print(profiling: bool) {
    let mut pmu = match Pmu::new(SysRegPmu::new()) {
        Ok(pmu) => pmu,
        Err(e) => {
            outln!("  Top-down level 1 of this core: {e}");
            return;
        }
    };
    let cpu = pmu.info().cpu;
    let method = match Method::for_core(pmu.info()) {
        Ok(method) => method,
        Err(unavailable) => {
            outln!("  Top-down level 1 of this core ({cpu}): {unavailable}");
            return;
        }
    };
    if profiling {
        outln!(
            "  Top-down level 1 of this core ({cpu}): not measured while --profile samples with its PMU"
        );
        return;
    }
    let mut mux = Multiplexer::<_, 8, 1>::new(&mut pmu);
    let measured = mux
        .add_group(method.events(), GroupKind::Pinned)
        .and_then(|_| mux.start(0));
    if let Err(e) = measured {
        outln!("  Top-down level 1 of this core ({cpu}): {e}");
        return;
    }
    let mut image = [0u8; IMAGE_BYTES];
    for _ in 0..16 {
        for kernel in [
            kernels::SAXPY,
            kernels::CHAIN,
            kernels::DOUBLE,
            kernels::SAXPY,
        ] {
            let _ = kernel.assemble(&mut image);
        }
    }
    let readings = mux.stop(1).and_then(|()| mux.read(1));
    match readings {
        Ok(readings) => {
            outln!(
                "  Top-down level 1 of this core ({cpu}), assembling the demo's kernels 16 times ({}):",
                method.name()
            );
            out!(
                "{}",
                method.compute(|event| readings.find(event)?.estimate())
            );
        }
        Err(e) => outln!("  Top-down level 1 of this core ({cpu}): {e}"),
    }
}
