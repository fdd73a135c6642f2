//! What a confined process may touch: the policy a spawner builds and the sandbox server enforces.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How the `bash` tool's commands are confined (`[sandbox] mode` in `ward.toml`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Reads anywhere (but the hidden secrets); writes nowhere but `/dev/null`.
    ReadOnly,
    /// Reads anywhere (but the hidden secrets); writes in the project and the temp
    /// directory, Ward's own configuration and `.git` kept read-only.
    #[default]
    WorkspaceWrite,
    /// No file or network confinement: only the process lifetime is contained.
    Full,
}

impl Mode {
    /// The name used in `ward.toml` and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read-only",
            Mode::WorkspaceWrite => "workspace-write",
            Mode::Full => "full",
        }
    }

    /// Parses a `ward.toml` value.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "read-only" => Some(Mode::ReadOnly),
            "workspace-write" => Some(Mode::WorkspaceWrite),
            "full" => Some(Mode::Full),
            _ => None,
        }
    }
}

/// Where a confined process may read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadScope {
    /// Everywhere the user can, except [`Policy::hidden`].
    Everywhere,
    /// Only beneath these paths (besides the writable ones and the device files every
    /// program needs).
    Only(Vec<PathBuf>),
}

/// What one confined process (and everything it starts) may do.
///
/// Every process runs in its own PID namespace, so it and all its descendants are
/// gone when it exits or its spawner is killed; the rest applies when
/// [`confine_files`](Policy::confine_files) is set or the network is off.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// Whether file access is confined at all (`false` only for [`Mode::Full`]).
    pub confine_files: bool,
    /// Where it may read (and execute).
    pub read: ReadScope,
    /// Directories (or files) it may write beneath, and read.
    pub write: Vec<PathBuf>,
    /// Kept read-only even beneath a writable directory: Ward's configuration and
    /// state, `.git`. One beneath a hidden directory is shown through its stand-in,
    /// read-only (and readable only where [`read`](Policy::read) reaches). Paths that
    /// do not exist are skipped.
    pub read_only: Vec<PathBuf>,
    /// Replaced by an empty stand-in (secrets such as `~/.ssh`). Paths that do not
    /// exist are skipped.
    pub hidden: Vec<PathBuf>,
    /// Whether it may use the network (otherwise it gets a network namespace with
    /// no interfaces up: no socket reaches anything outside it).
    pub network: bool,
}

/// What a launcher keeps from every program it starts, whatever the program's policy
/// grants: Ward's own state and secrets ([`crate::Launcher::hiding`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Private {
    /// Hidden from every program whose files are confined at all (added to its
    /// [`Policy::hidden`]): a grant of a directory above one does not reach it.
    pub hidden: Vec<PathBuf>,
    /// Environment variables removed from every program's environment.
    pub env: Vec<std::ffi::OsString>,
}

impl Private {
    /// `policy` with these paths hidden too (a policy that confines no files has no
    /// mount table to hide them in: the person let it out of the sandbox).
    pub fn apply(&self, policy: &Policy) -> Policy {
        let mut out = policy.clone();
        if out.confine_files {
            for p in &self.hidden {
                if !out.hidden.contains(p) {
                    out.hidden.push(p.clone());
                }
            }
        }
        out
    }

    /// Whether the environment variable `name` must not reach a program.
    pub fn withholds(&self, name: &std::ffi::OsStr) -> bool {
        self.env.iter().any(|n| n == name)
    }
}

/// The system directories a program needs to run: readable (and executable) by every
/// confined process whatever its grants. Home directories, `/root`, `/tmp`, `/run` and
/// `/var` are not among them.
pub const SYSTEM_READ: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc",
];

/// Files under `/etc` that hold secrets (readable only by root, which Ward may be):
/// hidden from every confined process.
pub const SYSTEM_SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssl/private",
];

/// Secrets beneath the user's home hidden from the `bash` tool's commands by default
/// (`[sandbox] hidden` replaces the list).
pub const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
    ".config/gcloud",
    ".config/gh",
    ".cargo/credentials",
    ".cargo/credentials.toml",
];

impl Policy {
    /// A policy that contains only the process lifetime: files and network as the user
    /// has them.
    pub fn unconfined() -> Policy {
        Policy {
            confine_files: false,
            read: ReadScope::Everywhere,
            write: Vec::new(),
            read_only: Vec::new(),
            hidden: Vec::new(),
            network: true,
        }
    }

    /// Whether this policy confines nothing but the process lifetime.
    pub fn is_unconfined(&self) -> bool {
        !self.confine_files && self.network
    }

    /// The policy for the `bash` tool under `mode`: `project` and `temp` writable under
    /// [`Mode::WorkspaceWrite`] (plus `extra_write`), `protected` kept read-only,
    /// `hidden` hidden, the network as configured.
    pub fn for_commands(
        mode: Mode,
        project: &Path,
        temp: &Path,
        extra_write: &[PathBuf],
        protected: &[PathBuf],
        hidden: &[PathBuf],
        network: bool,
    ) -> Policy {
        let write = match mode {
            Mode::Full => return Policy::unconfined(),
            Mode::ReadOnly => Vec::new(),
            Mode::WorkspaceWrite => {
                let mut w = vec![project.to_path_buf(), temp.to_path_buf()];
                w.extend(extra_write.iter().cloned());
                w
            }
        };
        let mut all_hidden: Vec<PathBuf> = SYSTEM_SECRETS.iter().map(PathBuf::from).collect();
        all_hidden.extend(hidden.iter().cloned());
        Policy {
            confine_files: true,
            read: ReadScope::Everywhere,
            write,
            read_only: protected.to_vec(),
            hidden: all_hidden,
            network,
        }
    }

    /// The policy for a process a plugin starts: the system directories and what the
    /// plugin was granted (`read`, `write`), Ward's `protected` paths read-only, the
    /// network only with a `net` grant.
    pub fn for_plugin(
        read: &[PathBuf],
        write: &[PathBuf],
        protected: &[PathBuf],
        network: bool,
    ) -> Policy {
        let mut readable: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
        readable.extend(read.iter().cloned());
        Policy {
            confine_files: true,
            read: ReadScope::Only(readable),
            write: write.to_vec(),
            read_only: protected.to_vec(),
            hidden: SYSTEM_SECRETS.iter().map(PathBuf::from).collect(),
            network,
        }
    }
}

/// The default hidden paths for the `bash` tool, beneath `home`.
pub fn home_secrets(home: &Path) -> Vec<PathBuf> {
    HOME_SECRETS.iter().map(|s| home.join(s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_print() {
        for m in [Mode::ReadOnly, Mode::WorkspaceWrite, Mode::Full] {
            assert_eq!(Mode::parse(m.as_str()), Some(m));
        }
        assert_eq!(Mode::parse("workspace"), None);
        assert_eq!(Mode::default(), Mode::WorkspaceWrite);
    }

    #[test]
    fn command_policies_follow_the_mode() {
        let p = Path::new("/p");
        let t = Path::new("/tmp");
        let ro = Policy::for_commands(Mode::ReadOnly, p, t, &[], &[], &[], false);
        assert!(ro.write.is_empty() && ro.confine_files && !ro.network);
        let ww = Policy::for_commands(Mode::WorkspaceWrite, p, t, &[], &[], &[], true);
        assert_eq!(ww.write, [PathBuf::from("/p"), PathBuf::from("/tmp")]);
        assert!(ww.network);
        assert!(ww.hidden.contains(&PathBuf::from("/etc/shadow")));
        let full = Policy::for_commands(Mode::Full, p, t, &[], &[], &[], false);
        assert_eq!(full, Policy::unconfined());
    }

    #[test]
    fn plugin_policy_reads_only_the_system_and_its_grants() {
        let pol = Policy::for_plugin(&[PathBuf::from("/p/docs")], &[], &[], false);
        let ReadScope::Only(read) = &pol.read else {
            panic!("plugin reads everywhere");
        };
        assert!(read.contains(&PathBuf::from("/usr")));
        assert!(read.contains(&PathBuf::from("/p/docs")));
        assert!(
            !read
                .iter()
                .any(|r| r.starts_with("/home") || r == Path::new("/"))
        );
    }
}
