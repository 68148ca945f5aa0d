//! The PS3's `spu_printf` server: the host side of the SDK's print request.
//!
//! The SPU's stub stores the format pointer and up to fifteen arguments as quadwords below its
//! stack pointer, writes their address to `SPU_WrOutMbox` and sends an lv2 event on port 1 (or,
//! on a raw SPU, raises the interrupt mailbox); the server on the PPU formats from the local
//! store, prints, and answers the call with printf's return value in `SPU_RdInMbox`.

use super::error::RuntimeError;
use super::output::{LimitedSink, Notice, ProgramOutput, Stream};
use super::printf::{self, LsString, QuadwordArguments};
use crate::spu::exec::LocalStore;

/// The lv2 event port the SDK's `spu_printf` sends on (`EVENT_PRINTF_PORT`).
pub const PRINTF_PORT: u8 = 1;

/// Prints the request whose block is at LS address `block` (quadword 0: the format's address in
/// its preferred slot; then one quadword per argument); printf's return value as the SPU reads
/// it (-1 for a refused format).
pub(crate) fn serve(
    local_store: &LocalStore,
    block: u32,
    output: &mut dyn ProgramOutput,
) -> Result<u32, RuntimeError> {
    let format_address = local_store.load_word(block & !15);
    let mut arguments = QuadwordArguments::new(local_store, (block & !15).wrapping_add(16));
    let mut sink = LimitedSink::new(output, Stream::Stdout);
    let result = printf::format(
        &LsString::new(local_store, format_address),
        local_store,
        &mut arguments,
        &mut sink,
    );
    let answer = match result {
        Ok(printed) => u32::try_from(printed).unwrap_or(u32::MAX),
        Err(error) => {
            sink.output().notice(Notice::PrintfRefused(error));
            u32::MAX
        }
    };
    sink.finish()?;
    Ok(answer)
}
