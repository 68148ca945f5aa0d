//! A PS3 raw SPU (`sys_raw_spu_*`): no thread group and no system calls. Every stop ends the
//! program (the PPE reads the status register: the stop code in bits 16..31, bit 1 "stopped
//! by stop-and-signal"); the interrupt mailbox goes to the PPE's interrupt thread, which here
//! runs the same print server as lv2 (a request is a port-1 word with the block's address in
//! `SPU_WrOutMbox`, answered twice as an lv2 thread's) and reports every other word.

use super::error::RuntimeError;
use super::output::{Notice, ProgramOutput};
use super::print_server::{self, PRINTF_PORT};
use super::service::{ProgramEnd, Serviced, SpuRuntime};
use crate::spu::exec::{RunEnd, SpuState, StopReason};

/// The runtime of a raw SPU.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawRuntime;

impl RawRuntime {
    fn interrupt(spu: &mut SpuState, output: &mut dyn ProgramOutput) -> Result<(), RuntimeError> {
        let Some(value) = spu.channels_mut().outbound_interrupt.pop() else {
            return Ok(());
        };
        if value >> 24 == u32::from(PRINTF_PORT)
            && let Some(block) = spu.channels_mut().outbound.pop()
        {
            let count = print_server::serve(spu.local_store(), block, output)?;
            for word in [0, count] {
                let _ = spu.channels_mut().write_inbound_mailbox(word);
            }
        } else {
            output.notice(Notice::InterruptMailbox { value });
        }
        Ok(())
    }
}

impl SpuRuntime for RawRuntime {
    fn service(
        &mut self,
        spu: &mut SpuState,
        end: RunEnd,
        output: &mut dyn ProgramOutput,
    ) -> Result<Serviced, RuntimeError> {
        match end {
            RunEnd::Stopped(StopReason::Stop { signal, .. }) => {
                Self::interrupt(spu, output)?;
                Ok(Serviced::Ended(ProgramEnd::RawStop { signal }))
            }
            RunEnd::Blocked { .. } if !spu.channels().outbound_interrupt.is_empty() => {
                Self::interrupt(spu, output)?;
                Ok(Serviced::Resume)
            }
            _ => Ok(Serviced::NotMine),
        }
    }
}
