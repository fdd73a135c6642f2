//! The tree last written from the store's index, remembered with the index file's
//! identity (inode, size, modification time) at that moment, so a snapshot that
//! finds nothing changed can return it without running `git write-tree`.
//!
//! Any change to the index — ours, a restore, a process killed halfway, a person
//! running git on the store — gives it a new identity (git rewrites the index
//! through a temporary file and a rename), and the record no longer applies.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Where the record is kept: a file in the store beside the index.
#[derive(Clone, Debug)]
pub(crate) struct LastTree {
    record: PathBuf,
    index: PathBuf,
}

impl LastTree {
    pub(crate) fn new(git_dir: &Path) -> LastTree {
        LastTree {
            record: git_dir.join("ward-last-tree"),
            index: git_dir.join("index"),
        }
    }

    /// The index's identity now; `None` if it cannot be read.
    fn identity(&self) -> Option<String> {
        let meta = std::fs::symlink_metadata(&self.index).ok()?;
        Some(format!(
            "{} {} {} {}",
            meta.ino(),
            meta.len(),
            meta.mtime(),
            meta.mtime_nsec()
        ))
    }

    /// The tree recorded for the index as it is now, if there is one.
    pub(crate) fn read(&self) -> Option<String> {
        let text = std::fs::read_to_string(&self.record).ok()?;
        let (hash, identity) = text.split_once('\n')?;
        let valid = hash.len() >= 40 && hash.bytes().all(|b| b.is_ascii_hexdigit());
        (valid && Some(identity) == self.identity().as_deref()).then(|| hash.to_string())
    }

    /// Records `hash` as the tree of the index as it is now. A failure only costs
    /// the next snapshot a `write-tree`.
    pub(crate) fn write(&self, hash: &str) {
        let Some(identity) = self.identity() else {
            return;
        };
        let temporary = self.record.with_extension("tmp");
        if std::fs::write(&temporary, format!("{hash}\n{identity}")).is_ok() {
            let _ = std::fs::rename(&temporary, &self.record);
        }
    }
}
