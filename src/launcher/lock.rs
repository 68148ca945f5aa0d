//! One set-up at a time on a machine: a lock directory under `target/`.
//!
//! `create_dir` is atomic, so the process that creates the directory holds the lock; the others
//! wait. A lock older than [`STALE`] was left by a process that died and is taken over.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// No set-up takes this long (installing QEMU takes about a minute).
const STALE: Duration = Duration::from_secs(20 * 60);

/// Holds the lock until dropped.
pub struct SetupLock {
    path: PathBuf,
}

impl SetupLock {
    /// Waits for the lock in `dir` (created if missing).
    pub fn acquire(dir: &Path) -> Result<SetupLock, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join(".pmprobe-setup.lock");
        loop {
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(SetupLock { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let age = std::fs::metadata(&path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| SystemTime::now().duration_since(t).ok());
                    if age.is_some_and(|age| age > STALE) {
                        let _ = std::fs::remove_dir(&path);
                    } else {
                        std::thread::sleep(Duration::from_millis(200));
                    }
                }
                Err(e) => return Err(format!("cannot create {}: {e}", path.display())),
            }
        }
    }
}

impl Drop for SetupLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.path);
    }
}
