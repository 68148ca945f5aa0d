//! Linux's libspe2 around an SPE program (the Cell SDK's `spu-gcc` with newlib): exits,
//! stop-and-signal codes returned to the PPE, and the PPE-assisted library calls.
//!
//! | stop code | libspe2 does |
//! |---|---|
//! | `0x2000 \| status` | the program exited (`exit(status)`, `_exit`) |
//! | `0x2100 \| class` | a PPE-assisted call: the word after the `stop` is `opcode << 24 \| block`, the block holds one quadword per argument; the result overwrites the block's first quadword (word 0 the return value, word 3 `errno`), and the SPU goes on after that word |
//! | anything else | stop-and-signal: `spe_context_run` returns the code to the PPE program |
//!
//! The calls performed are in `libspe_calls.rs`; any other stops the program with
//! [`RuntimeError::UnknownLibraryCall`] naming its class and opcode.

use super::error::RuntimeError;
use super::libspe_calls::{self, CallResult};
use super::output::ProgramOutput;
use super::service::{ProgramEnd, Serviced, SpuRuntime};
use crate::spu::exec::{LS_ADDRESS_MASK, Quadword, RunEnd, SpuState, StopReason};

/// `stop 0x2000 | status`: exit.
pub const STOP_EXIT: u16 = 0x2000;
/// `stop 0x2100 | class`: a PPE-assisted library call.
pub const STOP_LIBRARY_CALL: u16 = 0x2100;

/// libspe2 for one SPE context.
#[derive(Clone, Copy, Debug, Default)]
pub struct LibspeRuntime;

impl LibspeRuntime {
    fn library_call(
        spu: &mut SpuState,
        pc: u32,
        class: u8,
        output: &mut dyn ProgramOutput,
    ) -> Result<Serviced, RuntimeError> {
        let data_word_at = pc.wrapping_add(4) & LS_ADDRESS_MASK;
        let word = spu.local_store().load_word(data_word_at);
        let opcode = (word >> 24) as u8;
        let block = word & 0x00FF_FFFF & LS_ADDRESS_MASK;
        let result = libspe_calls::perform(spu.local_store_mut(), class, opcode, block, output)?;
        let Some(CallResult { value, errno }) = result else {
            return Err(RuntimeError::UnknownLibraryCall { class, opcode, pc });
        };
        spu.local_store_mut()
            .store_quadword(block, Quadword::from_words([value, 0, 0, errno]));
        spu.set_pc(pc.wrapping_add(8));
        spu.resume();
        Ok(Serviced::Resume)
    }
}

impl SpuRuntime for LibspeRuntime {
    fn service(
        &mut self,
        spu: &mut SpuState,
        end: RunEnd,
        output: &mut dyn ProgramOutput,
    ) -> Result<Serviced, RuntimeError> {
        let RunEnd::Stopped(StopReason::Stop { pc, signal }) = end else {
            return Ok(Serviced::NotMine);
        };
        match signal & 0xFF00 {
            STOP_EXIT => Ok(Serviced::Ended(ProgramEnd::Exit {
                status: (signal & 0xFF) as u8,
            })),
            STOP_LIBRARY_CALL => Self::library_call(spu, pc, (signal & 0xFF) as u8, output),
            _ => Ok(Serviced::Ended(ProgramEnd::Signal { signal })),
        }
    }
}
