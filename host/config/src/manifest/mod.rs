//! Plugin manifests (`plugin.toml`): what a plugin is, which component to
//! load, the capabilities it may ever use (its ceiling) and its resource limits.
//!
//! ```toml
//! [plugin]
//! name = "read"
//! version = "0.1.0"
//! api = "0.1.0"
//! kinds = ["tool"]
//! component = "read.wasm"
//! [capabilities]
//! fs-read = ["$WORKSPACE"]
//! [limits]
//! memory-mib = 64
//! [files]
//! "read.wasm" = "…64 hex digits…"
//! [tools.read]
//! path = "filePath"
//! access = "read"
//! ```
//!
//! `[tools.NAME]` says what the host should know about one of the plugin's tools
//! ([`ToolTraits`]): which argument names the path it acts on, whether it reads or
//! changes it, and so on. The host's permission checks, pruning and truncation read
//! these declarations, never a tool's name, so a tool named like a standard one gets
//! none of its treatment and a third-party tool can declare the same.
//!
//! `[files]` is written by `ward plugin pack`: the SHA-256 of every file of the
//! package except `plugin.toml` itself, checked by `ward plugin install`.
//!
//! Parsing is strict — unknown keys, wrong types and malformed values are all
//! errors located at the offending key or value — because a manifest is what
//! a person reviews before granting anything.

mod validate;

pub use validate::is_clean_relative;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::diagnose::Source;
use crate::error::ConfigError;

/// A validated plugin manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// Plugin name: `[a-z0-9][a-z0-9-_]*`.
    pub name: String,
    /// Plugin version (semver).
    pub version: String,
    /// Version of the `ward:plugin` WIT package the component was built against.
    pub api: String,
    /// One-line description shown in `ward plugin list`.
    pub description: String,
    /// What the component provides; never empty, no duplicates.
    pub kinds: Vec<Kind>,
    /// Component file, relative to the plugin directory and inside it.
    pub component: String,
    /// Expected SHA-256 of the component, lowercase hex; verified by the runtime.
    pub sha256: Option<String>,
    /// The most the plugin may ever be granted.
    pub capabilities: Capabilities,
    /// Per-call resource limits.
    pub limits: Limits,
    /// `[files]`: SHA-256 (lowercase hex) of every packaged file by its relative
    /// path (`/`-separated, no `.` or `..`), `plugin.toml` excluded; empty unless
    /// the plugin was packed with `ward plugin pack`.
    pub files: BTreeMap<String, String>,
    /// `[tools.NAME]`: what the host should know about each of its tools.
    pub tools: BTreeMap<String, ToolTraits>,
}

/// `[tools.NAME]`: what a tool does with its arguments, as far as the host acts on
/// it. Everything is optional; a tool that declares nothing is checked as its own
/// permission (`NAME = "ask"`) with the pattern `*`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct ToolTraits {
    /// The argument naming the path the call acts on: its permission pattern is the
    /// path relative to the project, a path outside the project also needs
    /// `external_directory`.
    pub path: Option<String>,
    /// Whether `path` names a directory (default: a file, whose directory an
    /// `external_directory` question is about).
    pub directory: bool,
    /// What the call does with `path`.
    pub access: Option<Access>,
    /// The argument whose value is the permission pattern instead of the path
    /// (`glob`'s and `grep`'s `pattern`).
    pub pattern: Option<String>,
    /// Whether an "always" answer allows only the pattern asked about (a skill's
    /// name, say) rather than every call of the tool.
    pub always_pattern: bool,
    /// The argument holding a patch whose `*** Add File:` / `Update` / `Delete` /
    /// `Move to:` lines name the files it changes.
    pub patch: Option<String>,
    /// The tool asks for its permission where it acts — per shell command, per URL,
    /// with the diff — rather than before the call. Honoured for Ward's own plugins
    /// only: any other tool also needs its own permission before it runs.
    pub asks_itself: bool,
    /// Truncation keeps the end of a long output rather than its start (a command's
    /// last lines say how it ended).
    pub output_tail: bool,
    /// Its outputs are never pruned from the context (what a loaded skill says).
    /// Honoured for Ward's own tools only: a plugin cannot pin its outputs.
    pub keep_output: bool,
    /// The permission its calls are ruled under, when not its own name: `edit` for
    /// every tool that writes files, `read` for a reader of files. A plugin's tool may
    /// name only a permission its granted capabilities reach (as with the `ask`
    /// import); a deny of the tool's own name still switches it off.
    pub permission: Option<String>,
    /// The argument holding the shell command the call runs: what a `!command` line
    /// of a slash command or a prompt is given to. Honoured for Ward's own tools only:
    /// their processes are the model's commands, sandboxed with the project's rights.
    pub command: Option<String>,
    /// The boolean argument with which a call asks to run its command outside the
    /// sandbox (asked about as `unsandboxed`). Honoured for Ward's own tools only.
    pub unsandboxed: Option<String>,
    /// The key of a finished call's output metadata holding the session's whole todo
    /// list (`[{content, status, priority}]`), which the call replaces.
    pub todos: Option<String>,
}

/// What a call does with the path it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Reads it: a later read of the same window, or a change to the file, makes
    /// the output stale (pruned first), and a file read brings the nested
    /// `AGENTS.md` of its directory.
    Read,
    /// Changes it.
    Write,
}

/// What a plugin component provides (one WIT world each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Tools the model can call.
    Tool,
    /// Hooks around tool calls, messages and other events.
    Hook,
    /// Agent definitions.
    Agent,
    /// Skills.
    Skill,
}

/// `[capabilities]`: the ceiling of what the plugin may be granted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Readable paths; `$WORKSPACE` stands for the project directory.
    pub fs_read: Vec<String>,
    /// Writable paths; `$WORKSPACE` stands for the project directory.
    pub fs_write: Vec<String>,
    /// Reachable hosts: `scheme://host[:port]` or `*.domain`.
    pub net: Vec<String>,
    /// Command patterns it may run through the host, e.g. `git *`.
    pub exec: Vec<String>,
    /// Environment variable names it may read.
    pub env: Vec<String>,
    /// Hook registrations, for hook plugins.
    pub hooks: Option<HookCaps>,
}

/// `capabilities.hooks`: which tool calls a hook plugin sees and whether it
/// may change them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct HookCaps {
    /// Tool-name globs whose calls the hooks receive (default `["*"]`).
    pub tools: Vec<String>,
    /// Whether the hooks may rewrite or block (default observe-only).
    pub mode: HookMode,
}

impl Default for HookCaps {
    fn default() -> Self {
        Self {
            tools: vec!["*".to_owned()],
            mode: HookMode::Observe,
        }
    }
}

/// What hooks may do with what they receive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HookMode {
    /// See calls and events, change nothing.
    #[default]
    Observe,
    /// Rewrite arguments and results, or block calls.
    Mutate,
}

/// `[limits]`: per-call resource limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// Linear memory ceiling in MiB (default 64).
    #[serde(deserialize_with = "validate::positive")]
    pub memory_mib: u64,
    /// Wall-clock time per call in milliseconds (default 30000).
    #[serde(deserialize_with = "validate::positive")]
    pub time_ms: u64,
    /// Maximum output per call in bytes (default 1 MiB).
    #[serde(deserialize_with = "validate::positive")]
    pub output_bytes: u64,
    /// Fuel (instruction budget) per call; 0 turns fuel metering off.
    pub fuel: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory_mib: 64,
            time_ms: 30_000,
            output_bytes: 1024 * 1024,
            fuel: 0,
        }
    }
}

/// The manifest as written, with spans for the values checked after parsing.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    plugin: RawPlugin,
    #[serde(default)]
    capabilities: RawCapabilities,
    #[serde(default)]
    limits: Limits,
    #[serde(default)]
    files: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    tools: BTreeMap<String, ToolTraits>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlugin {
    name: Spanned<String>,
    version: Spanned<String>,
    api: Spanned<String>,
    #[serde(default)]
    description: String,
    kinds: Spanned<Vec<Kind>>,
    component: Spanned<String>,
    sha256: Option<Spanned<String>>,
}

#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
struct RawCapabilities {
    fs_read: Vec<Spanned<String>>,
    fs_write: Vec<Spanned<String>>,
    net: Vec<Spanned<String>>,
    exec: Vec<Spanned<String>>,
    env: Vec<Spanned<String>>,
    hooks: Option<HookCaps>,
}

/// Whether `name` is a valid plugin name: `[a-z0-9][a-z0-9-_]*`.
pub fn is_plugin_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// Parses and validates `text`, the content of the manifest at `path`.
/// Errors name `path` with the line and column of the offending key or value.
pub fn parse_manifest(path: &Path, text: &str) -> Result<Manifest, ConfigError> {
    let source = Source::plain(path, text);
    let raw: RawManifest = source.deserialize()?;
    validate::manifest(&source, raw)
}

#[cfg(test)]
mod tests;
