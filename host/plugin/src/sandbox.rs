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
    /// Ward's configuration outside the project (the global config directory):
    /// read-only for every process, like the project's own.
    pub state_dirs: Vec<PathBuf>,
    /// Ward's private state (the data directory): hidden from every process, whatever
    /// it was granted, and refused to every plugin.
    pub private: Vec<PathBuf>,
    /// What of the private state the `bash` tool's commands may read, read-only: the
    /// saved full outputs the model is told to page through.
    pub shown_to_commands: Vec<PathBuf>,
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
            private: Vec::new(),
            shown_to_commands: Vec::new(),
        }
    }
}

/// What of `.git` the `bash` tool's commands see read-only: the parts that run code
/// outside the sandbox on the user's next git command (hooks, and the config that
/// names hooks, filters and pagers). Objects, refs and the index stay writable so
/// `git add` and `git commit` work; a plugin's processes get all of `.git` read-only.
const GIT_CODE: &[&str] = &[".git/config", ".git/hooks", ".git/info"];

impl SandboxSettings {
    /// The paths a process sees read-only in `project`: Ward's protected paths
    /// (`protected`: what it reads as configuration, its state, the plugin
    /// directories, `.git`) and the state directories — with only `.git`'s code-running
    /// parts for the `bash` tool's commands, all of it for a plugin's processes. Nothing
    /// beneath a private path is listed (a read-only path there is shown through its
    /// stand-in) but, for the `bash` tool's commands, the private state shown to them.
    pub fn protected_for(
        &self,
        protected: &ProtectedPaths,
        project: &Path,
        confinement: Confinement,
    ) -> Vec<PathBuf> {
        let git = project.join(".git");
        let private: Vec<&Path> = protected
            .private()
            .chain(self.private.iter().map(PathBuf::as_path))
            .collect();
        let beneath_private = |p: &Path| private.iter().any(|d| p != *d && p.starts_with(d));
        let commands = matches!(confinement, Confinement::Commands { .. });
        let mut out: Vec<PathBuf> = Vec::new();
        for entry in protected.entries() {
            let whole_git = entry.path == git;
            if whole_git && commands {
                out.extend(GIT_CODE.iter().map(|p| project.join(p)));
            } else {
                out.push(entry.path.clone());
            }
        }
        out.extend(self.state_dirs.iter().cloned());
        out.retain(|p| !beneath_private(p));
        if commands {
            out.extend(self.shown_to_commands.iter().cloned());
        }
        // Sorted, a path's descendants follow it: a recursive read-only mount of the
        // ancestor already covers them, and every mount costs the spawn time. (A shown
        // path beneath a private one is mounted on its own, through the stand-in.)
        out.sort();
        let mut kept: Vec<PathBuf> = Vec::with_capacity(out.len());
        for path in out {
            let covered = kept
                .last()
                .is_some_and(|top| path.starts_with(top) && !private.contains(&top.as_path()));
            if !covered {
                kept.push(path);
            }
        }
        kept
    }

    /// What every launch keeps from the program, whoever started it: the private paths
    /// of `protected` and these settings hidden, Ward's secrets out of the environment.
    pub fn private_state(&self, protected: &ProtectedPaths) -> ward_sandbox::Private {
        let mut hidden: Vec<PathBuf> = protected.private().map(Path::to_path_buf).collect();
        for p in &self.private {
            if !hidden.contains(p) {
                hidden.push(p.clone());
            }
        }
        ward_sandbox::Private {
            hidden,
            env: ward_permission::protected::PRIVATE_ENV
                .iter()
                .map(Into::into)
                .collect(),
        }
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

pub use ward_protocol::ESCAPE_PERMISSION;

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

/// Whether `plugin` is one of Ward's own whose tool declares it runs the model's shell
/// commands (`command`, the standard `bash`): its processes are those commands, with
/// the project's rights (every other plugin's processes are confined to its grants).
pub(crate) fn runs_commands(plugin: &Plugin) -> bool {
    plugin.source.origin == Origin::Builtin
        && plugin
            .source
            .manifest
            .tools
            .values()
            .any(|traits| traits.command.is_some())
}

/// Whether this call asks, with the boolean argument its tool declares as
/// `unsandboxed` (`bash`'s `"unsandboxed": true`), to run its command outside the
/// sandbox, and the `unsandboxed` rules (or the user, asked with the command shown)
/// allow it. Only a tool of Ward's own that runs commands may declare it: any other
/// plugin or tool never leaves the sandbox.
pub(crate) async fn escape_approved(
    plugin: &Plugin,
    tool: &str,
    args: &str,
    scope: &CallScope,
) -> Result<bool, CallError> {
    let traits = plugin.tool_traits(tool);
    let (Some(command_arg), Some(flag)) = (traits.command, traits.unsandboxed) else {
        return Ok(false);
    };
    if !runs_commands(plugin) {
        return Ok(false);
    }
    let Ok(serde_json::Value::Object(args)) = serde_json::from_str::<serde_json::Value>(args)
    else {
        return Ok(false);
    };
    if args.get(&flag) != Some(&serde_json::Value::Bool(true)) {
        return Ok(false);
    }
    let command = args
        .get(&command_arg)
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
/// missing `ward.toml`, `opencode.json`, `.claude/` or any other configuration path
/// ([`Kind::Configuration`](ward_permission::protected::Kind::Configuration)); whatever
/// of these it created is removed when it ends ([`MissingConfig::remove_created`]),
/// before Ward could read it.
pub(crate) struct MissingConfig(Vec<PathBuf>);

impl MissingConfig {
    /// Notes which of the configuration paths in `protected` are missing now, of those
    /// beneath the directories the process may write (`writable`): only those can it
    /// create.
    pub(crate) fn note(protected: &ProtectedPaths, writable: &[PathBuf]) -> MissingConfig {
        MissingConfig(
            protected
                .entries()
                .iter()
                .filter(|e| e.kind == ward_permission::protected::Kind::Configuration)
                .filter(|e| writable.iter().any(|w| e.path.starts_with(w)))
                .map(|e| e.path.clone())
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
            "`{}` sandbox: {what}; Ward's configuration and .git hooks read-only, its data \
             directory hidden; {network}; a command leaves the sandbox only with the \
             `{ESCAPE_PERMISSION}` permission",
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
         private temp directory (never Ward's configuration, nor its data directory), \
         {network}, no inherited environment",
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

#[cfg(test)]
mod tests {
    use super::*;
    use ward_permission::protected::{Kind, Locations};

    fn settings(data: &Path) -> SandboxSettings {
        SandboxSettings {
            private: vec![data.to_path_buf()],
            shown_to_commands: vec![data.join("tool-output")],
            ..SandboxSettings::default()
        }
    }

    #[test]
    fn the_data_directory_is_hidden_whole_and_saved_outputs_shown_to_commands_only() {
        let project = Path::new("/nonexistent/ward-sbx/proj");
        let data = PathBuf::from("/nonexistent/ward-sbx/data");
        let mut protected = ProtectedPaths::new(project, &Locations::default());
        // The component cache and audit log of the default layout live in it.
        protected.add(data.join("cache"), true, Kind::State, "Ward's plugin state");
        protected.add(data.clone(), true, Kind::Private, "Ward's data directory");
        let settings = settings(&data);
        let commands = Confinement::Commands { unsandboxed: false };
        let list = settings.protected_for(&protected, project, commands);
        assert!(list.contains(&data) && list.contains(&data.join("tool-output")));
        assert!(
            !list.contains(&data.join("cache")),
            "shown through the stand-in"
        );
        assert!(
            list.contains(&project.join(".git/hooks")) && !list.contains(&project.join(".git"))
        );
        for name in [
            "opencode.json",
            ".opencode",
            ".claude",
            ".mcp.json",
            "AGENTS.md",
        ] {
            assert!(list.contains(&project.join(name)), "{name}");
        }
        let list = settings.protected_for(&protected, project, Confinement::Plugin);
        assert!(list.contains(&data) && list.contains(&project.join(".git")));
        assert!(
            !list.iter().any(|p| p != &data && p.starts_with(&data)),
            "{list:?}"
        );
        let private = settings.private_state(&protected);
        assert_eq!(private.hidden, [data]);
        assert!(private.env.iter().any(|v| v == "WARD_SERVER_TOKEN"));
    }

    #[test]
    fn configuration_a_process_created_is_removed_and_nothing_else() {
        let root = std::env::temp_dir().join(format!("ward-missing-{}", std::process::id()));
        let project = root.join("proj");
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&project).expect("mkdir");
        std::fs::write(project.join("AGENTS.md"), "kept").expect("write");
        let protected = ProtectedPaths::new(&project, &Locations::default());
        let missing = MissingConfig::note(&protected, std::slice::from_ref(&project));
        std::fs::write(project.join("opencode.json"), "{}").expect("write");
        std::fs::create_dir_all(project.join(".opencode/agent")).expect("mkdir");
        std::fs::write(project.join(".opencode/agent/build.md"), "x").expect("write");
        std::fs::create_dir_all(project.join(".claude")).expect("mkdir");
        std::fs::write(project.join(".claude/settings.json"), "{}").expect("write");
        std::fs::write(project.join("notes.md"), "mine").expect("write");
        let mut removed = missing.remove_created();
        removed.sort();
        let want = [".claude", ".opencode", "opencode.json"].map(|n| project.join(n));
        assert_eq!(removed, want);
        assert!(project.join("notes.md").exists() && project.join("AGENTS.md").exists());
        std::fs::remove_dir_all(&root).expect("cleanup");
    }
}
