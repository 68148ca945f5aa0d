//! A firmware that runs a PS3 SPU thread's program under the library's lv2 runtime: the SPU
//! ELF `tests/guest/elf/lv2_print.elf` (written by `spusim --elf` from
//! `spu/programs/runtime/lv2_print.s`; see `tests/guest/elf/README.md`) calls `spu_printf`
//! twice through the SDK's protocol (the argument block's address in SPU_WrOutIntrMbox, the
//! answers in SPU_RdInMbox) and exits with `stop 0x102`. The firmware's runtime answers it
//! with no heap: the text lands in a fixed buffer, in both modes.
#![no_std]
#![no_main]

use core::cell::RefCell;

use pmprobe::spu::elf::SpuElf;
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::runtime::start::start_lv2_thread;
use pmprobe::spu::runtime::{
    Lv2Runtime, OutputFailed, ProgramEnd, ProgramOutcome, ProgramOutput, Stream, run_program,
};
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};
use pmprobe::sync::IrqMutex;

pmprobe::entry!(main);

static LV2_PRINT_ELF: &[u8] = include_bytes!("../../elf/lv2_print.elf");

/// One SPU, in .bss (a local would not fit the stack).
static SPU: IrqMutex<RefCell<SpuUnit>> = IrqMutex::new(RefCell::new(SpuUnit::new(0)));

/// The program's standard output in a fixed buffer; what does not fit is counted.
#[derive(Default)]
struct Console {
    stdout: heapless::Vec<u8, 128>,
    stderr_bytes: usize,
    dropped: usize,
}

impl ProgramOutput for Console {
    fn write(&mut self, stream: Stream, bytes: &[u8]) -> Result<(), OutputFailed> {
        match stream {
            Stream::Stdout => {
                for &byte in bytes {
                    if self.stdout.push(byte).is_err() {
                        self.dropped += 1;
                    }
                }
            }
            Stream::Stderr => self.stderr_bytes += bytes.len(),
        }
        Ok(())
    }
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("spu_runtime");
    let elf = match SpuElf::parse(LV2_PRINT_ELF) {
        Ok(elf) => elf,
        Err(error) => {
            t.check_with("elf_parses", false, format_args!("{error}"));
            return t.finish();
        }
    };
    SPU.lock(|spu| {
        let Ok(mut unit) = spu.try_borrow_mut() else {
            t.check("spu_free", false);
            return;
        };
        for (mode, name) in [
            (Mode::Pipeline, "pipeline"),
            (Mode::Instruction, "instruction"),
        ] {
            unit.set_mode(mode);
            elf.load_into(unit.arch_mut());
            start_lv2_thread(unit.arch_mut(), elf.entry(), [0; 4]);
            let mut runtime = Lv2Runtime::new();
            let mut console = Console::default();
            let run = run_program(
                &mut unit,
                &mut runtime,
                1_000_000,
                &NoProbes,
                &mut Discard,
                &mut console,
            );
            // lv2_print.s's main returns 7; the SDK's crt0 hands main's value to
            // sys_spu_thread_exit (stop 0x102, the status in SPU_WrOutMbox).
            let ended = run.map(|run| run.outcome);
            t.check_with(
                "thread_exit_status_7",
                ended == Ok(ProgramOutcome::Ended(ProgramEnd::ThreadExit { status: 7 })),
                format_args!("{name} mode: {ended:?}"),
            );
            // C's printf: "%s: %d %x %c %5.2f|" of "SPU", -42, 0xbeef, 'A', 2.5, then the
            // first call's count (29 characters) through "count %d\n".
            let text = core::str::from_utf8(&console.stdout).unwrap_or("<not UTF-8>");
            t.check_with(
                "spu_printf_text",
                text == "hello SPU: -42 beef A  2.50|\ncount 29\n"
                    && console.dropped == 0
                    && console.stderr_bytes == 0,
                format_args!("{name} mode: {text:?}"),
            );
        }
    });
    t.finish()
}
