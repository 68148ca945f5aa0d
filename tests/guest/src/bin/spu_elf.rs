//! A firmware that embeds an SPU ELF executable (`tests/guest/elf/dot.elf`, written by
//! `spusim --elf` from `spu/programs/dot.s`; see `tests/guest/elf/README.md`), loads it with the
//! library's reader and runs it on an SPU in both modes, with a breakpoint set by an ELF
//! symbol's name; a cut copy of the file is refused with a typed error.
#![no_std]
#![no_main]

use core::cell::{Cell, RefCell};

use pmprobe::probe::{BreakPcEvent, Listener, PcEventQueue};
use pmprobe::spu::elf::{ElfError, ElfPart, SpuElf};
use pmprobe::spu::exec::StopReason;
use pmprobe::spu::isa::{SymbolLookup, decode};
use pmprobe::spu::pipeline::RunEnd;
use pmprobe::spu::probes::SpuProbes;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};
use pmprobe::sync::IrqMutex;

pmprobe::entry!(main);

static DOT_ELF: &[u8] = include_bytes!("../../elf/dot.elf");

/// One SPU, in .bss (a local would not fit the stack).
static SPU: IrqMutex<RefCell<SpuUnit>> = IrqMutex::new(RefCell::new(SpuUnit::new(0)));

/// The retired-PC listener that services a PC event queue (the breakpoint).
struct Breakpoints<'e> {
    queue: RefCell<PcEventQueue<'e, u64, 1>>,
    hook_calls: Cell<u64>,
}

impl Listener<u64> for Breakpoints<'_> {
    fn notify(&self, pc: &u64) {
        if let Ok(mut queue) = self.queue.try_borrow_mut() {
            let mut calls = self.hook_calls.get();
            queue.service(*pc, &mut calls);
            self.hook_calls.set(calls);
        }
    }
}

fn count_call(calls: &mut u64, _event: &BreakPcEvent<'_, u64>) {
    *calls += 1;
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("spu_elf");
    let elf = match SpuElf::parse(DOT_ELF) {
        Ok(elf) => elf,
        Err(error) => {
            t.check_with("elf_parses", false, format_args!("{error}"));
            return t.finish();
        }
    };
    t.check("elf_parses", true);
    // dot.s: `_start` at 0, the loop `dot` after six instructions, .data at spu-ld's
    // ALIGN(0x80) after the 19 words of text.
    t.check_eq("elf_entry", elf.entry(), 0);
    t.check_eq("elf_segments", elf.segments().len(), 2);
    let dot = elf.symbols().address_of("dot");
    t.check_eq("elf_symbol_dot", dot, Some(0x18));
    t.check_eq(
        "elf_symbol_vec_a",
        elf.symbols().address_of("vec_a"),
        Some(0x80),
    );
    // The loop's closing `brnz $12,dot` (word 12) names its target by the ELF symbol, as
    // objdump writes a target: its address in hex (0x18), then the symbol.
    let mut text = heapless::String::<32>::new();
    let brnz = decode(0x217f_fd0c).map(|i| {
        let _ = core::fmt::write(
            &mut text,
            format_args!("{}", i.display_with(0x30, elf.symbols())),
        );
    });
    t.check_eq(
        "elf_symbol_names_branch_target",
        (brnz.is_ok(), text.as_str()),
        (true, "brnz $12,18 <dot>"),
    );
    t.check_eq(
        "elf_symbol_at_0",
        elf.symbols().symbol_at(0),
        Some("_start"),
    );

    let breakpoint = BreakPcEvent::new(u64::from(dot.unwrap_or(0)), "dot", count_call, false);
    SPU.lock(|spu| {
        let Ok(mut unit) = spu.try_borrow_mut() else {
            t.check("spu_free", false);
            return;
        };
        for (mode, name) in [
            (Mode::Pipeline, "pipeline"),
            (Mode::Instruction, "instruction"),
        ] {
            let probes = SpuProbes::new();
            let breaks = Breakpoints {
                queue: RefCell::new(PcEventQueue::new()),
                hook_calls: Cell::new(0),
            };
            let scheduled = breaks.queue.borrow_mut().schedule(&breakpoint).is_ok();
            let attached = probes.retired_insts_pc.add_object(&breaks).is_ok();
            unit.set_mode(mode);
            elf.load_into(unit.arch_mut());
            let outcome = unit.run(100_000, &probes, &mut Discard);
            let stopped = matches!(
                outcome.map(|o| o.end),
                Ok(RunEnd::Stopped(StopReason::Stop { signal: 0x2000, .. }))
            );
            t.check_with(
                "spu_runs_to_stop",
                stopped,
                format_args!("{name} mode: {outcome:?}"),
            );
            // 1^2 + ... + 16^2 = 1496.0 in the preferred slot (IEEE single 0x44bb0000).
            let result = (unit.arch().register(3).0 >> 96) as u32;
            t.check_with(
                "spu_dot_product",
                result == 0x44bb_0000,
                format_args!("{name} mode: $3 = {result:#010x}"),
            );
            // Four quadwords per vector: the loop body starts four times.
            t.check_with(
                "spu_breakpoint_by_symbol",
                scheduled && attached && breaks.hook_calls.get() == 4,
                format_args!("{name} mode: {} hits", breaks.hook_calls.get()),
            );
        }
    });

    let cut = DOT_ELF.get(..100).unwrap_or_default();
    t.check_eq(
        "cut_elf_refused",
        SpuElf::parse(cut).err(),
        Some(ElfError::Truncated {
            // Three Elf32_Phdr of 32 bytes (the code, the data, spu-ld's PT_NOTE) after the
            // 52-byte Elf32_Ehdr.
            part: ElfPart::ProgramHeaders,
            needs_end: 52 + 3 * 32,
            file_len: 100,
        }),
    );
    t.finish()
}
