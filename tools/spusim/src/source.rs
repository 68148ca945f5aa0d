//! Reading the program: at most [`MAX_SOURCE_BYTES`] (UTF-8 text for an assembly source, any
//! bytes for an ELF file), and never a wait without end.
//!
//! The program may be any file the user names, including a device (`/dev/zero` never ends)
//! or a pipe (`<(generator)`, a FIFO) whose writer never stops or never closes. So the read is
//! capped in size, and it runs on its own thread, which sends the chunks it reads: when none
//! arrives for the read timeout (opening a FIFO without a writer blocks as well), spusim gives
//! up with a message. The stuck thread is left behind; spusim exits right after.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::thread;
use std::time::Duration;

use crate::exit::Failure;
use crate::options::Options;

/// The largest program source spusim reads: 16 MiB (the local store holds 256 KiB of code;
/// generous room for comments and data directives).
pub const MAX_SOURCE_BYTES: usize = 16 * 1024 * 1024;

/// Bytes the reader thread sends at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// The program's bytes as UTF-8 text (an assembly source).
pub fn as_text<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, Failure> {
    std::str::from_utf8(bytes).map_err(|error| {
        Failure::Io(format!(
            "cannot read `{}`: not UTF-8 text (the first invalid byte is at offset {})",
            path.display(),
            error.valid_up_to()
        ))
    })
}

/// The program's files: the program, then the sources linked with it, in order.
pub fn program_files(options: &Options) -> Vec<&Path> {
    std::iter::once(options.program.as_path())
        .chain(options.link.more_sources.iter().map(|p| p.as_path()))
        .collect()
}

/// Reads every file of the program ([`program_files`]), each as [`read_program`] does.
pub fn read_programs(options: &Options) -> Result<Vec<Vec<u8>>, Failure> {
    program_files(options)
        .into_iter()
        .map(|path| read_program(path, options.read_timeout))
        .collect()
}

/// Reads the program at `path` as bytes (an assembly source or an ELF file); `timeout`: the
/// longest wait for the next chunk.
pub fn read_program(path: &Path, timeout: Duration) -> Result<Vec<u8>, Failure> {
    let shown = path.display();
    let refuse = |why: String| Failure::Io(format!("cannot read `{shown}`: {why}"));
    // Room for a few chunks, so the reader keeps going while this thread copies.
    let (sender, receiver) = mpsc::sync_channel(4);
    let owned = path.to_path_buf();
    thread::Builder::new()
        .name("spusim-read".into())
        .spawn(move || send_chunks(&owned, &sender))
        .map_err(|error| refuse(format!("cannot start the reader thread: {error}")))?;
    let mut bytes = Vec::new();
    loop {
        match receiver.recv_timeout(timeout) {
            Ok(Ok(chunk)) => {
                bytes.extend_from_slice(&chunk);
                if bytes.len() > MAX_SOURCE_BYTES {
                    return Err(refuse(format!(
                        "larger than the {} MiB a program source may have",
                        MAX_SOURCE_BYTES >> 20
                    )));
                }
            }
            Ok(Err(error)) => return Err(refuse(error.to_string())),
            Err(RecvTimeoutError::Disconnected) => return Ok(bytes),
            Err(RecvTimeoutError::Timeout) => {
                return Err(refuse(format!(
                    "no data and no end of file for {} s (a pipe whose writer never \
                     closes?); --read-timeout sets the wait",
                    timeout.as_secs()
                )));
            }
        }
    }
}

/// The reader thread: sends the file in chunks, then ends (closing the channel) at the end
/// of file, after an error, after `MAX_SOURCE_BYTES + 1` bytes, or when nobody listens.
fn send_chunks(path: &Path, sender: &SyncSender<io::Result<Vec<u8>>>) {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(error) => {
            let _ = sender.send(Err(error));
            return;
        }
    };
    // One byte past the cap is enough to know the source is too large.
    let mut limited = file.take(MAX_SOURCE_BYTES as u64 + 1);
    loop {
        let mut chunk = vec![0; CHUNK_BYTES];
        match limited.read(&mut chunk) {
            Ok(0) => return,
            Ok(len) => {
                chunk.truncate(len);
                if sender.send(Ok(chunk)).is_err() {
                    return;
                }
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => {
                let _ = sender.send(Err(error));
                return;
            }
        }
    }
}
