//! Test helpers: throwaway directories and a fixed environment.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A directory under the system temp dir, removed on drop.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ward-config-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // Canonical, so paths compare equal to what the loader computes.
        Self(std::fs::canonicalize(&dir).unwrap())
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `text` to `rel`, creating parent directories; returns the path.
    pub(crate) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fixed environment for `EnvLookup`.
pub(crate) fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

/// Loads `cwd` as a user who trusts the project: what it asks for now is recorded
/// as trusted in the data directory `env` names, then it is loaded again.
pub(crate) fn load_trusted(
    cwd: &Path,
    env: crate::substitute::EnvLookup<'_>,
) -> Result<crate::LoadedConfig, crate::ConfigError> {
    use crate::trust::record::{self, Decision, Records};
    let first = crate::load::load_with_env(cwd, env)?;
    let file = record::data_dir(env).unwrap().join(record::FILE_NAME);
    let mut records = Records::load(&file).unwrap();
    records.decide(&first.trust, Decision::Trusted);
    records.save(&file).unwrap();
    crate::load::load_with_env(cwd, env)
}
