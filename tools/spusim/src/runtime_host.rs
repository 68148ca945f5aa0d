//! The host side of a program's runtime (`--runtime`): its start state, the program's text on
//! standard output (verbatim), the runtime's notices on standard error, and what a stop or a
//! wait means for the run.

use std::cell::RefCell;
use std::io::{self, Write};

use pmprobe::spu::exec::{RunEnd, SpuState, StopReason};
use pmprobe::spu::runtime::{
    Notice, OutputFailed, ProgramEnd, ProgramOutput, Runtime, RuntimeError, RuntimeKind, Serviced,
    SpuRuntime, Stream,
    start::{LibspeStart, preferred_doubleword, start_libspe, start_lv2_thread, start_raw_spu},
};

use crate::runtime_options::RuntimeOptions;

/// A writer shared by the run's reports and the program's standard error (both go to
/// spusim's standard error when a runtime runs the program).
pub struct SharedWrite<'a, 'w>(pub &'a RefCell<&'w mut dyn Write>);

impl Write for SharedWrite<'_, '_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

/// What the runtime made of a stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopOutcome {
    /// It answered: the SPU goes on (the pipeline refills, as after a PPE restart).
    Resume,
    /// The program ended its runtime's way.
    Ended(ProgramEnd),
    /// An lv2 thread waits for an event nobody will send.
    WaitingForEvent { queue: u32 },
    /// The runtime refused the request.
    Refused(RuntimeError),
    /// Not the runtime's: the run ends on the stop itself.
    NotMine,
}

/// The program's runtime (one per SPU of a thread group) and the streams its text goes to.
pub struct RuntimeHost<'a> {
    runtimes: Vec<Runtime>,
    streams: Streams<'a>,
}

/// The program's output streams, as the library's runtimes see them.
struct Streams<'a> {
    stdout: &'a mut dyn Write,
    stderr: Box<dyn Write + 'a>,
    /// The first write to the program's streams that failed.
    error: Option<io::Error>,
}

impl ProgramOutput for Streams<'_> {
    fn write(&mut self, stream: Stream, bytes: &[u8]) -> Result<(), OutputFailed> {
        let written = match stream {
            Stream::Stdout => self.stdout.write_all(bytes),
            Stream::Stderr => self.stderr.write_all(bytes),
        };
        written.map_err(|error| {
            self.error.get_or_insert(error);
            OutputFailed
        })
    }

    fn notice(&mut self, notice: Notice) {
        let text = match notice {
            Notice::EventSent {
                port,
                data0,
                data1,
                answered,
            } => format!(
                "spusim: SPU0 {} an event on port {port}: data0 {data0:#08x}, data1 {data1:#010x}",
                if answered { "sent" } else { "threw" }
            ),
            Notice::EventNotConnected { port } => {
                format!(
                    "spusim: SPU0 sent an event on port {port}, which is not connected (ENOTCONN; --event-port {port} connects it)"
                )
            }
            Notice::InterruptMailbox { value } => {
                format!("spusim: SPU0: interrupt mailbox {value:#010x}")
            }
            Notice::PrintfRefused(error) => format!("spusim: SPU0 print refused: {error}"),
            Notice::PrintTruncated { dropped } => {
                format!("spusim: SPU0 print truncated: {dropped} bytes dropped")
            }
        };
        let _ = writeln!(self.stderr, "{text}");
    }
}

impl<'a> RuntimeHost<'a> {
    /// The runtime `kind` (not `None`) with what the options give it; the program's text goes
    /// to `stdout`, its standard error and the notices to `stderr`.
    pub fn new(
        kind: RuntimeKind,
        options: &RuntimeOptions,
        stdout: &'a mut dyn Write,
        stderr: Box<dyn Write + 'a>,
    ) -> Result<Option<Self>, String> {
        let Some(mut runtime) = Runtime::of_kind(kind) else {
            return Ok(None);
        };
        if options.threads > 1 && kind != RuntimeKind::Lv2 {
            return Err(format!(
                "--threads makes an lv2 thread group; the runtime is {}",
                kind.name()
            ));
        }
        if let Runtime::Lv2(lv2) = &mut runtime {
            for &(queue, event) in &options.event_queues {
                let events: &[_] = match &event {
                    Some(event) => core::slice::from_ref(event),
                    None => &[],
                };
                lv2.bind_queue(queue, events)
                    .map_err(|error| format!("--event-queue {queue}: {error}"))?;
            }
            for &port in &options.event_ports {
                lv2.connect_port(port);
            }
        } else if !options.event_queues.is_empty() || !options.event_ports.is_empty() {
            return Err(format!(
                "--event-queue and --event-port are lv2's; the runtime is {}",
                kind.name()
            ));
        }
        Ok(Some(RuntimeHost {
            runtimes: vec![runtime; options.threads],
            streams: Streams {
                stdout,
                stderr,
                error: None,
            },
        }))
    }

    /// The first failed write to the program's streams.
    pub fn take_error(&mut self) -> io::Result<()> {
        self.streams.error.take().map_or(Ok(()), Err)
    }

    /// The index of `spu`'s runtime (a thread group's threads are SPUs 0, 1, ...).
    fn index(&self, spu: &SpuState) -> usize {
        usize::from(spu.id()).min(self.runtimes.len() - 1)
    }

    /// Answers a channel the SPU waits on; `true` if the SPU can go on.
    pub fn service_channel(
        &mut self,
        spu: &mut SpuState,
        channel: u8,
    ) -> Result<bool, RuntimeError> {
        let index = self.index(spu);
        let serviced =
            self.runtimes[index].service(spu, RunEnd::Blocked { channel }, &mut self.streams)?;
        Ok(serviced == Serviced::Resume)
    }

    /// What a stop means under the runtime.
    pub fn service_stop(&mut self, spu: &mut SpuState, reason: StopReason) -> StopOutcome {
        let index = self.index(spu);
        match self.runtimes[index].service(spu, RunEnd::Stopped(reason), &mut self.streams) {
            Ok(Serviced::Resume) => StopOutcome::Resume,
            Ok(Serviced::Ended(end)) => StopOutcome::Ended(end),
            Ok(Serviced::WaitingForEvent { queue }) => StopOutcome::WaitingForEvent { queue },
            Ok(Serviced::NotMine) => StopOutcome::NotMine,
            Err(error) => StopOutcome::Refused(error),
        }
    }
}

/// Sets `spu` (loaded, its entry at `entry`) up as runtime `kind` starts a program, with the
/// options' `--spu-arg` (thread `spu.id()`'s) and `--npc`.
pub fn start(spu: &mut SpuState, kind: RuntimeKind, options: &RuntimeOptions, entry: u32) {
    let arguments = options.arguments(usize::from(spu.id()));
    match kind {
        RuntimeKind::Lv2 => start_lv2_thread(spu, options.npc.unwrap_or(entry), arguments),
        RuntimeKind::Raw => start_raw_spu(spu, options.npc.unwrap_or(entry)),
        RuntimeKind::Libspe => match options.npc {
            // libspe2 sets the registers up only when the program starts at its entry.
            Some(npc) if npc & !3 != entry => spu.set_npc(npc),
            _ => start_libspe(
                spu,
                entry,
                LibspeStart {
                    spe_id: arguments[0],
                    argp: arguments[1],
                    envp: arguments[2],
                    local_store_ea: arguments[3],
                },
            ),
        },
        RuntimeKind::None => {
            let given = |index: usize| {
                options.spu_args[index].is_some()
                    || options.thread_args.iter().any(|&(_, i, _)| i == index)
            };
            for (index, register) in (3u8..7).enumerate() {
                if given(index) {
                    spu.set_register(register, preferred_doubleword(arguments[index]));
                }
            }
            if let Some(npc) = options.npc {
                spu.set_npc(npc);
            }
        }
    }
}
