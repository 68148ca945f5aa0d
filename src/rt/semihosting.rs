//! Arm semihosting (AArch64: `hlt #0xf000`), enabled in QEMU by `-semihosting`.
//!
//! Used to end the session with a status code and to write files on the host (the demo writes its
//! memory trace and pipeline log this way), and to read the guest command line (`qemu/run ELF
//! ARGS...` passes ARGS through `-semihosting-config arg=...`). Paths are relative to QEMU's
//! working directory.
use core::arch::asm;

const SYS_OPEN: u64 = 0x01;
const SYS_CLOSE: u64 = 0x02;
const SYS_WRITE: u64 = 0x05;
const SYS_GET_CMDLINE: u64 = 0x15;
const SYS_EXIT: u64 = 0x18;
const ADP_STOPPED_APPLICATION_EXIT: u64 = 0x2_0026;

/// Performs semihosting call `op` with parameter `arg` (a value or a pointer to a parameter block).
///
/// # Safety
/// `arg` must be what the call `op` expects; any pointed-to block must stay valid for the call.
unsafe fn call(op: u64, arg: u64) -> i64 {
    let ret: i64;
    // SAFETY: the caller guarantees `arg` matches `op`; `hlt #0xf000` is the AArch64 semihosting
    // trap, which QEMU services without touching any register other than x0.
    unsafe {
        asm!("hlt #0xf000", inout("x0") op => ret, in("x1") arg, options(nostack));
    }
    ret
}

/// Ends QEMU with `status` as its exit status (SYS_EXIT with ADP_Stopped_ApplicationExit).
pub fn exit(status: u32) -> ! {
    let block = [ADP_STOPPED_APPLICATION_EXIT, u64::from(status)];
    // SAFETY: SYS_EXIT takes a pointer to a two-word block, alive for the call.
    unsafe {
        call(SYS_EXIT, block.as_ptr() as u64);
    }
    // Without -semihosting the trap is a no-op or an exception; never return either way.
    loop {
        aarch64_cpu::asm::wfe();
    }
}

/// A semihosting failure: the host returned -1 for the named operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostError {
    /// Which call failed ("open", "write", "close").
    pub operation: &'static str,
}

impl core::fmt::Display for HostError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "semihosting {} failed", self.operation)
    }
}

/// A file on the host, opened for writing (created or truncated).
#[derive(Debug)]
pub struct HostFile {
    handle: u64,
}

impl HostFile {
    /// Creates (or truncates) `path` on the host. `path` must be at most 255 bytes.
    pub fn create(path: &str) -> Result<Self, HostError> {
        const FAIL: HostError = HostError { operation: "open" };
        // SYS_OPEN wants a NUL-terminated name.
        let mut name = [0u8; 256];
        let bytes = path.as_bytes();
        if bytes.len() >= name.len() || bytes.contains(&0) {
            return Err(FAIL);
        }
        name[..bytes.len()].copy_from_slice(bytes);
        const MODE_WRITE_BINARY: u64 = 5; // "wb"
        let block = [name.as_ptr() as u64, MODE_WRITE_BINARY, bytes.len() as u64];
        // SAFETY: SYS_OPEN takes {name pointer, mode, name length}; both live for the call.
        let handle = unsafe { call(SYS_OPEN, block.as_ptr() as u64) };
        if handle < 0 {
            Err(FAIL)
        } else {
            Ok(Self {
                handle: handle as u64,
            })
        }
    }

    /// Writes all of `data`.
    pub fn write_all(&mut self, data: &[u8]) -> Result<(), HostError> {
        let block = [self.handle, data.as_ptr() as u64, data.len() as u64];
        // SAFETY: SYS_WRITE takes {handle, buffer pointer, length}; `data` lives for the call.
        let not_written = unsafe { call(SYS_WRITE, block.as_ptr() as u64) };
        if not_written == 0 {
            Ok(())
        } else {
            Err(HostError { operation: "write" })
        }
    }

    /// Closes the file, reporting a failure (dropping it closes silently).
    pub fn close(self) -> Result<(), HostError> {
        let handle = self.handle;
        core::mem::forget(self);
        let block = [handle];
        // SAFETY: SYS_CLOSE takes {handle}.
        let r = unsafe { call(SYS_CLOSE, block.as_ptr() as u64) };
        if r == 0 {
            Ok(())
        } else {
            Err(HostError { operation: "close" })
        }
    }
}

impl core::fmt::Write for HostFile {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.write_all(s.as_bytes()).map_err(|_| core::fmt::Error)
    }
}

impl Drop for HostFile {
    fn drop(&mut self) {
        let block = [self.handle];
        // SAFETY: SYS_CLOSE takes {handle}.
        unsafe {
            call(SYS_CLOSE, block.as_ptr() as u64);
        }
    }
}

/// Capacity of [`command_line`]'s result (QEMU's semihosting command line is limited the same
/// way by the buffer the guest offers).
pub const COMMAND_LINE_CAPACITY: usize = 256;

/// The guest command line (SYS_GET_CMDLINE): the program name, then the arguments given to
/// QEMU with `-semihosting-config enable=on,arg=NAME,arg=ARG...`, separated by spaces.
///
/// Without explicit `arg=` options QEMU reports the `-kernel` file name. An error means the host
/// refused the call (e.g. the line does not fit in [`COMMAND_LINE_CAPACITY`] bytes) or returned
/// text that is not UTF-8.
pub fn command_line() -> Result<heapless::String<COMMAND_LINE_CAPACITY>, HostError> {
    const FAIL: HostError = HostError {
        operation: "get_cmdline",
    };
    let mut buffer = [0u8; COMMAND_LINE_CAPACITY];
    let mut block = [buffer.as_mut_ptr() as u64, buffer.len() as u64];
    // SAFETY: SYS_GET_CMDLINE takes {buffer pointer, buffer length}; the host writes at most
    // that many bytes (NUL included) into `buffer` and the text length into the second word.
    // Both live for the call.
    let r = unsafe { call(SYS_GET_CMDLINE, block.as_mut_ptr() as u64) };
    if r != 0 {
        return Err(FAIL);
    }
    let len = usize::try_from(block[1]).map_err(|_| FAIL)?;
    let bytes = buffer.get(..len).ok_or(FAIL)?;
    let text = core::str::from_utf8(bytes).map_err(|_| FAIL)?;
    let mut line = heapless::String::new();
    line.push_str(text).map_err(|_| FAIL)?;
    Ok(line)
}
