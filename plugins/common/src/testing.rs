//! A throw-away directory for the tools' native unit tests (no `tempfile` dependency).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A unique directory under the system temp dir, removed (best effort) when dropped.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `<tmp>/ward-<label>-<pid>-<n>-<nanos>`.
    pub fn new(label: &str) -> std::io::Result<Self> {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path =
            std::env::temp_dir().join(format!("ward-{label}-{}-{n}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path)?;
        Ok(TempDir { path })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory as a string, as tools receive `context.directory`.
    pub fn dir(&self) -> String {
        self.path.to_string_lossy().into_owned()
    }

    /// Writes `content` to `rel` (creating parent directories) and returns its path.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> std::io::Result<PathBuf> {
        let path = self.path.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, content)?;
        Ok(path)
    }

    /// Reads `rel` as a string.
    pub fn read(&self, rel: &str) -> std::io::Result<String> {
        std::fs::read_to_string(self.path.join(rel))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
