//! Attachment bytes, stored once: a content-addressed directory of files.
//!
//! A file part refers to its bytes by a `ward-blob:sha256:<hex>` URL
//! ([`Blobs::url`]) instead of carrying a `data:` URL, so a 5 MiB image read by
//! a tool is kept once however often it is sent, and loading a session's
//! history never reads image bytes. Files, not SQLite rows: the message table
//! stays small and fast to scan, the same bytes attached in many sessions are
//! one file, and no schema migration is needed. A blob is written to a
//! temporary name and renamed into place, so a crash never leaves a partial
//! blob under its hash; a hash whose file is gone reads as [`BlobError::Missing`].

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

/// The URL scheme of a stored blob.
pub const BLOB_SCHEME: &str = "ward-blob:sha256:";

/// What can go wrong reading or writing a blob.
#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    /// The file system refused.
    #[error("attachment store {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The URL is not a blob URL, or its hash is not 64 hex digits.
    #[error("not an attachment reference: {0}")]
    NotABlob(String),
    /// No blob has this hash (it was deleted by hand, or the data directory changed).
    #[error("attachment {0} is no longer stored")]
    Missing(String),
}

/// The blob directory (`$WARD_DATA_DIR/blobs`).
#[derive(Clone, Debug)]
pub struct Blobs {
    dir: PathBuf,
}

impl Blobs {
    /// Blobs kept under `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Blobs { dir: dir.into() }
    }

    /// Stores `bytes` (once: the same bytes again are not written twice) and
    /// returns the URL that refers to them.
    pub fn put(&self, bytes: &[u8]) -> Result<String, BlobError> {
        let hash = hex(&Sha256::digest(bytes));
        let path = self.path(&hash);
        if !path.is_file() {
            let io = |source| BlobError::Io {
                path: path.clone(),
                source,
            };
            let parent = path.parent().unwrap_or(&self.dir);
            std::fs::create_dir_all(parent).map_err(io)?;
            // A name of its own per write: two threads storing the same bytes at
            // once must not write into one temporary file and rename it half done.
            static WRITES: AtomicU64 = AtomicU64::new(0);
            let n = WRITES.fetch_add(1, Ordering::Relaxed);
            let tmp = parent.join(format!(".{hash}.{}.{n}.tmp", std::process::id()));
            let write = || -> std::io::Result<()> {
                let mut file = std::fs::File::create(&tmp)?;
                file.write_all(bytes)?;
                file.sync_all()?;
                std::fs::rename(&tmp, &path)
            };
            if let Err(e) = write() {
                let _ = std::fs::remove_file(&tmp);
                return Err(io(e));
            }
        }
        Ok(format!("{BLOB_SCHEME}{hash}"))
    }

    /// The bytes `url` refers to.
    pub fn get(&self, url: &str) -> Result<Vec<u8>, BlobError> {
        let hash = hash_of(url).ok_or_else(|| BlobError::NotABlob(url.to_string()))?;
        let path = self.path(hash);
        std::fs::read(&path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => BlobError::Missing(url.to_string()),
            _ => BlobError::Io { path, source },
        })
    }

    /// Removes the blob `url` refers to; one already gone is not an error (a
    /// retried removal).
    pub fn remove(&self, url: &str) -> Result<(), BlobError> {
        let hash = hash_of(url).ok_or_else(|| BlobError::NotABlob(url.to_string()))?;
        let path = self.path(hash);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(BlobError::Io { path, source }),
        }
    }

    /// Where the blob `hash` lives: fanned out by its first two digits.
    fn path(&self, hash: &str) -> PathBuf {
        self.dir.join(&hash[..2]).join(hash)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Whether `url` refers to a stored blob.
pub fn is_blob(url: &str) -> bool {
    url.starts_with(BLOB_SCHEME)
}

/// The hash of a well-formed blob URL (64 lower-case hex digits, nothing else: a
/// URL from a stored part must never name a path outside the blob directory).
fn hash_of(url: &str) -> Option<&str> {
    let hash = url.strip_prefix(BLOB_SCHEME)?;
    let ok = hash.len() == 64 && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    ok.then_some(hash)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_bytes_are_stored_once_and_read_back() {
        let dir = std::env::temp_dir().join(format!("ward-blobs-{}", std::process::id()));
        let blobs = Blobs::new(&dir);
        let a = blobs.put(b"\x89PNG data").unwrap();
        let b = blobs.put(b"\x89PNG data").unwrap();
        assert_eq!(a, b);
        assert!(is_blob(&a));
        assert_eq!(blobs.get(&a).unwrap(), b"\x89PNG data");
        let files: usize = std::fs::read_dir(&dir)
            .unwrap()
            .map(|d| std::fs::read_dir(d.unwrap().path()).unwrap().count())
            .sum();
        assert_eq!(files, 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_same_bytes_stored_by_many_threads_at_once_come_back_whole() {
        let bytes: Vec<u8> = (0..4u32 << 20).map(|i| (i % 251) as u8).collect();
        for round in 0..5 {
            let dir = std::env::temp_dir()
                .join(format!("ward-blobs-race-{}-{round}", std::process::id()));
            let blobs = Blobs::new(&dir);
            let urls: Vec<Result<String, String>> = std::thread::scope(|s| {
                let workers: Vec<_> = (0..6)
                    .map(|_| s.spawn(|| blobs.put(&bytes).map_err(|e| e.to_string())))
                    .collect();
                workers.into_iter().map(|w| w.join().unwrap()).collect()
            });
            for url in &urls {
                let url = url.as_ref().expect("every put succeeds");
                assert!(blobs.get(url).unwrap() == bytes, "round {round}: torn blob");
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    #[test]
    fn a_reference_cannot_name_a_path() {
        let blobs = Blobs::new("/nonexistent");
        for url in [
            "ward-blob:sha256:../../etc/passwd",
            "ward-blob:sha256:",
            "data:image/png;base64,AA==",
            &format!("{BLOB_SCHEME}{}", "A".repeat(64)),
        ] {
            assert!(
                matches!(blobs.get(url), Err(BlobError::NotABlob(_))),
                "{url}"
            );
        }
        let missing = format!("{BLOB_SCHEME}{}", "0".repeat(64));
        assert!(matches!(blobs.get(&missing), Err(BlobError::Missing(_))));
    }
}
