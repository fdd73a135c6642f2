//! Remembered file digests, so opening a project whose plugins did not change does
//! not hash their components again (a 1 MiB component costs about a millisecond).
//!
//! A digest is reused only while the file's identity and change time are what they
//! were (device, inode, size, and the status-change time, which no process can set
//! back), so any write to the file hashes it anew. Kept in the data directory
//! (`cache/trust-digests`), which nothing Ward runs can reach; a cache that cannot be
//! read or written only costs the hashing.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The digests known, and where they are kept.
pub(crate) struct Digests {
    file: Option<PathBuf>,
    known: BTreeMap<String, String>,
    used: BTreeMap<String, String>,
}

impl Digests {
    /// The digests remembered in the data directory `data_dir` (none without one).
    pub(crate) fn load(data_dir: Option<&Path>) -> Self {
        let file = data_dir.map(|dir| dir.join("cache").join("trust-digests"));
        let known = file
            .as_ref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .map(|text| {
                text.lines()
                    .filter_map(|line| line.rsplit_once('\t'))
                    .map(|(key, digest)| (key.to_owned(), digest.to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        Digests {
            file,
            known,
            used: BTreeMap::new(),
        }
    }

    /// The SHA-256 of the file at `path`, whose metadata is `meta`, in hex.
    pub(crate) fn of(&mut self, path: &Path, meta: &std::fs::Metadata) -> Option<String> {
        let key = format!(
            "{}\0{}:{}:{}:{}.{}",
            path.display(),
            meta.dev(),
            meta.ino(),
            meta.len(),
            meta.ctime(),
            meta.ctime_nsec()
        )
        .replace(['\t', '\n'], " ");
        let digest = match self.known.get(&key) {
            Some(digest) => digest.clone(),
            None => hex(&Sha256::digest(std::fs::read(path).ok()?)),
        };
        // A file changed within the clock's coarse tick of now could change again
        // with the same change time (as git's "racy" entries): not remembered yet.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let settled = u64::try_from(meta.ctime()).is_ok_and(|ctime| ctime + 2 < now);
        if settled {
            self.used.insert(key, digest.clone());
        }
        Some(digest)
    }

    /// Keeps the digests used this time (only those: the cache never outgrows the
    /// project's plugins), when they differ from what was kept.
    pub(crate) fn save(self) {
        let Some(file) = self.file else {
            return;
        };
        if self.used == self.known {
            return;
        }
        let text: String = self
            .used
            .iter()
            .map(|(key, digest)| format!("{key}\t{digest}\n"))
            .collect();
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let temporary = file.with_extension(format!("{}", std::process::id()));
        if std::fs::write(&temporary, text).is_ok() {
            let _ = std::fs::rename(&temporary, &file);
        }
    }
}

/// `bytes` in lowercase hexadecimal.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
