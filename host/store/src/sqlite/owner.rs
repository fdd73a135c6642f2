//! Who may repair the database: the lock file next to it.
//!
//! Every process running sessions on a database holds a shared lock on
//! `<database>.lock` for as long as its store is open. Recovery needs the exclusive
//! lock, which it gets only when no other such process is alive — so a second
//! `ward run` on the same data directory never marks the first one's running tools as
//! interrupted, while after a crash (the kernel drops a dead process's locks) the next
//! start repairs what was left.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

use crate::error::{Result, StoreError};

/// A held lock on the database's lock file; released when dropped.
#[derive(Debug)]
pub(crate) struct Owner {
    _file: File,
}

impl Owner {
    /// Takes the lock for the database at `db`. Runs `recover` first, under the
    /// exclusive lock, if no other process holds one; otherwise skips it.
    pub(crate) fn claim<T>(
        db: &Path,
        recover: impl FnOnce() -> Result<T>,
    ) -> Result<(Owner, Option<T>)> {
        let mut name = db.as_os_str().to_owned();
        name.push(".lock");
        let path = Path::new(&name);
        let io = |source| StoreError::Io {
            path: path.display().to_string(),
            source,
        };
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(io)?;
        let recovered = match file.try_lock() {
            Ok(()) => Some(recover()?),
            Err(TryLockError::WouldBlock) => None,
            Err(TryLockError::Error(e)) => return Err(io(e)),
        };
        // Downgrading (or waiting for a recovering process to finish) keeps every live
        // owner visible to the next process that considers recovering.
        file.lock_shared().map_err(io)?;
        Ok((Owner { _file: file }, recovered))
    }
}
