//! The host's part (the PPE's, in a Cell): main memory, loaded from files before the run and
//! dumped after it; the signal registers and the inbound mailbox fed before the start (the
//! mailbox also as the SPU reads it); the outbound mailboxes drained and printed; the DMA
//! figures.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::Write;

use pmprobe::spu::exec::{
    Channels, SPU_RD_IN_MBOX, SPU_WR_OUT_INTR_MBOX, SPU_WR_OUT_MBOX, SpuState, StopReason,
};
use pmprobe::spu::main_memory::{MainMemory, Requester, SharedMemory, SignalRegister};
use std::io;

use crate::end::End;
use crate::exit::Failure;
use crate::host_options::HostOptions;
use crate::runtime_host::{RuntimeHost, StopOutcome};

/// Main memory, the values still to give the SPU, and the program's runtime.
pub struct Host<'a> {
    memory: &'static MainMemory<Vec<u8>>,
    inbound: VecDeque<u32>,
    runtime: Option<RuntimeHost<'a>>,
}

impl<'a> Host<'a> {
    /// Main memory of `--ea-size` bytes with the `--ea-load` files in it; `runtime` answers the
    /// program's calls (`None`: every stop ends the run).
    pub fn new(
        options: &HostOptions,
        runtime: Option<RuntimeHost<'a>>,
    ) -> Result<Host<'a>, Failure> {
        let size = usize::try_from(options.ea_size)
            .map_err(|_| Failure::Io(format!("--ea-size {} does not fit here", options.ea_size)))?;
        // One memory per run, shared by reference with the SPU for the rest of the process.
        // Checked before the run, so that a bad range never comes after a long simulation.
        for &(address, len) in &options.ea_dumps {
            if address
                .checked_add(len)
                .is_none_or(|end| end > options.ea_size)
            {
                return Err(Failure::Io(format!(
                    "--ea-dump {address:#x}:{len}: outside main memory (0..{:#x})",
                    options.ea_size
                )));
            }
        }
        let memory: &'static MainMemory<Vec<u8>> =
            Box::leak(Box::new(MainMemory::new(vec![0u8; size])));
        for (path, address) in &options.ea_loads {
            let bytes = std::fs::read(path).map_err(|error| {
                Failure::Io(format!(
                    "--ea-load: cannot read `{}`: {error}",
                    path.display()
                ))
            })?;
            memory
                .write(Requester::Host, *address, &bytes)
                .map_err(|error| {
                    Failure::Io(format!("--ea-load: `{}`: {error}", path.display()))
                })?;
        }
        Ok(Host {
            memory,
            inbound: options.in_mbox.iter().copied().collect(),
            runtime,
        })
    }

    /// Attaches `spu` to main memory, sets its MFC's timing and timebase, writes its signal
    /// registers and fills its inbound mailbox.
    pub fn prepare(&mut self, spu: &mut SpuState, options: &HostOptions) {
        spu.attach_main_memory(self.memory);
        spu.mfc_mut().set_timing(options.dma_timing);
        if let Some(ratio) = options.timebase_ratio {
            let now = spu.cycle_count();
            spu.mfc_mut()
                .decrementer_mut()
                .set_cycles_per_tick(ratio, now);
        }
        let id = spu.id();
        for (register, value) in [
            (SignalRegister::One, options.signal1),
            (SignalRegister::Two, options.signal2),
        ] {
            if let Some(value) = value {
                self.memory.write_signal(id, register, value);
            }
        }
        self.feed(spu);
    }

    /// Moves `--in-mbox` values into the inbound mailbox while it has room.
    fn feed(&mut self, spu: &mut SpuState) {
        while let Some(&value) = self.inbound.front() {
            if spu.channels_mut().write_inbound_mailbox(value).is_err() {
                break;
            }
            self.inbound.pop_front();
        }
    }

    /// The SPU waits on `channel`: the runtime answers a call, or the host drains (and
    /// prints) an outbound mailbox or refills the inbound one. `None` if the SPU can go on,
    /// else how the run ends.
    pub fn service(
        &mut self,
        spu: &mut SpuState,
        channel: u8,
        out: &mut dyn Write,
    ) -> Result<Option<End>, Failure> {
        if let Some(runtime) = self.runtime.as_mut() {
            let answered = runtime.service_channel(spu, channel);
            runtime.take_error().map_err(Failure::stdout)?;
            match answered {
                Ok(true) => return Ok(None),
                Ok(false) => {}
                Err(error) => return Ok(Some(End::Refused(error))),
            }
        }
        let id = spu.id();
        if let Some(value) = drain_outbound_mailbox(spu.channels_mut(), channel) {
            write_mailbox(out, id, value).map_err(Failure::stdout)?;
            return Ok(None);
        }
        if channel == SPU_RD_IN_MBOX && !self.inbound.is_empty() {
            self.feed(spu);
            return Ok(None);
        }
        Ok(Some(End::Blocked { channel }))
    }

    /// The SPU stopped: the runtime may answer a call (`None`: the SPU goes on from the
    /// instruction after the stop, or where the runtime set its PC) or end the program; without
    /// a runtime, the stop ends the run.
    pub fn on_stop(
        &mut self,
        spu: &mut SpuState,
        reason: StopReason,
    ) -> Result<Option<End>, Failure> {
        let Some(runtime) = self.runtime.as_mut() else {
            return Ok(Some(End::Stopped(reason)));
        };
        let outcome = runtime.service_stop(spu, reason);
        runtime.take_error().map_err(Failure::stdout)?;
        Ok(match outcome {
            StopOutcome::Resume => None,
            StopOutcome::Ended(end) => Some(End::Program(end)),
            StopOutcome::WaitingForEvent { queue } => Some(End::WaitingForEvent { queue }),
            StopOutcome::Refused(error) => Some(End::Refused(error)),
            StopOutcome::NotMine => Some(End::Stopped(reason)),
        })
    }

    /// `--ea-dump`: each range as hex, 16 bytes a line, the address first.
    pub fn dump(&self, options: &HostOptions, out: &mut dyn Write) -> Result<(), Failure> {
        for &(address, len) in &options.ea_dumps {
            let mut bytes = vec![0u8; usize::try_from(len).unwrap_or(usize::MAX).min(1 << 30)];
            self.memory
                .read(address, &mut bytes)
                .map_err(|error| Failure::Io(format!("--ea-dump: {error}")))?;
            let mut text = String::new();
            for (index, line) in bytes.chunks(16).enumerate() {
                let _ = write!(text, "{:08x}:", address + 16 * index as u64);
                for byte in line {
                    let _ = write!(text, " {byte:02x}");
                }
                text.push('\n');
            }
            out.write_all(text.as_bytes()).map_err(Failure::stdout)?;
        }
        Ok(())
    }
}

/// The DMA block of `--stats` (both modes): what the MFC did and what it cost.
pub fn print_dma_stats(spu: &SpuState, out: &mut dyn Write) -> Result<(), Failure> {
    let stats = spu.dma_stats();
    let bandwidth = stats
        .bandwidth()
        .map_or_else(|| "-".to_string(), |b| format!("{b:.2}"));
    let text = format!(
        "DMA commands                    {}\n\
         DMA transfers                   {}\n\
         DMA bytes in (get)              {}\n\
         DMA bytes out (put)             {}\n\
         DMA atomic commands             {} ({} putllc failed)\n\
         DMA channel wait cycles         {}\n\
         DMA busy cycles                 {}\n\
         DMA bandwidth (bytes/cycle)     {bandwidth}\n",
        stats.commands,
        stats.transfers,
        stats.bytes_in,
        stats.bytes_out,
        stats.atomics,
        stats.putllc_failures,
        stats.wait_cycles,
        stats.busy_cycles,
    );
    out.write_all(text.as_bytes()).map_err(Failure::stdout)
}

/// The host side of the outbound mailboxes: when `channel` is one of them and holds a value,
/// pops it (so the blocked write can complete) and returns it.
pub fn drain_outbound_mailbox(channels: &mut Channels, channel: u8) -> Option<u32> {
    match channel {
        SPU_WR_OUT_MBOX => channels.outbound.pop(),
        SPU_WR_OUT_INTR_MBOX => channels.outbound_interrupt.pop(),
        _ => None,
    }
}

/// The line a drained mailbox value prints as.
pub fn write_mailbox(
    out: &mut dyn Write,
    spu_id: impl std::fmt::Display,
    value: u32,
) -> io::Result<()> {
    writeln!(out, "SPU{spu_id}: mailbox {value:#010x}")
}
