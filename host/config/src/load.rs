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
use crate::substitute::{EnvLookup, Tokens, resolve_path, substitute_with};
use crate::trust::ProjectTrust;
use crate::trust::assess::Assessment;
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
    /// What the project's own files ask for, and whether a person trusted it.
    pub trust: ProjectTrust,
}

/// Loads the configuration for `cwd` using the process environment.
pub fn load(cwd: &Path) -> Result<LoadedConfig, ConfigError> {
    let env = |name: &str| std::env::var(name).ok();
    load_with_env(cwd, &env)
}

/// Loads the configuration for `cwd` using the process environment, with the trust
/// decisions of the data directory `data_dir` (an engine told where its data lives
/// reads the decisions recorded there, not where the environment points).
pub fn load_with_data_dir(cwd: &Path, data_dir: &Path) -> Result<LoadedConfig, ConfigError> {
    let data = data_dir.to_string_lossy().into_owned();
    let env = |name: &str| match name {
        "WARD_DATA_DIR" => Some(data.clone()),
        _ => std::env::var(name).ok(),
    };
    load_with_env(cwd, &env)
}

/// Loads the configuration for `cwd`, reading environment variables
/// (`HOME`, `XDG_CONFIG_HOME`, `WARD_CONFIG`, `WARD_CONFIG_CONTENT`, the data
/// directory's and any `{env:…}`) through `env` so callers and tests control them.
///
/// The project's own layers count in full only when a person trusted what they ask
/// for (see [`trust`](crate::trust)); otherwise only what tightens is merged.
pub fn load_with_env(cwd: &Path, env: EnvLookup<'_>) -> Result<LoadedConfig, ConfigError> {
    let cwd = std::path::absolute(cwd).map_err(|source| ConfigError::Io {
        file: cwd.to_path_buf(),
        source,
    })?;
    let project_root = project_root(&cwd);
    let files = layer_files(&cwd, &project_root, env);

    let mut read = Vec::new();
    for (file, scope) in files {
        let text = std::fs::read_to_string(&file).map_err(|source| ConfigError::Io {
            file: file.clone(),
            source,
        })?;
        read.push((file, scope, text));
    }
    let inline = env(INLINE_SOURCE);

    // The user's own layers, merged, are what the project is measured against.
    let mut user = toml::Table::new();
    for (file, scope, text) in &read {
        if *scope == Scope::User {
            let mut ignored = Origins::default();
            let loaded = read_layer(file, text, &cwd, env, Tokens::Resolve, &mut ignored)?;
            merge(&mut user, loaded.table);
        }
    }
    if let Some(content) = &inline {
        let mut ignored = Origins::default();
        let file = Path::new(INLINE_SOURCE);
        merge(
            &mut user,
            read_layer(file, content, &cwd, env, Tokens::Resolve, &mut ignored)?.table,
        );
    }
    let mut assessment = Assessment::new(&project_root, &user);
    for (file, scope, text) in &read {
        if *scope == Scope::Project {
            assessment.layer(file, text, &cwd, env)?;
        }
    }
    let mut trust = assessment.finish(env);

    let mut merged = toml::Table::new();
    let mut sources = Vec::new();
    let mut origins = Origins::default();
    let mut warnings = Vec::new();
    let mut tight = std::mem::take(&mut trust.tight).into_iter();
    for (file, scope, text) in &read {
        let layer = match scope {
            Scope::Project if trust.project.restricted() => match tight.next() {
                Some(layer) => layer,
                None => continue,
            },
            _ => read_layer(file, text, &cwd, env, Tokens::Resolve, &mut origins)?,
        };
        for (path, at) in layer.origins {
            origins.insert(path, at);
        }
        warnings.extend(layer.warnings);
        merge(&mut merged, layer.table);
        sources.push(file.clone());
    }
    if let Some(content) = &inline {
        merge(
            &mut merged,
            layer(Path::new(INLINE_SOURCE), content, &cwd, env, &mut origins)?,
        );
        sources.push(PathBuf::from(INLINE_SOURCE));
    }

    Ok(LoadedConfig {
        config: into_config(merged)?,
        sources,
        project_root,
        origins,
        warnings,
        trust: trust.project,
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

/// Whose words a layer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// The user's: the global files and the one `WARD_CONFIG` names.
    User,
    /// The repository's: any file in the project tree or above it.
    Project,
}

/// The configuration files to read, lowest precedence first, with whose they are.
///
/// A file reached twice (say, `WARD_CONFIG` naming the project's `ward.toml`)
/// is read once, at its highest-precedence position.
fn layer_files(cwd: &Path, project_root: &Path, env: EnvLookup<'_>) -> Vec<(PathBuf, Scope)> {
    let mut files = Vec::new();
    let opencode_files = |dir: &Path, scope: Scope| {
        opencode_json::FILE_NAMES
            .iter()
            .map(|name| (dir.join(name), scope))
            .collect::<Vec<_>>()
    };
    if let Some(dir) = global_config_dir(env) {
        if let Some(opencode) = crate::opencode::global_dir(&dir) {
            files.extend(opencode_files(&opencode, Scope::User));
        }
        files.push((dir.join("ward.toml"), Scope::User));
    }
    files.extend(opencode_files(project_root, Scope::Project));
    let mut walked: Vec<(PathBuf, Scope)> = cwd
        .ancestors()
        .map(|dir| (dir.join("ward.toml"), Scope::Project))
        .collect();
    walked.reverse();
    files.extend(walked);
    files.push((project_root.join(".ward").join("ward.toml"), Scope::Project));
    files.retain(|(file, _)| file.is_file());
    // An explicitly named file must exist: a missing one is reported.
    if let Some(explicit) = env("WARD_CONFIG").filter(|name| !name.is_empty()) {
        files.push((cwd.join(explicit), Scope::User));
    }

    let identity = |file: &Path| std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let ids: Vec<PathBuf> = files.iter().map(|(file, _)| identity(file)).collect();
    let mut keep = Vec::new();
    for (i, file) in files.iter().enumerate() {
        if !ids[i + 1..].contains(&ids[i]) {
            keep.push(file.clone());
        }
    }
    keep
}

/// One layer read: its table, where its keys were written, and its warnings.
pub(crate) struct ReadLayer {
    pub(crate) table: toml::Table,
    pub(crate) origins: Vec<(Vec<String>, crate::error::Located)>,
    pub(crate) warnings: Vec<Warning>,
}

/// Reads one layer of either format; a `ward.toml` layer's key locations go straight
/// into `origins`, an OpenCode file's come back in the result.
pub(crate) fn read_layer(
    file: &Path,
    text: &str,
    cwd: &Path,
    env: EnvLookup<'_>,
    tokens: Tokens,
    origins: &mut Origins,
) -> Result<ReadLayer, ConfigError> {
    let base_dir = file.parent().unwrap_or(cwd);
    if is_opencode_file(file) {
        let converted = opencode_json::layer(file, text, base_dir, env, tokens)?;
        origins.mark_substituted(file, converted.substituted);
        return Ok(ReadLayer {
            table: converted.table,
            origins: converted.origins,
            warnings: converted.warnings,
        });
    }
    Ok(ReadLayer {
        table: layer_with(file, text, base_dir, env, tokens, origins)?,
        origins: Vec::new(),
        warnings: Vec::new(),
    })
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
    layer_with(file, text, base_dir, env, Tokens::Resolve, origins)
}

/// [`layer`], resolving or holding `{env:…}`/`{file:…}` as `tokens` says.
fn layer_with(
    file: &Path,
    text: &str,
    base_dir: &Path,
    env: EnvLookup<'_>,
    tokens: Tokens,
    origins: &mut Origins,
) -> Result<toml::Table, ConfigError> {
    let substituted = substitute_with(file, text, base_dir, env, tokens)?;
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
