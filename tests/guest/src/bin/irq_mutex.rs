//! The critical section of `IrqMutex` on the real core: IRQs are masked inside it (also while
//! its `Debug` formats the value, which an interrupt handler may be changing), and the previous
//! mask comes back afterwards, nested or not.
#![no_std]
#![no_main]

use core::fmt::{self, Write};
use core::sync::atomic::{AtomicU32, Ordering};

use pmprobe::arch::interrupts::{free, irq_masked};
use pmprobe::rt::irq;
use pmprobe::sync::IrqMutex;

pmprobe::entry!(main);

/// Records, each time it is formatted, whether IRQs were masked at that moment.
struct MaskProbe {
    formatted: AtomicU32,
    formatted_unmasked: AtomicU32,
}

impl fmt::Debug for MaskProbe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.formatted.fetch_add(1, Ordering::Relaxed);
        if !irq_masked() {
            self.formatted_unmasked.fetch_add(1, Ordering::Relaxed);
        }
        f.write_str("MaskProbe")
    }
}

static SHARED: IrqMutex<MaskProbe> = IrqMutex::new(MaskProbe {
    formatted: AtomicU32::new(0),
    formatted_unmasked: AtomicU32::new(0),
});

/// A `fmt::Write` that keeps only the length, so formatting needs no buffer.
struct Count(usize);

impl Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("irq_mutex");
    t.check("masked_at_boot", irq_masked());
    // SAFETY: not inside a critical section; no interrupt source is enabled in the GIC, so none
    // can arrive, and the vectors are installed.
    unsafe { irq::unmask() };
    t.check("unmasked_after_unmask", !irq_masked());

    let mut out = Count(0);
    let _ = write!(out, "{SHARED:?}");
    t.check_eq("debug_text_length", out.0, "IrqMutex(MaskProbe)".len());
    let probe = SHARED.lock(|p| {
        (
            p.formatted.load(Ordering::Relaxed),
            p.formatted_unmasked.load(Ordering::Relaxed),
        )
    });
    t.check_eq("debug_formatted_once", probe.0, 1);
    t.check_eq("debug_never_reads_with_irqs_unmasked", probe.1, 0);
    t.check("unmasked_after_debug", !irq_masked());

    let (outer, inner, after_inner) = free(|_| {
        let outer = irq_masked();
        let inner = free(|_| irq_masked());
        (outer, inner, irq_masked())
    });
    t.check("masked_in_critical_section", outer);
    t.check("masked_in_nested_section", inner);
    t.check("still_masked_after_nested_section", after_inner);
    t.check("unmasked_after_critical_section", !irq_masked());
    irq::mask();
    t.check("masked_after_mask", irq_masked());
    t.finish()
}
