//! How a local MCP server is confined: a stranger's program gets what an ordinary
//! npm or PyPI server needs to start and work, and nothing a stranger should have.
//!
//! By default (no `grant`) the server:
//! - reads the system directories ([`ward_sandbox::SYSTEM_READ`]), the project, its
//!   private temporary directory, and its own installation as [`crate::installed`]
//!   finds it: a file named in its arguments opens that file only, not its directory
//!   or package root (but for a file inside a package npm installed, which opens that
//!   package as a program would), and the program opens its own package — a command installed as
//!   `~/.local/bin/x` or `node_modules/.bin/x` is followed to the package it links
//!   into, never the prefix (`~/.local`, `/usr/local`) or project holding it. Nothing
//!   inferred is ever the root, the user's home or a directory above it;
//! - writes only the project and its private temporary directory (Ward's configuration,
//!   state and `.git` stay read-only, as for every confined process);
//! - cannot read the user's home (so `~/.ssh`, `~/.aws` and other projects are out of
//!   reach), and the project's `.env` files are hidden from it;
//! - has no network (a namespace with no interface up);
//! - gets no inherited environment but `PATH` (its program's directory, then
//!   `/usr/local/bin:/usr/bin:/bin`), `HOME` and `TMPDIR` (its private temporary
//!   directory) and `LANG=C.UTF-8`, then what `environment` sets.
//!
//! `grant` widens it in the plugin vocabulary: `fs-read[:PATH]` (everywhere but the
//! hidden secrets without a path), `fs-write:PATH`, `net` (any scope turns the whole
//! network on: the sandbox cannot filter by host), `env:VAR` (passes Ward's `VAR`).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use ward_config::{Capability, Grant};
use ward_sandbox::{Policy, Program, ReadScope, SYSTEM_READ};

use crate::installed::{Bounds, Named, reach};

/// `PATH` after the program's own directory.
const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";
/// Directories skipped when looking for `.env` files (large, and never the user's).
const SKIP_DIRS: &[&str] = &["node_modules", ".git", "target", ".venv", "venv"];
/// How deep and how wide the `.env` search goes, so a huge project costs a bound.
const ENV_SEARCH_DEPTH: usize = 6;
const ENV_SEARCH_ENTRIES: usize = 20_000;

/// What confining one local server takes: the program, its policy, and its private
/// temporary directory (removed when this is dropped).
pub struct Confined {
    /// The program to launch.
    pub program: Program,
    /// What it may do.
    pub policy: Policy,
    /// Its private temporary directory (its `HOME` and `TMPDIR`).
    pub scratch: Scratch,
}

/// A server's private temporary directory, removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    fn create(server: &str) -> std::io::Result<Scratch> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "ward-mcp-{}-{}-{n}",
            crate::names::sanitize(server),
            std::process::id()
        ));
        std::fs::create_dir(&dir)?;
        Ok(Scratch(dir))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Everything [`confine`] needs to know besides the server's own configuration.
pub struct Setting<'a> {
    /// The project directory (the server's working directory).
    pub project: &'a Path,
    /// Paths kept read-only for every confined process (Ward's configuration and state).
    pub protected: &'a [PathBuf],
    /// Ward's own environment (for `PATH` lookups and `env:` grants).
    pub env: &'a (dyn Fn(&str) -> Option<OsString> + Sync),
}

/// The confinement of server `name` running `command` with `environment` and `grant`.
pub fn confine(
    name: &str,
    command: &[String],
    environment: &BTreeMap<String, String>,
    grant: &[Grant],
    setting: &Setting<'_>,
) -> std::io::Result<Confined> {
    let scratch = Scratch::create(name)?;
    let project = setting.project;
    let program = resolve_program(command.first().map(String::as_str).unwrap_or(""), setting);

    let mut read: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
    read.push(project.to_path_buf());
    read.push(scratch.path().to_path_buf());
    let home = (setting.env)("HOME").map(PathBuf::from);
    let program_dir = program.parent().filter(|d| d.is_absolute());
    let path = match program_dir {
        Some(dir) => format!("{}:{SYSTEM_PATH}", dir.display()),
        None => SYSTEM_PATH.to_string(),
    };
    let bounds = Bounds {
        home: home.as_deref(),
        path: path.as_ref(),
    };
    read.extend(reach(&program, Named::Program, &bounds));
    for arg in command.iter().skip(1) {
        // Files only: a directory argument (a root a filesystem server serves) is the
        // user's to grant with `fs-read`, not evidence of an installation.
        let named = project.join(arg);
        if named.is_file() {
            read.extend(reach(&named, Named::Argument, &bounds));
        }
    }
    let mut write = vec![project.to_path_buf(), scratch.path().to_path_buf()];
    let mut network = false;
    let mut read_everywhere = false;
    let mut vars: Vec<(OsString, OsString)> = Vec::new();
    let mut set = |k: &str, v: OsString| {
        vars.retain(|(name, _)| name != k);
        vars.push((k.into(), v));
    };
    set("PATH", path.into());
    set("HOME", scratch.path().into());
    set("TMPDIR", scratch.path().into());
    set("LANG", "C.UTF-8".into());
    for g in grant {
        let scope = g.scope.as_deref();
        match g.capability {
            Capability::FsRead => match scope {
                Some(p) => read.push(expand(p, project, setting)),
                None => read_everywhere = true,
            },
            Capability::FsWrite => match scope {
                Some(p) => write.push(expand(p, project, setting)),
                None => write.push(PathBuf::from("/")),
            },
            Capability::Net => network = true,
            Capability::Env => match scope {
                Some(var) => {
                    if let Some(v) = (setting.env)(var) {
                        set(var, v);
                    }
                }
                None => {
                    for (k, v) in std::env::vars_os() {
                        if let Some(k) = k.to_str() {
                            set(k, v);
                        }
                    }
                }
            },
            // Hooks and exec mean nothing for a process: the server runs what it likes
            // within these bounds.
            Capability::Exec | Capability::Hooks => {}
        }
    }
    for (k, v) in environment {
        set(k, v.into());
    }
    let mut hidden: Vec<PathBuf> = ward_sandbox::HOME_SECRETS
        .iter()
        .filter_map(|s| (setting.env)("HOME").map(|h| PathBuf::from(h).join(s)))
        .collect();
    hidden.extend(env_files(project));
    hidden.extend(
        [
            "/etc/shadow",
            "/etc/gshadow",
            "/etc/sudoers",
            "/etc/ssl/private",
        ]
        .iter()
        .map(PathBuf::from),
    );
    read.sort();
    read.dedup();
    let policy = Policy {
        confine_files: true,
        read: if read_everywhere {
            ReadScope::Everywhere
        } else {
            ReadScope::Only(read)
        },
        write,
        read_only: setting.protected.to_vec(),
        hidden,
        network,
    };
    let mut argv: Vec<OsString> = vec![program.into_os_string()];
    argv.extend(command.iter().skip(1).map(OsString::from));
    Ok(Confined {
        program: Program {
            argv,
            cwd: project.to_path_buf(),
            env: vars,
            stdin: true,
        },
        policy,
        scratch,
    })
}

/// `program` as an absolute path when it is found in Ward's `PATH` (else as written,
/// for the sandbox to look up and report).
fn resolve_program(program: &str, setting: &Setting<'_>) -> PathBuf {
    if program.contains('/') {
        return setting.project.join(program);
    }
    let path = (setting.env)("PATH").unwrap_or_else(|| SYSTEM_PATH.into());
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
        .unwrap_or_else(|| PathBuf::from(program))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `$WORKSPACE/…`, `~/…` or a path relative to the project, made absolute.
fn expand(scope: &str, project: &Path, setting: &Setting<'_>) -> PathBuf {
    if let Some(rest) = scope.strip_prefix("$WORKSPACE") {
        return project.join(rest.trim_start_matches('/'));
    }
    if let Some(rest) = scope.strip_prefix("~/")
        && let Some(home) = (setting.env)("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    project.join(scope)
}

/// The project's `.env` files (`.env`, `.env.local`, …; `.env.example` and
/// `.env.sample` are not secrets), within a bounded walk.
pub fn env_files(project: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![(project.to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > ENV_SEARCH_ENTRIES {
                return found;
            }
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth < ENV_SEARCH_DEPTH && !SKIP_DIRS.contains(&name.as_ref()) {
                    stack.push((entry.path(), depth + 1));
                }
            } else if is_env_file(&name) {
                found.push(entry.path());
            }
        }
    }
    found
}

fn is_env_file(name: &str) -> bool {
    name == ".env"
        || (name.starts_with(".env.")
            && !matches!(name, ".env.example" | ".env.sample" | ".env.template"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_files_but_examples() {
        assert!(is_env_file(".env") && is_env_file(".env.local"));
        assert!(!is_env_file(".env.example") && !is_env_file("x.env.txt"));
    }
}
