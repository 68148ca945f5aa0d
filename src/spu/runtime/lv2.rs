//! The PS3 kernel's (lv2's) side of an SPU thread: its stop codes, the system calls it makes
//! through `SPU_WrOutIntrMbox`, its event queues, and the SDK's `spu_printf` server.
//!
//! | the thread does | lv2 does |
//! |---|---|
//! | `stop 0x100` | yields; the thread goes on |
//! | `stop 0x101` / `0x102` | the group / the thread exits with the `SPU_WrOutMbox` word as status |
//! | `stop 0x110` / `0x111` | (try-)receives an event from the queue bound to the `SPU_WrOutMbox` number: `SPU_RdInMbox` gets `CELL_OK` and the three data words, or one error (`EINVAL` unbound, `EBUSY` empty for the try form or when the mailbox held data); the plain form waits for an event |
//! | `SPU_WrOutIntrMbox` = `port << 24 \| data0`, port < 64 | sends an event (data1 from `SPU_WrOutMbox`) and answers `CELL_OK`, `ENOTCONN` or `EBUSY`; the printf port runs the print server, which answers a second time with printf's count |
//! | code 64..127 | throws the event: no answer |
//! | code 128 / 192 | sets an event flag (answered / not): no flag exists here, the answer is `ESRCH` |
//!
//! Facts and sources: `docs/spu-runtimes.md`.

use super::error::RuntimeError;
use super::event_queues::{EventData, EventQueues, QueueError};
use super::output::{Notice, ProgramOutput};
use super::print_server::{self, PRINTF_PORT};
use super::service::{ProgramEnd, Serviced, SpuRuntime};
use crate::spu::exec::{RunEnd, SpuState, StopReason};

/// `CELL_OK`.
pub const CELL_OK: u32 = 0;
/// `CELL_EINVAL`.
pub const CELL_EINVAL: u32 = 0x8001_0002;
/// `CELL_ESRCH`.
pub const CELL_ESRCH: u32 = 0x8001_0005;
/// `CELL_EBUSY`.
pub const CELL_EBUSY: u32 = 0x8001_000A;
/// `CELL_ENOTCONN`.
pub const CELL_ENOTCONN: u32 = 0x8001_0016;

/// `stop 0x100`: yield.
pub const STOP_YIELD: u16 = 0x100;
/// `stop 0x101`: the thread group exits.
pub const STOP_GROUP_EXIT: u16 = 0x101;
/// `stop 0x102`: the thread exits.
pub const STOP_THREAD_EXIT: u16 = 0x102;
/// `stop 0x110`: receive an event.
pub const STOP_RECEIVE_EVENT: u16 = 0x110;
/// `stop 0x111`: try to receive an event.
pub const STOP_TRY_RECEIVE_EVENT: u16 = 0x111;

/// lv2 for one SPU thread.
#[derive(Clone, Debug)]
pub struct Lv2Runtime {
    queues: EventQueues,
    /// Ports whose events go to the host (reported as [`Notice::EventSent`]).
    host_ports: u64,
    /// The port the print server listens on.
    printf_port: Option<u8>,
    /// A `stop 0x110` waiting for an event on this queue number.
    waiting: Option<u32>,
}

impl Default for Lv2Runtime {
    fn default() -> Self {
        Self::new()
    }
}

impl Lv2Runtime {
    /// A thread with no queue bound, no port connected to the host, and the print server on
    /// port 1 (as after `spu_printf_attach_group`).
    pub const fn new() -> Self {
        Lv2Runtime {
            queues: EventQueues::new(),
            host_ports: 0,
            printf_port: Some(PRINTF_PORT),
            waiting: None,
        }
    }

    /// The print server's port, or none (every print request then gets `ENOTCONN`).
    pub fn set_printf_port(&mut self, port: Option<u8>) {
        self.printf_port = port.map(|port| port & 63);
    }

    /// Connects SPU thread port `port` (0..63) to the host: the thread's events there are
    /// answered `CELL_OK` and reported as [`Notice::EventSent`].
    pub fn connect_port(&mut self, port: u8) {
        self.host_ports |= 1 << (port & 63);
    }

    /// The thread's event queues, to bind them and send events.
    pub fn queues_mut(&mut self) -> &mut EventQueues {
        &mut self.queues
    }

    /// Binds a queue to SPU queue number `number` and sends it `events`.
    pub fn bind_queue(&mut self, number: u32, events: &[EventData]) -> Result<(), QueueError> {
        if !self.queues.is_bound(number) {
            self.queues.bind(number)?;
        }
        events
            .iter()
            .try_for_each(|&event| self.queues.send(number, event))
    }

    /// The queue number a `stop 0x110` waits on, if the thread waits.
    pub fn waiting_on(&self) -> Option<u32> {
        self.waiting
    }

    fn on_stop(
        &mut self,
        spu: &mut SpuState,
        pc: u32,
        signal: u16,
        output: &mut dyn ProgramOutput,
    ) -> Result<Serviced, RuntimeError> {
        // A throw just before the stop has not been seen yet.
        if !spu.channels().outbound_interrupt.is_empty() {
            self.system_call(spu, output)?;
        }
        let outbound = |spu: &mut SpuState| {
            spu.channels_mut()
                .outbound
                .pop()
                .ok_or(RuntimeError::MissingOutboundMailbox {
                    request: u32::from(signal),
                })
        };
        match signal {
            STOP_YIELD => {
                spu.resume();
                Ok(Serviced::Resume)
            }
            STOP_GROUP_EXIT => Ok(Serviced::Ended(ProgramEnd::GroupExit {
                status: outbound(spu)?,
            })),
            STOP_THREAD_EXIT => Ok(Serviced::Ended(ProgramEnd::ThreadExit {
                status: outbound(spu)?,
            })),
            STOP_RECEIVE_EVENT | STOP_TRY_RECEIVE_EVENT => {
                let number = outbound(spu)?;
                let inbound = &mut spu.channels_mut().inbound;
                if !inbound.is_empty() {
                    inbound.clear();
                    answer(spu, &[CELL_EBUSY]);
                    spu.resume();
                    return Ok(Serviced::Resume);
                }
                match self.queues.receive(number) {
                    None => answer(spu, &[CELL_EINVAL]),
                    Some(Some(data)) => answer(spu, &[CELL_OK, data[0], data[1], data[2]]),
                    Some(None) if signal == STOP_TRY_RECEIVE_EVENT => answer(spu, &[CELL_EBUSY]),
                    Some(None) => {
                        self.waiting = Some(number);
                        return Ok(Serviced::WaitingForEvent { queue: number });
                    }
                }
                spu.resume();
                Ok(Serviced::Resume)
            }
            _ => Err(RuntimeError::UnknownStopCode { pc, signal }),
        }
    }

    /// Delivers the event a waiting `stop 0x110` receives, if one was sent since; `true` if
    /// the thread goes on.
    pub fn deliver_waiting(&mut self, spu: &mut SpuState) -> bool {
        let Some(number) = self.waiting else {
            return false;
        };
        match self.queues.receive(number) {
            Some(Some(data)) => {
                self.waiting = None;
                answer(spu, &[CELL_OK, data[0], data[1], data[2]]);
                spu.resume();
                true
            }
            Some(None) => false,
            None => {
                self.waiting = None;
                answer(spu, &[CELL_EINVAL]);
                spu.resume();
                true
            }
        }
    }

    /// The request in `SPU_WrOutIntrMbox` (which holds one).
    fn system_call(
        &mut self,
        spu: &mut SpuState,
        output: &mut dyn ProgramOutput,
    ) -> Result<(), RuntimeError> {
        let Some(value) = spu.channels_mut().outbound_interrupt.pop() else {
            return Ok(());
        };
        let code = value >> 24;
        let data0 = value & 0x00FF_FFFF;
        let missing = RuntimeError::MissingOutboundMailbox { request: value };
        match code {
            0..=127 => {
                let port = (code & 63) as u8;
                let answered = code < 64;
                let data1 = spu.channels_mut().outbound.pop().ok_or(missing)?;
                if answered && !spu.channels().inbound.is_empty() {
                    spu.channels_mut().inbound.clear();
                    answer(spu, &[CELL_EBUSY]);
                    return Ok(());
                }
                if self.printf_port == Some(port) {
                    let count = print_server::serve(spu.local_store(), data1, output)?;
                    if answered {
                        answer(spu, &[CELL_OK, count]);
                    }
                } else if self.host_ports & (1 << port) != 0 {
                    output.notice(Notice::EventSent {
                        port,
                        data0,
                        data1,
                        answered,
                    });
                    if answered {
                        answer(spu, &[CELL_OK]);
                    }
                } else {
                    output.notice(Notice::EventNotConnected { port });
                    if answered {
                        answer(spu, &[CELL_ENOTCONN]);
                    }
                }
                Ok(())
            }
            128 | 192 => {
                spu.channels_mut().outbound.pop().ok_or(missing)?;
                if code == 128 {
                    answer(spu, &[CELL_ESRCH]);
                }
                Ok(())
            }
            _ => Err(RuntimeError::UnknownInterruptCode { value }),
        }
    }
}

/// Writes lv2's answer words to `SPU_RdInMbox` (four entries: every answer fits).
fn answer(spu: &mut SpuState, words: &[u32]) {
    for &word in words {
        let _ = spu.channels_mut().write_inbound_mailbox(word);
    }
}

impl SpuRuntime for Lv2Runtime {
    fn service(
        &mut self,
        spu: &mut SpuState,
        end: RunEnd,
        output: &mut dyn ProgramOutput,
    ) -> Result<Serviced, RuntimeError> {
        match end {
            RunEnd::Stopped(StopReason::Stop { pc, signal }) => {
                self.on_stop(spu, pc, signal, output)
            }
            RunEnd::Blocked { .. } if !spu.channels().outbound_interrupt.is_empty() => {
                self.system_call(spu, output)?;
                Ok(Serviced::Resume)
            }
            _ => Ok(Serviced::NotMine),
        }
    }
}
