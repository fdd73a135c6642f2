//! Finding, layering and validating the configuration files.
//!
//! Sources, later wins: OpenCode's global `opencode.json(c)`, the global file,
//! the project's `opencode.json(c)`, every `ward.toml` from the filesystem
//! root down to the working directory, the project's `.ward/ward.toml`, the
//! file named by `WARD_CONFIG`, then the inline `WARD_CONFIG_CONTENT`. Each
//! OpenCode file sits just below Ward's own file of the same scope, so
//! `ward.toml` wins where both say something.
//!
//! Each layer is substituted, parsed and validated on its own before merging,
//! so an unknown key or a wrong type is reported at the exact file, line and
//! column that introduced it; the merged table is then deserialized once.

use std::path::{Path, PathBuf};

use crate::diagnose::Source;
use crate::error::ConfigError;
use crate::merge::merge;
use crate::opencode_json::{self, is_opencode_file};
use crate::origin::Origins;
use crate::schema::Config;
use crate::substitute::{EnvLookup, resolve_path, substitute};
use crate::warning::Warning;

/// Name under which inline `WARD_CONFIG_CONTENT` appears in errors and sources.
pub const INLINE_SOURCE: &str = "WARD_CONFIG_CONTENT";

/// The effective configuration and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedConfig {
    /// The merged configuration.
    pub config: Config,
    /// The layers that contributed, lowest precedence first; inline content
    /// appears as [`INLINE_SOURCE`].
    pub sources: Vec<PathBuf>,
    /// The nearest ancestor of the working directory (itself included) holding
    /// `.git`, `.ward` or `ward.toml`; the working directory if there is none.
    pub project_root: PathBuf,
    /// Where each key was set, for errors found after layering.
    pub origins: Origins,
    /// Settings of OpenCode files that Ward does not act on, each located.
    pub warnings: Vec<Warning>,
}

/// Loads the configuration for `cwd` using the process environment.
pub fn load(cwd: &Path) -> Result<LoadedConfig, ConfigError> {
    let env = |name: &str| std::env::var(name).ok();
    load_with_env(cwd, &env)
}

/// Loads the configuration for `cwd`, reading environment variables
/// (`HOME`, `XDG_CONFIG_HOME`, `WARD_CONFIG`, `WARD_CONFIG_CONTENT` and any
/// `{env:…}`) through `env` so callers and tests control them.
pub fn load_with_env(cwd: &Path, env: EnvLookup<'_>) -> Result<LoadedConfig, ConfigError> {
    let cwd = std::path::absolute(cwd).map_err(|source| ConfigError::Io {
        file: cwd.to_path_buf(),
        source,
    })?;
    let project_root = project_root(&cwd);

    let mut merged = toml::Table::new();
    let mut sources = Vec::new();
    let mut origins = Origins::default();
    let mut warnings = Vec::new();
    for file in layer_files(&cwd, &project_root, env) {
        let text = std::fs::read_to_string(&file).map_err(|source| ConfigError::Io {
            file: file.clone(),
            source,
        })?;
        let base_dir = file.parent().unwrap_or(&cwd);
        let table = if is_opencode_file(&file) {
            let converted = opencode_json::layer(&file, &text, base_dir, env)?;
            for (path, at) in converted.origins {
                origins.insert(path, at);
            }
            warnings.extend(converted.warnings);
            converted.table
        } else {
            layer(&file, &text, base_dir, env, &mut origins)?
        };
        merge(&mut merged, table);
        sources.push(file);
    }
    if let Some(content) = env(INLINE_SOURCE) {
        merge(
            &mut merged,
            layer(Path::new(INLINE_SOURCE), &content, &cwd, env, &mut origins)?,
        );
        sources.push(PathBuf::from(INLINE_SOURCE));
    }

    Ok(LoadedConfig {
        config: into_config(merged)?,
        sources,
        project_root,
        origins,
        warnings,
    })
}

/// Parses one configuration text on its own, as if it were the only layer.
///
/// `name` is used in error locations; `{file:…}` paths are relative to the
/// current directory and `{env:…}` reads the process environment.
pub fn load_from_str(name: &str, text: &str) -> Result<Config, ConfigError> {
    let env = |name: &str| std::env::var(name).ok();
    let base_dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let mut origins = Origins::default();
    into_config(layer(Path::new(name), text, &base_dir, &env, &mut origins)?)
}

/// The global configuration directory: `$XDG_CONFIG_HOME/ward`, else
/// `$HOME/.config/ward`. Plugins live in its `plugins/` subdirectory.
pub fn global_config_dir(env: EnvLookup<'_>) -> Option<PathBuf> {
    // The XDG spec says relative values are invalid and must be ignored.
    let xdg = env("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute());
    let base = xdg.or_else(|| {
        env("HOME")
            .filter(|home| !home.is_empty())
            .map(|home| PathBuf::from(home).join(".config"))
    })?;
    Some(base.join("ward"))
}

/// The nearest ancestor of `cwd` that looks like a project root, else `cwd`.
pub fn project_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| {
            // `.git` is a file in worktrees and submodules.
            dir.join(".git").exists()
                || dir.join(".ward").is_dir()
                || dir.join("ward.toml").is_file()
        })
        .unwrap_or(cwd)
        .to_path_buf()
}

/// The configuration files to read, lowest precedence first.
///
/// A file reached twice (say, `WARD_CONFIG` naming the project's `ward.toml`)
/// is read once, at its highest-precedence position.
fn layer_files(cwd: &Path, project_root: &Path, env: EnvLookup<'_>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let opencode_files = |dir: &Path| {
        opencode_json::FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            .collect::<Vec<_>>()
    };
    if let Some(dir) = global_config_dir(env) {
        if let Some(opencode) = crate::opencode::global_dir(&dir) {
            files.extend(opencode_files(&opencode));
        }
        files.push(dir.join("ward.toml"));
    }
    files.extend(opencode_files(project_root));
    let mut walked: Vec<PathBuf> = cwd.ancestors().map(|dir| dir.join("ward.toml")).collect();
    walked.reverse();
    files.extend(walked);
    files.push(project_root.join(".ward").join("ward.toml"));
    files.retain(|file| file.is_file());
    // An explicitly named file must exist: a missing one is reported.
    if let Some(explicit) = env("WARD_CONFIG").filter(|name| !name.is_empty()) {
        files.push(cwd.join(explicit));
    }

    let identity = |file: &Path| std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let ids: Vec<PathBuf> = files.iter().map(|file| identity(file)).collect();
    let mut keep = Vec::new();
    for (i, file) in files.iter().enumerate() {
        if !ids[i + 1..].contains(&ids[i]) {
            keep.push(file.clone());
        }
    }
    keep
}

/// Substitutes, parses and validates one layer, returning its table with
/// relative paths made absolute against `base_dir`; its keys' locations go
/// into `origins`.
fn layer(
    file: &Path,
    text: &str,
    base_dir: &Path,
    env: EnvLookup<'_>,
    origins: &mut Origins,
) -> Result<toml::Table, ConfigError> {
    let substituted = substitute(file, text, base_dir, env)?;
    let source = Source {
        file,
        original: text,
        text: &substituted.text,
        map: Some(&substituted.map),
    };
    let mut table = source.parse_table()?;
    source.deserialize::<Config>()?;
    origins.record(&source);
    resolve_paths(&mut table, base_dir, env);
    Ok(table)
}

/// Makes `plugin_paths`, `plugins.*.path` and local `marketplace.sources[*].url`
/// absolute now, because after merging nothing records which file a path came from.
fn resolve_paths(table: &mut toml::Table, base_dir: &Path, env: EnvLookup<'_>) {
    let resolve = |value: &mut toml::Value| {
        if let toml::Value::String(path) = value
            && let Some(resolved) = resolve_path(path, base_dir, env)
        {
            *path = resolved.to_string_lossy().into_owned();
        }
    };
    if let Some(toml::Value::Array(paths)) = table.get_mut("plugin_paths") {
        paths.iter_mut().for_each(resolve);
    }
    if let Some(toml::Value::Table(plugins)) = table.get_mut("plugins") {
        for (_, plugin) in plugins.iter_mut() {
            if let Some(path) = plugin.as_table_mut().and_then(|p| p.get_mut("path")) {
                resolve(path);
            }
        }
    }
    // A marketplace source's url is a local path unless it has a scheme.
    if let Some(toml::Value::Array(sources)) = table
        .get_mut("marketplace")
        .and_then(|m| m.get_mut("sources"))
    {
        for source in sources.iter_mut() {
            if let Some(url) = source.as_table_mut().and_then(|s| s.get_mut("url"))
                && url.as_str().is_some_and(|u| !u.contains("://"))
            {
                resolve(url);
            }
        }
    }
}

/// Deserializes the merged table. Every layer was validated alone, so a
/// failure here means the layers conflict in a way no single file shows.
fn into_config(table: toml::Table) -> Result<Config, ConfigError> {
    table
        .try_into()
        .map_err(|err: toml::de::Error| ConfigError::Merged {
            message: err.message().to_owned(),
        })
}

#[cfg(test)]
mod tests;
