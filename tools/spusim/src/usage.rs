//! The `--help` text.

/// What `spusim --help` prints (and a usage error repeats).
pub const USAGE: &str = "\
usage: spusim [options] prog.s [more.s ...]|prog.elf
       cargo spusim -- [options] prog.s [more.s ...]|prog.elf

Assembles SPU assembly files and links them as spu-as + spu-ld do, loads the
program at local-store address 0, runs it from the global `_start` (else the
start of .text) and prints the profiling checkpoint lines (prof_cpN, written as
`and $N,$N,$N`) and a final line with the stop reason, PC, instruction count and
cycle count. A file that starts with the ELF magic is an SPU ELF executable
instead: its PT_LOAD segments are loaded, it runs from e_entry, and its .symtab
names addresses in the --disasm listing.

A program built for a runtime (a PS3 SPU thread or raw SPU, Linux's libspe2) runs
under it: the runtime starts it, answers its calls (spu_printf, printf, exit,
lv2's event calls) and ends it. The program's text goes to stdout unchanged,
spusim's own lines to stderr, and spusim exits with the program's status.

options:
  --mode instruction|pipeline  simulation mode (default: pipeline)
  --fetch real|ideal           pipeline fetch model (default: real: the fetch
                               unit: line buffers, LS pipe, branch hints, unhinted
                               branches predicted not taken, mispredicts; ideal:
                               the correct path is always available, no branch
                               penalty, as spu_timing assumes)
  --preset cell|celledp        pipeline configuration preset (default: cell)
  --config key=value           set a configuration parameter (repeatable, applied
                               after the preset), e.g. spu/pipe/FPD/stall=0,
                               spu/feature/dp-dual=TRUE
  --stats                      print the pipeline statistics (pipeline mode) and
                               the DMA figures (both modes) at the end
  --no-fast-forward            simulate every cycle (by default, loop iterations
                               that exactly repeat an earlier one are
                               fast-forwarded: same results)
  --no-stall-skip              simulate issue and fetch in every stalled cycle
                               (by default, while an instruction waits for an
                               operand and fetch is idle, those cycles are
                               skipped exactly: same results)
  --timing                     print the static timing listing (spu_timing style)
                               of .text before running
  --pmu EVENT,...              count PMU events on an emulated PMUv3 (N = 6 + the
                               cycle counter) fed by the SPU's probe points and
                               print the counts, e.g. --pmu CPU_CYCLES,INST_RETIRED,
                               LD_RETIRED,ST_RETIRED,BR_RETIRED,BR_MIS_PRED
                               (also STALL_FRONTEND, STALL_BACKEND)
  --stack-distance             print the stack distance histogram of the LS data
                               accesses (16-byte lines, log2 bins)
  --din FILE                   write the LS data accesses to FILE as a Dinero IV
                               din trace (`0 addr` read, `1 addr` write, hex)
  --trace                      print a pipeline trace frame after every cycle
  --trace-from C, --trace-to C only trace cycles C.. / ..C (implies --trace)
  --konata FILE                write the run as a Kanata log for the Konata
                               pipeline viewer
  --max-cycles N               stop with an error after N cycles
                               (default: 100000000)
  --read-timeout S             give up reading the program after S seconds
                               without data (a pipe whose writer never closes;
                               default: 10)
  --elf FILE                   write the linked program to FILE as the SPU ELF
                               executable spu-ld writes, then run
  --defsym NAME=VALUE          define a global symbol for the link, as ld's
                               --defsym (a number, or global symbols and numbers)
  --objdump                    print what spu-objdump -d prints for the program's
                               ELF file (of the sources: the file --elf would
                               write, else a.out) and stop without running
  --ea-size BYTES              main memory the SPU's DMA reaches (default 16 MiB,
                               at most 1 GiB)
  --ea-load FILE@ADDR          copy FILE into main memory at ADDR before the run
                               (repeatable)
  --ea-dump ADDR:LEN           print LEN bytes of main memory from ADDR after the
                               run, 16 a line, address first (repeatable)
  --signal1 V, --signal2 V     write the SPU's signal-notification registers
                               before it starts
  --in-mbox V                  put V into the inbound mailbox (repeatable: four
                               before the start, the rest as the SPU reads them)
  --dma-issue N                DMA timing (pipeline mode): cycles from a command
  --dma-latency N              to its first request (default 12), from a request
  --dma-bandwidth N            to its data (288), bytes per cycle (8)
  --timebase-ratio N           SPU cycles per decrementer tick (default 40)
  --runtime lv2|raw|libspe|none
                               the runtime that answers the program's calls
                               (default: libspe for an ELF with newlib's
                               __send_to_ppe, lv2 for one the PS3 SDK
                               linked (.sceversion), else none)
  --spu-arg [T:]N=VALUE        the program's start argument N (1 to 4, 64-bit):
                               $2+N in its preferred doubleword (lv2: the
                               thread's arguments; libspe: speid, argp, envp,
                               the LS address); T: for thread T only
  --threads N                  lv2: a thread group of N SPUs (1 to 8) running
                               the image in turns, sharing main memory
  --npc VALUE                  start address, bit 0 = interrupts enabled, as
                               the NPC register is written (default: e_entry)
  --event-queue Q[=D1,D2,D3]   lv2: bind an event queue to SPU queue number Q,
                               with one event (repeatable)
  --event-port N               lv2: connect SPU thread port N (0 to 63) to the
                               host: its events are answered and reported
  --regs                       print the non-zero registers at the end
  --disasm                     print the assembled listing before running
  -h, --help                   print this help
  --                           end of options: what follows are program files

A value goes after the option or after `=` (`--mode=instruction`); flags take no
value (`--stats=false` is an error: leave the flag out); numbers may be decimal
or 0x hex. Each program file is at most 16 MiB (UTF-8 text, or an ELF file).
Output files (--din, --konata, --elf) are never a program file: spusim refuses
before it opens anything.

exit status: under a runtime, the program's exit status (lv2's thread or group
exit status, libspe2's exit(); a stop code's low byte for a raw SPU or a
stop-and-signal); otherwise 0 when the program executes `stop`/`stopd`; 1 for a halt
instruction; 2 for a usage error, an unreadable or refused file, an output that
cannot be written, an assembly or link error (`file:line:col: message`), a
program without instructions or a bad ELF file (`file: message`); 3 for a fault
(illegal instruction, unsupported channel, a DMA command the MFC refuses, named
with its command, tag, LSA, EA and size), a blocked channel, --max-cycles
exceeded, a model error, or a call the runtime refuses (named with its class
and opcode) or a receive no event will answer.
";
