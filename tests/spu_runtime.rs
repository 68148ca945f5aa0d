//! The SPU runtimes through the library's own API (what firmware uses): start states as each
//! runtime documents them, and whole programs under `run_program` in both modes, with the
//! same text and the same end in each.

use pmprobe::spu::elf::{ElfNames, SpuElf, executable_size, write_executable};
use pmprobe::spu::exec::{Quadword, RunEnd, SpuState, StopReason};
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::runtime::start::{LIBSPE_START_NPC, LibspeStart, start_libspe, start_lv2_thread};
use pmprobe::spu::runtime::{
    CELL_OK, Lv2Runtime, Notice, OutputFailed, ProgramEnd, ProgramOutcome, ProgramOutput,
    RuntimeKind, Serviced, SpuRuntime, Stream, run_program,
};
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

const LV2: &str = include_str!("../spu/programs/runtime/lv2.inc");
const LIBSPE: &str = include_str!("../spu/programs/runtime/libspe.inc");

/// The program's source with its `.include` of the runtime file inlined.
fn source(program: &str) -> String {
    program
        .replace(".include \"lv2.inc\"", LV2)
        .replace(".include \"libspe.inc\"", LIBSPE)
}

#[derive(Default)]
struct Captured {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    notices: Vec<Notice>,
}

impl ProgramOutput for Captured {
    fn write(&mut self, stream: Stream, bytes: &[u8]) -> Result<(), OutputFailed> {
        match stream {
            Stream::Stdout => self.stdout.extend_from_slice(bytes),
            Stream::Stderr => self.stderr.extend_from_slice(bytes),
        }
        Ok(())
    }

    fn notice(&mut self, notice: Notice) {
        self.notices.push(notice);
    }
}

fn unit_with(program: &str, mode: Mode) -> (Box<SpuUnit>, u32) {
    let mut image = vec![0u8; 0x4_0000];
    let assembled = assemble::<256>(&source(program), &mut image).expect("assembles");
    let mut unit = Box::new(SpuUnit::new(0));
    unit.load_program(&image[..assembled.len], assembled.entry)
        .expect("fits");
    unit.set_mode(mode);
    (unit, assembled.entry)
}

#[test]
fn an_lv2_thread_starts_with_its_arguments_in_preferred_doublewords() {
    let mut spu = Box::new(SpuState::new(0));
    start_lv2_thread(&mut spu, 0x0d1, [1, 0x2_0000_0003, 4, u64::MAX]);
    assert_eq!(spu.register(3), Quadword::from_words([0, 1, 0, 0]));
    assert_eq!(spu.register(4), Quadword::from_words([2, 3, 0, 0]));
    assert_eq!(
        spu.register(6),
        Quadword::from_words([u32::MAX, u32::MAX, 0, 0])
    );
    // The stack at the top of the local store, every other register zero.
    assert_eq!(spu.register(1), Quadword::from_words([0x3fff0, 0, 0, 0]));
    assert_eq!(spu.register(2), Quadword::ZERO);
    assert_eq!(spu.register(7), Quadword::ZERO);
    // NPC 0xd1: PC 0xd0, interrupts enabled.
    assert_eq!(spu.pc(), 0xd0);
    assert!(spu.interrupts_enabled());
}

/// libspe2 starts its own code at the top of the local store, which loads the registers and
/// branches to the entry: after it, the program sees `$3`..`$6` and `$1` = 0x3fff0.
#[test]
fn libspe_starts_the_program_through_its_start_code() {
    let (mut unit, entry) = unit_with("_start:\n nop\n stop 0x2000\n", Mode::Instruction);
    let start = LibspeStart {
        spe_id: 0x1000_0000_2000,
        argp: 0x30,
        envp: 0x40,
        local_store_ea: 0xf000_0000,
    };
    start_libspe(unit.arch_mut(), entry, start);
    assert_eq!(unit.arch().pc(), LIBSPE_START_NPC);
    // Run the start code (8 instructions) and stop at the entry's `nop`.
    unit.run(8, &NoProbes, &mut Discard).expect("runs");
    let spu = unit.arch();
    assert_eq!(spu.pc(), entry);
    assert_eq!(
        spu.register(3),
        Quadword::from_words([0x1000, 0x2000, 0, 0])
    );
    assert_eq!(spu.register(4), Quadword::from_words([0, 0x30, 0, 0]));
    assert_eq!(spu.register(5), Quadword::from_words([0, 0x40, 0, 0]));
    assert_eq!(
        spu.register(6),
        Quadword::from_words([0, 0xf000_0000, 0, 0])
    );
    assert_eq!(spu.register(1), Quadword::from_words([0x3fff0, 0, 0, 0]));
    assert_eq!(spu.register(2), Quadword::ZERO);
}

#[test]
fn an_lv2_program_prints_the_same_in_both_modes() {
    for mode in [Mode::Instruction, Mode::Pipeline] {
        let (mut unit, entry) =
            unit_with(include_str!("../spu/programs/runtime/lv2_print.s"), mode);
        start_lv2_thread(unit.arch_mut(), entry, [0; 4]);
        let mut runtime = Lv2Runtime::new();
        let mut output = Captured::default();
        let run = run_program(
            &mut unit,
            &mut runtime,
            1_000_000,
            &NoProbes,
            &mut Discard,
            &mut output,
        )
        .expect("runs");
        assert_eq!(
            run.outcome,
            ProgramOutcome::Ended(ProgramEnd::ThreadExit { status: 7 }),
            "{mode:?}"
        );
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            "hello SPU: -42 beef A  2.50|\ncount 29\n",
            "{mode:?}"
        );
    }
}

/// A thread waiting in `stop 0x110` goes on when the host sends the event later.
#[test]
fn a_waiting_receive_gets_an_event_sent_later() {
    let program = "
        .include \"lv2.inc\"
        .text
main:
        stqd    $0,16($1)
        stqd    $1,-48($1)
        ai      $1,$1,-48
        il      $3,4
        brsl    $0,receive_event
        a       $3,$4,$5
        a       $3,$3,$6
        ai      $1,$1,48
        lqd     $0,16($1)
        bi      $0
";
    for mode in [Mode::Instruction, Mode::Pipeline] {
        let (mut unit, entry) = unit_with(program, mode);
        start_lv2_thread(unit.arch_mut(), entry, [0; 4]);
        let mut runtime = Lv2Runtime::new();
        runtime.bind_queue(4, &[]).unwrap();
        let mut output = Captured::default();
        let run = run_program(
            &mut unit,
            &mut runtime,
            100_000,
            &NoProbes,
            &mut Discard,
            &mut output,
        )
        .expect("runs");
        assert_eq!(run.outcome, ProgramOutcome::WaitingForEvent { queue: 4 });
        assert_eq!(runtime.waiting_on(), Some(4));
        runtime.bind_queue(4, &[[10, 20, 30]]).unwrap();
        assert!(runtime.deliver_waiting(unit.arch_mut()));
        let run = run_program(
            &mut unit,
            &mut runtime,
            100_000,
            &NoProbes,
            &mut Discard,
            &mut output,
        )
        .expect("runs");
        // main returns d1 + d2 + d3 as its status.
        assert_eq!(
            run.outcome,
            ProgramOutcome::Ended(ProgramEnd::ThreadExit { status: 60 }),
            "{mode:?}"
        );
    }
}

/// Each lv2 answer straight from `service`: `stop 0x111` on an unbound queue is `EINVAL`, a
/// thread exit without a status is refused, and an unknown stop code too.
#[test]
fn lv2_service_answers_and_refusals() {
    let mut spu = Box::new(SpuState::new(0));
    let mut runtime = Lv2Runtime::new();
    let mut output = Captured::default();
    let stop = |signal| RunEnd::Stopped(StopReason::Stop { pc: 0x100, signal });
    spu.channels_mut().outbound.push(9).unwrap();
    assert_eq!(
        runtime.service(&mut spu, stop(0x111), &mut output),
        Ok(Serviced::Resume)
    );
    assert_eq!(spu.channels_mut().inbound.pop(), Some(0x8001_0002));
    assert!(
        runtime.service(&mut spu, stop(0x102), &mut output).is_err(),
        "no status in SPU_WrOutMbox"
    );
    assert!(
        runtime
            .service(&mut spu, stop(0x3fff), &mut output)
            .is_err()
    );
    // An event sent to the print server's port with the block address.
    spu.local_store_mut().store_word(0x200, 0x300);
    for (offset, byte) in b"%d!\0".iter().enumerate() {
        spu.local_store_mut()
            .store_byte(0x300 + offset as u32, *byte);
    }
    spu.local_store_mut().store_word(0x210, 42);
    spu.channels_mut().outbound.push(0x200).unwrap();
    spu.channels_mut()
        .outbound_interrupt
        .push(0x0100_0000)
        .unwrap();
    assert_eq!(
        runtime.service(&mut spu, RunEnd::Blocked { channel: 29 }, &mut output),
        Ok(Serviced::Resume)
    );
    assert_eq!(output.stdout, b"42!");
    assert_eq!(spu.channels_mut().inbound.pop(), Some(CELL_OK));
    assert_eq!(spu.channels_mut().inbound.pop(), Some(3), "printf's count");
}

#[test]
fn the_runtime_is_named_and_detected() {
    for kind in [
        RuntimeKind::None,
        RuntimeKind::Lv2,
        RuntimeKind::Raw,
        RuntimeKind::Libspe,
    ] {
        assert_eq!(RuntimeKind::from_name(kind.name()), Some(kind));
    }
    assert_eq!(RuntimeKind::from_name("linux"), None);
}

/// `source` linked and written as spu-ld writes it (with its `SPUNAME` note), then detected.
fn detected(source: &str) -> (RuntimeKind, bool) {
    let mut image = vec![0u8; 4096];
    let program = assemble::<64>(source, &mut image).unwrap();
    let names = ElfNames {
        output: "a.out",
        objects: &["a.o"],
    };
    let mut file = vec![0u8; executable_size(&program, &names).unwrap()];
    write_executable(&program, &image, &names, &mut file).unwrap();
    let elf = SpuElf::parse(&file).unwrap();
    (RuntimeKind::detect(&elf), elf.has_spu_name_note())
}

#[test]
fn detection_reads_the_sdk_marks_not_spu_ld_s_note() {
    // Every spu-ld writes `.note.spu_name` (binutils' elf32-spu.c, spu_elf_create_sections),
    // so a plain program carries it and is still no lv2 program.
    let plain = ".globl _start\n_start: stop 0x2000\n";
    assert_eq!(detected(plain), (RuntimeKind::None, true));
    // The PS3 SDK's runtime parameter block; its linker script's `.sceversion` section.
    let lv2_symbol = ".globl _start\n_start: stop 0x102\n.globl _cell_spu_ls_param\n\
                      _cell_spu_ls_param: .long 0\n";
    assert_eq!(detected(lv2_symbol).0, RuntimeKind::Lv2);
    let lv2_section = ".globl _start\n_start: stop 0x102\n.section .sceversion,\"a\"\n.long 1\n";
    assert_eq!(detected(lv2_section).0, RuntimeKind::Lv2);
    // newlib's PPE-assisted call marks libspe2, even next to an SDK mark.
    let libspe = ".globl _start\n_start: stop 0x2000\n.globl __send_to_ppe\n\
                  __send_to_ppe: bi $0\n.section .sceversion,\"a\"\n.long 1\n";
    assert_eq!(detected(libspe).0, RuntimeKind::Libspe);
}
