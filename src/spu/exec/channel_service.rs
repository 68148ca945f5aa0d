//! Between instructions: the SPU's main memory, the service of its MFC and events, and
//! interrupts.
//!
//! A channel instruction only tells the [`Mfc`] what the program asked; whoever runs the SPU
//! then calls [`SpuState::service_channels`] before the next instruction (every run loop here
//! does, and so do the pipeline and [`SpuUnit`](crate::spu::unit::SpuUnit)). The service
//! moves the data that is due, raises the events that follow and, when an enabled event is
//! pending with interrupts enabled, enters the interrupt handler: SRR0 gets the address of
//! the next instruction, interrupts are disabled, and execution continues at LS address 0.

use super::channels::{ChannelAccess, ChannelContext};
use super::code::CodeStore;
use super::flow::{ChannelInstruction, Flow};
use super::local_store::LocalStore;
use super::outcome::{ChannelOperation, Fault, FaultKind, Status, StopReason};
use super::quadword::Quadword;
use super::state::SpuState;
use crate::spu::main_memory::SharedMemory;
use crate::spu::mfc::{DmaEvent, DmaFault, DmaStats, LocalStoreBytes, MemoryPort, Mfc};

/// What [`SpuState::service_channels`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelService {
    /// The SPU entered its interrupt handler (PC 0).
    pub interrupted: bool,
    /// The MFC found a command invalid: the SPU stopped with this fault.
    pub fault: Option<DmaFault>,
}

/// The local store plus, for the pipeline's ideal fetch, its run-ahead copy's: DMA writes land
/// in both.
struct Mirrored<'a> {
    local_store: &'a mut LocalStore,
    mirror: Option<&'a mut LocalStore>,
}

impl LocalStoreBytes for Mirrored<'_> {
    fn read_bytes(&self, lsa: u32, out: &mut [u8]) {
        self.local_store.read_bytes(lsa, out);
    }

    fn write_bytes(&mut self, lsa: u32, data: &[u8]) {
        self.local_store.write_bytes(lsa, data);
        if let Some(mirror) = self.mirror.as_deref_mut() {
            mirror.write_bytes(lsa, data);
        }
    }
}

impl<C: CodeStore> SpuState<C> {
    /// Attaches the main memory this SPU's DMA reaches (until then every DMA is outside
    /// main memory and stops the SPU). Several SPUs attach to one memory; a reset keeps it.
    pub fn attach_main_memory(&mut self, memory: &'static dyn SharedMemory) {
        self.channels.mfc.attach(MemoryPort::to(memory));
    }

    /// The main memory this SPU reaches (an empty one if none is attached).
    pub fn main_memory(&self) -> &dyn SharedMemory {
        self.channels.mfc.memory()
    }

    /// The MFC: its queue, timing, events, decrementer and statistics.
    pub fn mfc(&self) -> &Mfc {
        &self.channels.mfc
    }

    /// The MFC, to configure it (its timing, the decrementer's timebase).
    pub fn mfc_mut(&mut self) -> &mut Mfc {
        &mut self.channels.mfc
    }

    /// The DMA statistics.
    pub fn dma_stats(&self) -> &DmaStats {
        self.channels.mfc.stats()
    }

    /// The DMA command that stopped the SPU, with everything it named, if one did.
    pub fn dma_fault(&self) -> Option<DmaFault> {
        self.channels.mfc.fault()
    }

    #[inline]
    fn interrupt_due(&self) -> bool {
        self.interrupts_enabled
            && self.channels.mfc.events().count()
            && matches!(self.status, Status::Running)
    }

    /// Whether [`service_channels`](Self::service_channels) has something to do before the
    /// next instruction.
    #[inline]
    pub fn channels_need_service(&self) -> bool {
        self.channels.mfc.needs_service(self.cycles) || self.interrupt_due()
    }

    /// [`channels_need_service`](Self::channels_need_service) at cycle `now` of a timing model.
    #[inline]
    pub fn channels_need_service_at(&self, now: u64) -> bool {
        self.channels.mfc.needs_service(now) || self.interrupt_due()
    }

    /// The next cycle at which the channels change without the SPU doing anything (a timed
    /// DMA completes, an enabled decrementer event), if any.
    pub fn next_channel_event(&self) -> Option<u64> {
        self.channels.mfc.next_event()
    }

    /// Services the channels at the SPU's own clock (instruction mode), handing every
    /// completed DMA transfer to `sink`.
    pub fn service_channels(&mut self, sink: &mut dyn FnMut(&DmaEvent)) -> ChannelService {
        self.service_channels_at(self.cycles, None, sink)
    }

    /// Services the channels at cycle `now`: completes and starts DMA, raises events and takes
    /// a due interrupt. DMA data written to the local store is also written to `mirror` (the
    /// pipeline's run-ahead copy). A DMA error found now stops the SPU at its PC.
    pub fn service_channels_at(
        &mut self,
        now: u64,
        mirror: Option<&mut LocalStore>,
        sink: &mut dyn FnMut(&DmaEvent),
    ) -> ChannelService {
        let mut service = ChannelService::default();
        if let Status::Stopped(_) = self.status {
            return service;
        }
        if self.channels.mfc.needs_service(now) {
            self.channels.refresh_mailbox_events();
            let spu = self.id.get();
            let mut local_store = Mirrored {
                local_store: &mut self.local_store,
                mirror,
            };
            if let Err(fault) = self.channels.mfc.service(now, spu, &mut local_store, sink) {
                let pc = self.pc;
                self.status = Status::Stopped(StopReason::Fault(Fault {
                    pc,
                    word: self.local_store.load_word(pc),
                    kind: FaultKind::Dma(fault.kind),
                }));
                service.fault = Some(fault);
                return service;
            }
        }
        if self.interrupt_due() {
            self.enter_interrupt();
            service.interrupted = true;
        }
        service
    }

    /// Performs a channel instruction at the SPU's clock: the value read or counted goes to
    /// its register; the flow says whether it completed, waits or faults.
    pub(super) fn access_channel(&mut self, instruction: ChannelInstruction) -> Flow {
        let context = ChannelContext {
            now: self.cycles,
            spu: self.id.get(),
            interrupts_enabled: self.interrupts_enabled,
        };
        let ChannelInstruction {
            operation,
            channel,
            register,
        } = instruction;
        let access = match operation {
            ChannelOperation::Read => self.channels.read(channel, context),
            ChannelOperation::Write => {
                let value = self.register(register).preferred_word();
                self.channels.write(channel, value, context)
            }
            ChannelOperation::Count => match self.channels.count(channel, context) {
                Some(count) => ChannelAccess::Done(count),
                None => ChannelAccess::Unsupported,
            },
        };
        match access {
            ChannelAccess::Done(value) => {
                if operation != ChannelOperation::Write {
                    self.set_register(register, Quadword::from_preferred_word(value));
                }
                Flow::Channel
            }
            ChannelAccess::WouldBlock => Flow::Blocked(channel),
            ChannelAccess::Refused(kind) => Flow::Fault(FaultKind::Dma(kind)),
            ChannelAccess::Unsupported => Flow::Fault(FaultKind::UnsupportedChannel {
                channel,
                access: operation,
            }),
        }
    }

    /// Enters the interrupt handler: SRR0 = the PC (the next instruction), interrupts off,
    /// PC = 0. The event count stays: the handler reads `SPU_RdEventStat`.
    pub fn enter_interrupt(&mut self) {
        self.channels.srr0 = self.pc;
        self.interrupts_enabled = false;
        self.pc = 0;
        if let Status::Blocked { .. } = self.status {
            self.status = Status::Running;
        }
    }

    /// Instruction mode, the SPU waits on a channel: moves the clock to the next channel
    /// event, at most `budget` cycles on. Returns the cycles waited, `None` when nothing but
    /// the host (a mailbox, a signal) can end the wait.
    pub fn wait_for_channel_event(&mut self, budget: u64) -> Option<u64> {
        let at = self.channels.mfc.next_event()?;
        let wait = at.saturating_sub(self.cycles).min(budget);
        self.cycles += wait;
        self.channels.mfc.count_wait(wait);
        Some(wait)
    }

    /// How many instructions instruction mode may run before the channels need a service by
    /// the clock (at least one, at most `budget`).
    pub(crate) fn channel_slice(&self, budget: u64) -> u64 {
        match self.channels.mfc.next_event() {
            Some(at) => at.saturating_sub(self.cycles).clamp(1, budget.max(1)),
            None => budget,
        }
    }
}
