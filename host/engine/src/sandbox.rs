//! The process sandbox settings of a run: `[sandbox]` from the configuration, the
//! helper binary that confines commands, and Ward's own state directories kept
//! read-only.

use std::path::{Path, PathBuf};

use ward_config::{LoadedConfig, SandboxMode};
use ward_plugin::SandboxSettings;
use ward_sandbox::Mode;

use crate::error::EngineError;

/// The helper beside the running executable: the `ward-sandbox` binary, else the
/// executable itself (`ward` answers the helper's entry point too).
pub fn helper_beside_this_binary() -> Result<PathBuf, EngineError> {
    let ward = std::env::current_exe().map_err(EngineError::Helper)?;
    Ok(ward_sandbox::helper_beside(&ward))
}

/// The sandbox settings for `config`, confining through `helper`, with `data_dir`
/// (and the global config directory) read-only for every process.
pub fn settings(config: &LoadedConfig, data_dir: &Path, helper: PathBuf) -> SandboxSettings {
    let section = &config.config.sandbox;
    let project = &config.project_root;
    let mut state_dirs = vec![data_dir.to_path_buf()];
    if let Some(global) = ward_config::global_config_dir(&|k| std::env::var(k).ok()) {
        state_dirs.push(global);
    }
    let defaults = SandboxSettings::default();
    SandboxSettings {
        helper: Some(helper),
        mode: match section.mode {
            SandboxMode::ReadOnly => Mode::ReadOnly,
            SandboxMode::WorkspaceWrite => Mode::WorkspaceWrite,
            SandboxMode::Full => Mode::Full,
        },
        network: section.network,
        writable: section
            .writable
            .iter()
            .map(|p| resolve(p, project))
            .collect(),
        hidden: match &section.hidden {
            Some(list) => list.iter().map(|p| resolve(p, project)).collect(),
            None => defaults.hidden,
        },
        state_dirs,
    }
}

/// `~/x` under the home directory, a relative path under the project.
fn resolve(path: &Path, project: &Path) -> PathBuf {
    if let (Ok(rest), Some(home)) = (path.strip_prefix("~"), std::env::var_os("HOME")) {
        return PathBuf::from(home).join(rest);
    }
    project.join(path)
}
