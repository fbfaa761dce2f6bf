//! An exclusive lock held for as long as one process prepares a backend. The operating system
//! releases it when the holder exits, however it exits, so a killed build never leaves a lock
//! behind that needs cleaning up.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// A held lock; dropping it releases it.
#[derive(Debug)]
pub struct Lock {
    _file: File,
    pub path: PathBuf,
}

impl Lock {
    /// Takes the lock at `path`, waiting (and saying so) while another process holds it.
    pub fn acquire(path: &Path, what: &str) -> Result<Lock> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .with_context(|| format!("opening the lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                eprintln!("waiting for another process preparing {what} (lock {})", path.display());
                file.lock().with_context(|| format!("locking {}", path.display()))?;
            }
            Err(TryLockError::Error(error)) => {
                return Err(error).with_context(|| format!("locking {}", path.display()));
            }
        }
        Ok(Lock { _file: file, path: path.to_owned() })
    }
}
