//! Where Ward keeps its state: the data directory and the compiled-component cache.

use std::path::{Path, PathBuf};

use crate::error::EngineError;

/// `WARD_DATA_DIR`, else `$XDG_DATA_HOME/ward`, else `~/.local/share/ward`: the one
/// definition `ward trust` records decisions under too
/// ([`ward_config::trust::record::data_dir`]).
pub fn data_dir() -> Result<PathBuf, EngineError> {
    ward_config::trust::record::data_dir(&|name| std::env::var(name).ok())
        .ok_or(EngineError::NoDataDir)
}

/// The compiled-component cache: `$WARD_CACHE_DIR`, else `cache/components` in the data
/// directory. WARD_CACHE_DIR lets several data directories share one cache (entries are
/// keyed by content and sealed, so sharing is safe).
pub fn component_cache_dir(data_dir: &Path) -> PathBuf {
    std::env::var_os("WARD_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| data_dir.join("cache/components"))
}
