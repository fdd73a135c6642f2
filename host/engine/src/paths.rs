//! Where Ward keeps its state: the data directory and the compiled-component cache.

use std::path::{Path, PathBuf};

use crate::error::EngineError;

/// `WARD_DATA_DIR`, else `$XDG_DATA_HOME/ward`, else `~/.local/share/ward`.
pub fn data_dir() -> Result<PathBuf, EngineError> {
    if let Some(d) = std::env::var_os("WARD_DATA_DIR") {
        return Ok(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_DATA_HOME") {
        return Ok(PathBuf::from(d).join("ward"));
    }
    let home = std::env::var_os("HOME").ok_or(EngineError::NoDataDir)?;
    Ok(PathBuf::from(home).join(".local/share/ward"))
}

/// The compiled-component cache: `$WARD_CACHE_DIR`, else `cache/components` in the data
/// directory. WARD_CACHE_DIR lets several data directories share one cache (entries are
/// keyed by content and sealed, so sharing is safe).
pub fn component_cache_dir(data_dir: &Path) -> PathBuf {
    std::env::var_os("WARD_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| data_dir.join("cache/components"))
}
