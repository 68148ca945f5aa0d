//! Arm semihosting through the `semihosting` crate (AArch64: `hlt #0xf000`), enabled in QEMU by
//! `-semihosting`.
//!
//! Used to end the session with a status code, to write files on the host (the demo writes its
//! memory trace and pipeline log this way), and to read the guest command line (`qemu/run ELF
//! ARGS...` passes ARGS through `-semihosting-config arg=...`). Paths are relative to QEMU's
//! working directory. This module keeps pmprobe's small API (`&str` paths, errors that name the
//! operation) over the crate's `CStr`-based one.
use core::ffi::CStr;
use core::mem::MaybeUninit;
use semihosting::fs::File;
use semihosting::io::Write as _;

/// Ends QEMU with `status` as its exit status (SYS_EXIT with ADP_Stopped_ApplicationExit).
pub fn exit(status: u32) -> ! {
    semihosting::process::exit(status as i32)
}

/// A semihosting failure: the host refused the named operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostError {
    /// Which call failed ("open", "write", "close", "get_cmdline").
    pub operation: &'static str,
}

impl core::fmt::Display for HostError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "semihosting {} failed", self.operation)
    }
}

impl core::error::Error for HostError {}

/// Longest path [`HostFile::create`] takes, in bytes.
pub const MAX_PATH: usize = 255;

/// A file on the host, opened for writing (created or truncated). Dropping it closes it
/// silently; [`close`](Self::close) reports a failure.
#[derive(Debug)]
pub struct HostFile {
    file: File,
}

impl HostFile {
    /// Creates (or truncates) `path` on the host. `path` must be at most [`MAX_PATH`] bytes and
    /// contain no NUL.
    pub fn create(path: &str) -> Result<Self, HostError> {
        const FAIL: HostError = HostError { operation: "open" };
        let mut name = [0u8; MAX_PATH + 1];
        let bytes = path.as_bytes();
        name.get_mut(..bytes.len())
            .ok_or(FAIL)?
            .copy_from_slice(bytes);
        let name = CStr::from_bytes_until_nul(&name).map_err(|_| FAIL)?;
        if name.count_bytes() != bytes.len() {
            return Err(FAIL);
        }
        File::create(name)
            .map(|file| Self { file })
            .map_err(|_| FAIL)
    }

    /// Writes all of `data`.
    pub fn write_all(&mut self, data: &[u8]) -> Result<(), HostError> {
        self.file
            .write_all(data)
            .map_err(|_| HostError { operation: "write" })
    }

    /// Closes the file, reporting a failure (dropping it closes silently).
    pub fn close(self) -> Result<(), HostError> {
        let fd = semihosting::fd::OwnedFd::from(self.file);
        // SAFETY: `fd` is the file's own descriptor, taken out of the file so that nothing closes
        // it a second time.
        unsafe { semihosting::sys::arm_compat::sys_close(fd.into_raw_fd()) }
            .map_err(|_| HostError { operation: "close" })
    }
}

impl core::fmt::Write for HostFile {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.write_all(s.as_bytes()).map_err(|_| core::fmt::Error)
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
    let mut buffer = [MaybeUninit::<u8>::uninit(); COMMAND_LINE_CAPACITY];
    let bytes =
        semihosting::sys::arm_compat::sys_get_cmdline_uninit(&mut buffer).map_err(|_| FAIL)?;
    let text = core::str::from_utf8(bytes).map_err(|_| FAIL)?;
    let mut line = heapless::String::new();
    line.push_str(text).map_err(|_| FAIL)?;
    Ok(line)
}

/// Microseconds of host wall-clock time since QEMU started (SYS_ELAPSED over SYS_TICKFREQ): a
/// wall clock for measurements that the guest's own timer cannot give under `-icount`, where
/// it follows the instructions executed.
pub fn elapsed_micros() -> Result<u64, HostError> {
    const FAIL: HostError = HostError {
        operation: "elapsed",
    };
    let ticks = semihosting::sys::arm_compat::sys_elapsed().map_err(|_| FAIL)?;
    let frequency = semihosting::sys::arm_compat::sys_tickfreq().map_err(|_| FAIL)? as u64;
    if frequency == 0 {
        return Err(FAIL);
    }
    Ok((u128::from(ticks) * 1_000_000 / u128::from(frequency)) as u64)
}
