//! Files on the host through semihosting (the trace files, the Konata log, the profile) (relative to QEMU's working directory,
//! the repository root under `cargo run`). Semihosting cannot create directories, so the
//! files go straight into the working directory as `pmprobe-demo-*`.

use core::fmt;

use pmprobe::rt::semihosting::{HostError, HostFile};

/// Bytes collected before each SYS_WRITE (one trap per 4 KiB instead of one per line).
const CHUNK: usize = 4096;

/// A host file with a write buffer.
pub struct BufferedHostFile {
    file: HostFile,
    buffer: heapless::Vec<u8, CHUNK>,
    written: usize,
    error: Option<HostError>,
}

impl BufferedHostFile {
    /// Creates (or truncates) `path`.
    pub fn create(path: &str) -> Result<Self, HostError> {
        Ok(Self {
            file: HostFile::create(path)?,
            buffer: heapless::Vec::new(),
            written: 0,
            error: None,
        })
    }

    fn flush(&mut self) -> Result<(), HostError> {
        if !self.buffer.is_empty() {
            self.file.write_all(&self.buffer)?;
            self.written += self.buffer.len();
            self.buffer.clear();
        }
        Ok(())
    }

    /// Writes what is buffered, closes the file and returns the bytes written.
    pub fn finish(mut self) -> Result<usize, HostError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        self.flush()?;
        let written = self.written;
        self.file.close()?;
        Ok(written)
    }
}

impl fmt::Write for BufferedHostFile {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &byte in s.as_bytes() {
            if self.buffer.is_full()
                && let Err(error) = self.flush()
            {
                self.error = Some(error);
                return Err(fmt::Error);
            }
            // Cannot fail: the buffer was flushed when full.
            let _ = self.buffer.push(byte);
        }
        Ok(())
    }
}
