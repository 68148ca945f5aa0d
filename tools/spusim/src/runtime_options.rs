//! The runtime options: which runtime answers the program's calls (`--runtime`), its start
//! (`--spu-arg`, `--npc`), and what the host gives an lv2 thread (`--event-queue`,
//! `--event-port`).

use pmprobe::spu::runtime::{EventData, RuntimeKind};

use crate::host_options::number;

/// The most threads a group has (the SPUs a PS3 gives a program: 6; the model's arena: 8).
pub const MAX_THREADS: usize = 8;

/// The options that name a runtime and what it starts the program with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeOptions {
    /// `--runtime lv2|raw|libspe|none` (default: detected from an ELF file, none for sources).
    pub kind: Option<RuntimeKind>,
    /// `--spu-arg N=VALUE`: `$2+N` at the start (N 1..4), for every thread.
    pub spu_args: [Option<u64>; 4],
    /// `--spu-arg T:N=VALUE`: argument N of thread T only (after the ones for every thread).
    pub thread_args: Vec<(usize, usize, u64)>,
    /// `--threads N`: the lv2 thread group's size (1 to 8): N SPUs run the image.
    pub threads: usize,
    /// `--npc VALUE`: the start address with the interrupt-enable bit (bit 0).
    pub npc: Option<u32>,
    /// `--event-queue SPUQ[=D1,D2,D3]`, in order: a queue bound to SPU queue number SPUQ,
    /// with an event for it.
    pub event_queues: Vec<(u32, Option<EventData>)>,
    /// `--event-port N`: SPU thread ports connected to the host.
    pub event_ports: Vec<u8>,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions {
            kind: None,
            spu_args: [None; 4],
            thread_args: Vec::new(),
            threads: 1,
            npc: None,
            event_queues: Vec::new(),
            event_ports: Vec::new(),
        }
    }
}

impl RuntimeOptions {
    /// The options this module takes (each with a value).
    pub const NAMES: [&'static str; 6] = [
        "--runtime",
        "--spu-arg",
        "--npc",
        "--event-queue",
        "--event-port",
        "--threads",
    ];

    /// Thread `thread`'s four start arguments (0 where none is given).
    pub fn arguments(&self, thread: usize) -> [u64; 4] {
        let mut arguments = self.spu_args.map(|argument| argument.unwrap_or(0));
        for &(for_thread, index, value) in &self.thread_args {
            if for_thread == thread {
                arguments[index] = value;
            }
        }
        arguments
    }

    /// Takes option `name` (one of [`NAMES`](Self::NAMES)) with its value `text`.
    pub fn take(&mut self, name: &str, text: &str) -> Result<(), String> {
        match name {
            "--runtime" => {
                self.kind = Some(RuntimeKind::from_name(text).ok_or_else(|| {
                    format!("unknown runtime `{text}`, expected lv2, raw, libspe or none")
                })?);
            }
            "--spu-arg" => {
                let parsed = text.split_once('=').and_then(|(target, value)| {
                    let (thread, index) = match target.split_once(':') {
                        Some((thread, index)) => {
                            (Some(thread.trim().parse::<usize>().ok()?), index)
                        }
                        None => (None, target),
                    };
                    let index = index.trim().parse::<usize>().ok()?;
                    Some((thread, index, number(value)?))
                });
                match parsed {
                    Some((None, index @ 1..=4, value)) => self.spu_args[index - 1] = Some(value),
                    Some((Some(thread @ 0..MAX_THREADS), index @ 1..=4, value)) => {
                        self.thread_args.push((thread, index - 1, value));
                    }
                    _ => {
                        return Err(format!(
                            "--spu-arg expects [T:]N=VALUE with thread T 0 to {}, N 1 to 4 and a 64-bit value, found `{text}`",
                            MAX_THREADS - 1
                        ));
                    }
                }
            }
            "--threads" => {
                self.threads = number(text)
                    .and_then(|threads| usize::try_from(threads).ok())
                    .filter(|threads| (1..=MAX_THREADS).contains(threads))
                    .ok_or_else(|| {
                        format!("--threads expects 1 to {MAX_THREADS} threads, found `{text}`")
                    })?;
            }
            "--npc" => {
                self.npc = Some(
                    number(text)
                        .and_then(|value| u32::try_from(value).ok())
                        .ok_or_else(|| format!("--npc expects a 32-bit number, found `{text}`"))?,
                );
            }
            "--event-queue" => {
                let bad = || {
                    format!(
                        "--event-queue expects SPUQ or SPUQ=DATA1,DATA2,DATA3 (32-bit numbers), found `{text}`"
                    )
                };
                let (queue, event) = match text.split_once('=') {
                    Some((queue, data)) => {
                        let words: Vec<u32> = data
                            .split(',')
                            .map(|word| number(word).and_then(|value| u32::try_from(value).ok()))
                            .collect::<Option<_>>()
                            .ok_or_else(bad)?;
                        let event: EventData = words.try_into().map_err(|_| bad())?;
                        (queue, Some(event))
                    }
                    None => (text, None),
                };
                let queue = number(queue)
                    .and_then(|value| u32::try_from(value).ok())
                    .ok_or_else(bad)?;
                self.event_queues.push((queue, event));
            }
            "--event-port" => {
                let port = number(text).filter(|port| *port < 64).ok_or_else(|| {
                    format!("--event-port expects a port 0 to 63, found `{text}`")
                })?;
                self.event_ports.push(port as u8);
            }
            _ => return Err(format!("unknown option `{name}`")),
        }
        Ok(())
    }
}
