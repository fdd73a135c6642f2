//! The process sandbox settings of a run: `[sandbox]` from the configuration, the
//! helper binary that confines commands, Ward's global configuration kept read-only and
//! its data directory hidden (but the saved tool outputs, which the `bash` tool's
//! commands may read: the model is told to page through them).

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

/// Where full tool outputs are saved, beneath the data directory.
pub const TOOL_OUTPUT_DIR: &str = "tool-output";

/// The sandbox settings for `config`, confining through `helper`, with `data_dir`
/// hidden from every process (its saved tool outputs readable by the `bash` tool's
/// commands) and the global config directory read-only.
pub fn settings(config: &LoadedConfig, data_dir: &Path, helper: PathBuf) -> SandboxSettings {
    let section = &config.config.sandbox;
    let project = &config.project_root;
    let state_dirs: Vec<PathBuf> = ward_config::global_config_dir(&|k| std::env::var(k).ok())
        .into_iter()
        .collect();
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
        private: vec![data_dir.to_path_buf()],
        shown_to_commands: vec![data_dir.join(TOOL_OUTPUT_DIR)],
    }
}

/// `~/x` under the home directory, a relative path under the project.
fn resolve(path: &Path, project: &Path) -> PathBuf {
    if let (Ok(rest), Some(home)) = (path.strip_prefix("~"), std::env::var_os("HOME")) {
        return PathBuf::from(home).join(rest);
    }
    project.join(path)
}
