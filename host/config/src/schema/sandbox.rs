//! `[sandbox]`: how the `bash` tool's commands are confined by the kernel.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How the `bash` tool's commands are confined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Read anywhere (but the hidden secrets), write nowhere.
    ReadOnly,
    /// Read anywhere (but the hidden secrets), write in the project and the temp
    /// directory; Ward's configuration and `.git` stay read-only.
    #[default]
    WorkspaceWrite,
    /// No confinement of files or network (the process tree is still contained).
    Full,
}

/// `[sandbox]` in `ward.toml`.
///
/// ```toml
/// [sandbox]
/// mode = "workspace-write"   # or "read-only", "full"
/// network = false
/// writable = ["~/.cache/cargo"]
/// hidden = ["~/.ssh", "~/.aws"]
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SandboxConfig {
    /// The mode (default `workspace-write`).
    pub mode: SandboxMode,
    /// Whether commands may use the network (default `false`).
    pub network: bool,
    /// More directories commands may write (absolute, `~/…`, or relative to the
    /// project).
    pub writable: Vec<PathBuf>,
    /// Paths hidden from commands, replacing the default list of secrets under the home
    /// directory (`~/.ssh`, `~/.aws`, `~/.gnupg`, …).
    pub hidden: Option<Vec<PathBuf>>,
}
