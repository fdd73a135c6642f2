//! How the processes plugins start are confined: the host-wide settings (`[sandbox]` in
//! `ward.toml`, the helper binary) and which confinement one call's processes get.

use std::path::{Path, PathBuf};

use ward_permission::protected::ProtectedPaths;
use ward_sandbox::Mode;

use crate::discovery::Origin;
use crate::error::CallError;
use crate::runtime::Plugin;
use crate::state::CallScope;

/// The process sandbox settings of a host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxSettings {
    /// The binary that confines a process (`ward` itself, answering
    /// [`ward_sandbox::SERVE_ARG`]). `None`: no process is started at all.
    pub helper: Option<PathBuf>,
    /// How the standard `bash` tool's commands are confined.
    pub mode: Mode,
    /// Whether those commands may use the network.
    pub network: bool,
    /// Directories those commands may write besides the project and the temp directory.
    pub writable: Vec<PathBuf>,
    /// Paths hidden from those commands (secrets under the home directory by default).
    pub hidden: Vec<PathBuf>,
    /// Ward's configuration and state outside the project (the data and config
    /// directories): read-only for every process, like the project's own.
    pub state_dirs: Vec<PathBuf>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        SandboxSettings {
            helper: None,
            mode: Mode::WorkspaceWrite,
            network: false,
            writable: Vec::new(),
            hidden: std::env::var_os("HOME")
                .map(|h| ward_sandbox::home_secrets(Path::new(&h)))
                .unwrap_or_default(),
            state_dirs: Vec::new(),
        }
    }
}

/// Ward's own configuration at a project's root (also among its protected paths):
/// removed when a confined process created one that was missing.
const WARD_PROTECTED: &[&str] = &["ward.toml", "ward.lock", ".ward"];
/// What of `.git` the `bash` tool's commands see read-only: the parts that run code
/// outside the sandbox on the user's next git command (hooks, and the config that
/// names hooks, filters and pagers). Objects, refs and the index stay writable so
/// `git add` and `git commit` work; a plugin's processes get all of `.git` read-only.
const GIT_CODE: &[&str] = &[".git/config", ".git/hooks", ".git/info"];

impl SandboxSettings {
    /// The paths a process sees read-only in `project`: Ward's protected paths
    /// (`protected`: its configuration and state, the plugin directories, `.git`) and
    /// the state directories — with only `.git`'s code-running parts for the `bash`
    /// tool's commands, all of it for a plugin's processes.
    pub fn protected_for(
        &self,
        protected: &ProtectedPaths,
        project: &Path,
        confinement: Confinement,
    ) -> Vec<PathBuf> {
        let git = project.join(".git");
        let mut out: Vec<PathBuf> = Vec::new();
        for entry in protected.entries() {
            let whole_git = entry.path == git;
            if whole_git && matches!(confinement, Confinement::Commands { .. }) {
                out.extend(GIT_CODE.iter().map(|p| project.join(p)));
            } else {
                out.push(entry.path.clone());
            }
        }
        out.extend(self.state_dirs.iter().cloned());
        // Sorted, a path's descendants follow it: a recursive read-only mount of the
        // ancestor already covers them, and every mount costs the spawn time.
        out.sort();
        let mut kept: Vec<PathBuf> = Vec::with_capacity(out.len());
        for path in out {
            if !kept.last().is_some_and(|top| path.starts_with(top)) {
                kept.push(path);
            }
        }
        kept
    }
}

/// Which confinement a call's processes get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confinement {
    /// The standard `bash` tool: the configured command mode, or none at all for a
    /// command the user let out of the sandbox.
    Commands {
        /// The permission rules (or the user) let this call's command run unconfined.
        unsandboxed: bool,
    },
    /// Any other plugin: its own grants.
    Plugin,
}

/// The permission a command needs to leave the sandbox (pattern: the command). Asked by
/// default; a rule may allow or deny it.
pub const ESCAPE_PERMISSION: &str = "unsandboxed";

impl crate::runtime::PluginHost {
    /// Starts the sandbox server the standard `bash` tool's commands run in, in the
    /// background, so the model's first command does not wait for it. Call it once the
    /// tools are on offer and a command is likely; it does nothing when `bash` is
    /// missing or disabled, and runs nothing: the server only waits for commands.
    pub fn prepare_command_sandbox(&self) {
        let Some(bash) = self
            .plugins()
            .iter()
            .find(|p| runs_commands(p) && p.disabled_reason().is_none())
        else {
            return;
        };
        let env = self.call_env(bash, CallScope::detached(self.project()), bash.limits.time);
        crate::process::prepare_server(&env);
    }
}

/// Whether `plugin` is the standard `bash` tool, whose processes are the model's shell
/// commands (every other plugin's processes are confined to its grants).
pub(crate) fn runs_commands(plugin: &Plugin) -> bool {
    plugin.source.origin == Origin::Builtin && plugin.name() == "bash"
}

/// Whether this call of the standard `bash` tool asks, with `"unsandboxed": true`, to
/// run its command outside the sandbox, and the `unsandboxed` rules (or the user, asked
/// with the command shown) allow it. Any other plugin or tool never leaves it.
pub(crate) async fn escape_approved(
    plugin: &Plugin,
    tool: &str,
    args: &str,
    scope: &CallScope,
) -> Result<bool, CallError> {
    if !runs_commands(plugin) || tool != "bash" {
        return Ok(false);
    }
    let Ok(serde_json::Value::Object(args)) = serde_json::from_str::<serde_json::Value>(args)
    else {
        return Ok(false);
    };
    if args.get("unsandboxed") != Some(&serde_json::Value::Bool(true)) {
        return Ok(false);
    }
    let command = args
        .get("command")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_string();
    let metadata = serde_json::json!({
        "plugin": plugin.name(),
        "command": command,
        "description": "run this command outside the sandbox (full file and network access)",
    });
    scope
        .check(
            ESCAPE_PERMISSION,
            vec![command.clone()],
            vec![command],
            metadata,
        )
        .await
        .map_err(CallError::Permission)?;
    Ok(true)
}

/// Ward's configuration files that did not exist when a confined process started.
///
/// A mount can only make an existing path read-only, so a process could create a
/// missing `ward.toml`, `ward.lock` or `.ward`; whatever of these it created is removed
/// when it ends ([`MissingConfig::remove_created`]), before Ward could read it.
pub(crate) struct MissingConfig(Vec<PathBuf>);

impl MissingConfig {
    /// Notes which of `project`'s configuration paths are missing now.
    pub(crate) fn note(project: &Path) -> MissingConfig {
        MissingConfig(
            WARD_PROTECTED
                .iter()
                .map(|p| project.join(p))
                .filter(|p| std::fs::symlink_metadata(p).is_err())
                .collect(),
        )
    }

    /// Removes those that exist now, returning them.
    pub(crate) fn remove_created(&self) -> Vec<PathBuf> {
        let mut removed = Vec::new();
        for p in &self.0 {
            let Ok(meta) = std::fs::symlink_metadata(p) else {
                continue;
            };
            let gone = if meta.is_dir() {
                std::fs::remove_dir_all(p)
            } else {
                std::fs::remove_file(p)
            };
            if gone.is_ok() {
                removed.push(p.clone());
            }
        }
        removed
    }
}

/// One line saying how the processes `plugin` may start are confined, for `ward plugin
/// list`; `None` when it was not granted `exec`.
pub fn describe_processes(plugin: &Plugin, settings: &SandboxSettings) -> Option<String> {
    let caps = &plugin.effective;
    if caps.exec.is_empty() {
        return None;
    }
    if runs_commands(plugin) {
        let what = match settings.mode {
            Mode::ReadOnly => "reads all but hidden secrets, writes nowhere",
            Mode::WorkspaceWrite => {
                "reads all but hidden secrets, writes the project and the temp directory"
            }
            Mode::Full => "unconfined files and network",
        };
        let network = if settings.network || settings.mode == Mode::Full {
            "network on"
        } else {
            "network off"
        };
        return Some(format!(
            "`{}` sandbox: {what}; Ward's configuration and .git hooks read-only; {network}; \
             a command leaves the sandbox only with the `{ESCAPE_PERMISSION}` permission",
            settings.mode.as_str()
        ));
    }
    let list = |v: &[PathBuf]| {
        if v.is_empty() {
            "nothing".to_string()
        } else {
            v.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let network = if caps.net.is_empty() {
        "no network"
    } else {
        "network (net grant)"
    };
    Some(format!(
        "confined to its grants: reads the system directories and {}, writes {} and a \
         private temp directory, {network}, no inherited environment",
        list(&caps.fs_read),
        list(&caps.fs_write)
    ))
}

/// Whether `request` must be answered by a person, never by `--yes`: a change to Ward's
/// configuration, or a command leaving the sandbox (the sandbox is the safety net of
/// exactly the runs that say yes to everything; a rule may still allow either).
pub fn needs_a_person(request: &ward_permission::AskRequest) -> bool {
    ward_permission::protected::marks_config_change(&request.metadata)
        || request.permission == ESCAPE_PERMISSION
}
