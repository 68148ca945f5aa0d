//! The PPE-assisted calls the libspe2 runtime performs: the C99 class's stdio output calls and
//! POSIX.1 `write`, with libspe2's opcode numbers (`spebase/default_c99_handler.c`,
//! `default_posix1_handler.c`; newlib's SPU port sends the same numbers).

use super::error::RuntimeError;
use super::output::{LimitedSink, Notice, ProgramOutput, Stream};
use super::printf::{self, LsString, PrintfSink, VaListArguments};
use crate::spu::exec::{LS_SIZE, LocalStore};

/// Class 0: the C99 library.
pub const CLASS_C99: u8 = 0x00;
/// Class 1: POSIX.1.
pub const CLASS_POSIX1: u8 = 0x01;

/// C99 opcodes performed.
pub mod c99 {
    /// `fflush(fp)`.
    pub const FFLUSH: u8 = 5;
    /// `fputc(c, fp)`.
    pub const FPUTC: u8 = 11;
    /// `fputs(s, fp)`.
    pub const FPUTS: u8 = 12;
    /// `fwrite(ptr, size, nmemb, fp)`.
    pub const FWRITE: u8 = 18;
    /// `putc(c, fp)`.
    pub const PUTC: u8 = 23;
    /// `putchar(c)`.
    pub const PUTCHAR: u8 = 24;
    /// `puts(s)`.
    pub const PUTS: u8 = 25;
    /// `vfprintf(fp, fmt, ap)` (and `fprintf`).
    pub const VFPRINTF: u8 = 35;
    /// `vprintf(fmt, ap)` (and `printf`).
    pub const VPRINTF: u8 = 37;
    /// `vsnprintf(str, size, fmt, ap)` (and `snprintf`).
    pub const VSNPRINTF: u8 = 39;
    /// `vsprintf(str, fmt, ap)` (and `sprintf`).
    pub const VSPRINTF: u8 = 40;
}

/// POSIX.1 `write(fd, buf, count)`.
pub const POSIX1_WRITE: u8 = 27;

/// Linux's `EBADF`.
const EBADF: u32 = 9;
/// Linux's `EFAULT`.
const EFAULT: u32 = 14;
/// C's `EOF`.
const EOF: u32 = u32::MAX;

/// What a call returns to the SPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CallResult {
    pub(crate) value: u32,
    pub(crate) errno: u32,
}

const fn ok(value: u32) -> CallResult {
    CallResult { value, errno: 0 }
}

const fn failed(value: u32, errno: u32) -> CallResult {
    CallResult { value, errno }
}

/// The SPU's `FILE` handles: 1 stdin, 2 stdout, 3 stderr.
fn stream_of_file(handle: u32) -> Option<Stream> {
    match handle {
        2 => Some(Stream::Stdout),
        3 => Some(Stream::Stderr),
        _ => None,
    }
}

/// POSIX file descriptors: 1 stdout, 2 stderr.
fn stream_of_descriptor(fd: u32) -> Option<Stream> {
    match fd {
        1 => Some(Stream::Stdout),
        2 => Some(Stream::Stderr),
        _ => None,
    }
}

/// Argument `index` of the block: the preferred word of its quadword.
fn argument(local_store: &LocalStore, block: u32, index: u32) -> u32 {
    local_store.load_word(block.wrapping_add(16 * index))
}

/// Writes `len` LS bytes from `address`; `None` if they pass the end of the local store.
fn write_bytes(
    local_store: &LocalStore,
    address: u32,
    len: u64,
    stream: Stream,
    output: &mut dyn ProgramOutput,
) -> Result<Option<()>, RuntimeError> {
    let start = u64::from(address % LS_SIZE);
    if start + len > u64::from(LS_SIZE) {
        return Ok(None);
    }
    let mut sink = LimitedSink::new(output, stream);
    let mut chunk = [0u8; 64];
    let mut at = start as u32;
    let mut left = len as usize;
    while left > 0 {
        let now = left.min(chunk.len());
        for (offset, byte) in chunk[..now].iter_mut().enumerate() {
            *byte = local_store.load_byte(at + offset as u32);
        }
        sink.put(&chunk[..now]);
        at += now as u32;
        left -= now;
    }
    sink.finish()?;
    Ok(Some(()))
}

/// Writes a NUL-terminated LS string (and `suffix`); its length.
fn write_string(
    local_store: &LocalStore,
    address: u32,
    suffix: &[u8],
    stream: Stream,
    output: &mut dyn ProgramOutput,
) -> Result<usize, RuntimeError> {
    let mut sink = LimitedSink::new(output, stream);
    let mut len = 0;
    let mut chunk = [0u8; 64];
    let mut filled = 0;
    for byte in LsString::new(local_store, address).bytes() {
        chunk[filled] = byte;
        filled += 1;
        len += 1;
        if filled == chunk.len() {
            sink.put(&chunk);
            filled = 0;
        }
    }
    sink.put(&chunk[..filled]);
    sink.put(suffix);
    sink.finish()?;
    Ok(len)
}

/// `vprintf`-style: formats `format` with the `va_list` at `va_list` into `stream`.
fn print(
    local_store: &LocalStore,
    format: u32,
    va_list: u32,
    stream: Stream,
    output: &mut dyn ProgramOutput,
) -> Result<CallResult, RuntimeError> {
    let mut arguments = VaListArguments::at(local_store, va_list);
    let mut sink = LimitedSink::new(output, stream);
    let result = printf::format(
        &LsString::new(local_store, format),
        local_store,
        &mut arguments,
        &mut sink,
    );
    let value = match result {
        Ok(printed) => u32::try_from(printed).unwrap_or(u32::MAX),
        Err(error) => {
            sink.output().notice(Notice::PrintfRefused(error));
            u32::MAX
        }
    };
    sink.finish()?;
    Ok(ok(value))
}

/// A sink into the local store from `address`, keeping at most `capacity` bytes (one of which
/// is the NUL [`finish`](Self::finish) writes).
struct LsStringSink<'a> {
    local_store: &'a mut LocalStore,
    at: u32,
    room: u64,
}

impl PrintfSink for LsStringSink<'_> {
    fn put(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if self.room <= 1 {
                return;
            }
            self.local_store.store_byte(self.at, byte);
            self.at = (self.at + 1) % LS_SIZE;
            self.room -= 1;
        }
    }
}

impl LsStringSink<'_> {
    fn finish(self) {
        if self.room >= 1 {
            self.local_store.store_byte(self.at, 0);
        }
    }
}

/// The most bytes `vsprintf`/`vsnprintf` write into the local store in one call (the text is
/// formatted into a buffer of this size first); the rest is dropped and reported.
pub const MAX_STRING_PRINT_BYTES: usize = 4096;

/// Collects formatted text, counting what does not fit.
struct Collect {
    text: heapless::Vec<u8, MAX_STRING_PRINT_BYTES>,
    dropped: u64,
}

impl PrintfSink for Collect {
    fn put(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if self.text.push(byte).is_err() {
                self.dropped += 1;
            }
        }
    }
}

/// `vsprintf`/`vsnprintf`: formats into the local store, at most `capacity` bytes with the NUL.
/// The text is made before its first byte is stored, so a destination that overlaps the format
/// or the arguments (undefined in C) cannot change it.
fn print_to_local_store(
    local_store: &mut LocalStore,
    destination: u32,
    capacity: u64,
    format: u32,
    va_list: u32,
    output: &mut dyn ProgramOutput,
) -> CallResult {
    let mut collect = Collect {
        text: heapless::Vec::new(),
        dropped: 0,
    };
    let mut arguments = VaListArguments::at(local_store, va_list);
    let result = printf::format(
        &LsString::new(local_store, format),
        local_store,
        &mut arguments,
        &mut collect,
    );
    if collect.dropped > 0 {
        output.notice(Notice::PrintTruncated {
            dropped: collect.dropped,
        });
    }
    let value = match result {
        Ok(printed) => u32::try_from(printed).unwrap_or(u32::MAX),
        Err(error) => {
            output.notice(Notice::PrintfRefused(error));
            u32::MAX
        }
    };
    let mut sink = LsStringSink {
        local_store,
        at: destination % LS_SIZE,
        room: capacity,
    };
    sink.put(&collect.text);
    sink.finish();
    ok(value)
}

/// Performs call `opcode` of `class` with the argument block at `block`; `None` for a call this
/// runtime does not perform.
pub(crate) fn perform(
    local_store: &mut LocalStore,
    class: u8,
    opcode: u8,
    block: u32,
    output: &mut dyn ProgramOutput,
) -> Result<Option<CallResult>, RuntimeError> {
    let arg = |index| argument(local_store, block, index);
    let result = match (class, opcode) {
        (CLASS_C99, c99::PUTCHAR) => {
            let c = arg(0);
            write_character(c, Some(Stream::Stdout), output)?
        }
        (CLASS_C99, c99::FPUTC | c99::PUTC) => {
            let c = arg(0);
            write_character(c, stream_of_file(arg(1)), output)?
        }
        (CLASS_C99, c99::PUTS) => {
            let len = write_string(local_store, arg(0), b"\n", Stream::Stdout, output)?;
            ok(u32::try_from(len + 1).unwrap_or(u32::MAX))
        }
        (CLASS_C99, c99::FPUTS) => match stream_of_file(arg(1)) {
            Some(stream) => {
                write_string(local_store, arg(0), b"", stream, output)?;
                ok(1)
            }
            None => failed(EOF, EBADF),
        },
        (CLASS_C99, c99::FWRITE) => {
            let (pointer, size, count) = (arg(0), arg(1), arg(2));
            match stream_of_file(arg(3)) {
                Some(stream) => {
                    let len = u64::from(size) * u64::from(count);
                    match write_bytes(local_store, pointer, len, stream, output)? {
                        Some(()) => ok(count),
                        None => failed(0, EFAULT),
                    }
                }
                None => failed(0, EBADF),
            }
        }
        (CLASS_C99, c99::FFLUSH) => match arg(0) {
            0 | 2 | 3 => ok(0),
            _ => failed(EOF, EBADF),
        },
        (CLASS_C99, c99::VPRINTF) => {
            print(local_store, arg(0), block + 16, Stream::Stdout, output)?
        }
        (CLASS_C99, c99::VFPRINTF) => match stream_of_file(arg(0)) {
            Some(stream) => print(local_store, arg(1), block + 32, stream, output)?,
            None => failed(u32::MAX, EBADF),
        },
        (CLASS_C99, c99::VSPRINTF) => {
            let (destination, format) = (arg(0), arg(1));
            print_to_local_store(
                local_store,
                destination,
                u64::MAX,
                format,
                block + 32,
                output,
            )
        }
        (CLASS_C99, c99::VSNPRINTF) => {
            let (destination, size, format) = (arg(0), arg(1), arg(2));
            print_to_local_store(
                local_store,
                destination,
                u64::from(size),
                format,
                block + 48,
                output,
            )
        }
        (CLASS_POSIX1, POSIX1_WRITE) => {
            let (fd, buffer, count) = (arg(0), arg(1), arg(2));
            match stream_of_descriptor(fd) {
                Some(stream) => {
                    match write_bytes(local_store, buffer, u64::from(count), stream, output)? {
                        Some(()) => ok(count),
                        None => failed(u32::MAX, EFAULT),
                    }
                }
                None => failed(u32::MAX, EBADF),
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(result))
}

/// `putc`-style: writes the character's low byte; C returns it as an unsigned char.
fn write_character(
    c: u32,
    stream: Option<Stream>,
    output: &mut dyn ProgramOutput,
) -> Result<CallResult, RuntimeError> {
    let Some(stream) = stream else {
        return Ok(failed(EOF, EBADF));
    };
    let byte = c as u8;
    output.write(stream, &[byte])?;
    Ok(ok(u32::from(byte)))
}
