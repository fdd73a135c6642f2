//! Checks on manifest values that the type system cannot express (name
//! syntax, semver, digests, paths), each failing at the value's location.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use serde::{Deserialize, Deserializer, de::Error};
use toml::Spanned;

use super::{Capabilities, Manifest, RawCapabilities, RawManifest, is_plugin_name};
use crate::diagnose::Source;
use crate::error::ConfigError;
use crate::locate::{KeyPath, Segment};

/// A limit that must be at least 1 (0 would make every call fail).
pub(super) fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    match u64::deserialize(d)? {
        0 => Err(D::Error::custom("expected a positive integer, found 0")),
        n => Ok(n),
    }
}

/// Turns a parsed manifest into a [`Manifest`], checking every value.
pub(super) fn manifest(source: &Source<'_>, raw: RawManifest) -> Result<Manifest, ConfigError> {
    let plugin = raw.plugin;
    let invalid =
        |keys: &[&str], span: std::ops::Range<usize>, message: String| ConfigError::Invalid {
            at: source.locate(span.start),
            path: KeyPath::of(keys).to_string(),
            message,
        };

    let name = plugin.name;
    if !is_plugin_name(name.get_ref()) {
        return Err(invalid(
            &["plugin", "name"],
            name.span(),
            format!(
                "invalid plugin name `{}`: use lowercase letters, digits, `-` and `_`, starting with a letter or digit",
                name.get_ref()
            ),
        ));
    }
    for (key, version) in [("version", &plugin.version), ("api", &plugin.api)] {
        if !is_semver(version.get_ref()) {
            return Err(invalid(
                &["plugin", key],
                version.span(),
                format!(
                    "invalid version `{}`: expected a semantic version such as 0.1.0",
                    version.get_ref()
                ),
            ));
        }
    }

    let kinds_span = plugin.kinds.span();
    let mut kinds = plugin.kinds.into_inner();
    if kinds.is_empty() {
        return Err(invalid(
            &["plugin", "kinds"],
            kinds_span,
            "`kinds` is empty: list at least one of tool, hook, agent, skill".to_owned(),
        ));
    }
    let mut seen = Vec::with_capacity(kinds.len());
    kinds.retain(|kind| {
        let new = !seen.contains(kind);
        seen.push(*kind);
        new
    });

    let component = plugin.component;
    if !is_inside(component.get_ref()) {
        return Err(invalid(
            &["plugin", "component"],
            component.span(),
            format!(
                "component `{}` must be a relative path to a file inside the plugin directory",
                component.get_ref()
            ),
        ));
    }

    let sha256 = match plugin.sha256 {
        Some(digest) if !is_sha256(digest.get_ref()) => {
            return Err(invalid(
                &["plugin", "sha256"],
                digest.span(),
                format!(
                    "invalid sha256 `{}`: expected 64 hexadecimal digits",
                    digest.get_ref()
                ),
            ));
        }
        Some(digest) => Some(digest.into_inner().to_ascii_lowercase()),
        None => None,
    };

    Ok(Manifest {
        name: name.into_inner(),
        version: plugin.version.into_inner(),
        api: plugin.api.into_inner(),
        description: plugin.description,
        kinds,
        component: component.into_inner(),
        sha256,
        capabilities: capabilities(source, raw.capabilities)?,
        limits: raw.limits,
        files: files(source, raw.files)?,
        tools: raw.tools,
    })
}

/// Checks `[files]`: each key a clean relative path inside the plugin (never
/// `plugin.toml`), each value a SHA-256 digest.
fn files(
    source: &Source<'_>,
    raw: BTreeMap<Spanned<String>, Spanned<String>>,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut out = BTreeMap::new();
    for (path, digest) in raw {
        let at = |span: std::ops::Range<usize>, message: String| ConfigError::Invalid {
            at: source.locate(span.start),
            path: KeyPath(vec![
                Segment::Key("files".to_owned()),
                Segment::Key(path.get_ref().clone()),
            ])
            .to_string(),
            message,
        };
        if !is_clean_relative(path.get_ref()) {
            return Err(at(
                path.span(),
                format!(
                    "invalid file path `{}`: expected a relative path inside the plugin directory, `/`-separated, without `.`, `..` or `\\`",
                    path.get_ref()
                ),
            ));
        }
        if path.get_ref() == "plugin.toml" {
            return Err(at(
                path.span(),
                "`plugin.toml` cannot list its own digest".to_owned(),
            ));
        }
        if !is_sha256(digest.get_ref()) {
            return Err(at(
                digest.span(),
                format!(
                    "invalid sha256 `{}`: expected 64 hexadecimal digits",
                    digest.get_ref()
                ),
            ));
        }
        out.insert(path.into_inner(), digest.into_inner().to_ascii_lowercase());
    }
    Ok(out)
}

/// Checks each capability entry: none empty, environment names well formed.
fn capabilities(source: &Source<'_>, raw: RawCapabilities) -> Result<Capabilities, ConfigError> {
    let list = |key: &str, entries: Vec<Spanned<String>>| -> Result<Vec<String>, ConfigError> {
        entries
            .into_iter()
            .enumerate()
            .map(|(i, entry)| {
                let text = entry.get_ref();
                let problem = if text.trim().is_empty() {
                    Some("empty entry".to_owned())
                } else if key == "env" && !is_env_name(text) {
                    Some(format!(
                        "invalid environment variable name `{text}`: use letters, digits and `_`, not starting with a digit"
                    ))
                } else {
                    None
                };
                match problem {
                    Some(message) => Err(ConfigError::Invalid {
                        at: source.locate(entry.span().start),
                        path: KeyPath(vec![
                            Segment::Key("capabilities".to_owned()),
                            Segment::Key(key.to_owned()),
                            Segment::Index(i),
                        ])
                        .to_string(),
                        message,
                    }),
                    None => Ok(entry.into_inner()),
                }
            })
            .collect()
    };
    Ok(Capabilities {
        fs_read: list("fs-read", raw.fs_read)?,
        fs_write: list("fs-write", raw.fs_write)?,
        net: list("net", raw.net)?,
        exec: list("exec", raw.exec)?,
        env: list("env", raw.env)?,
        hooks: raw.hooks,
    })
}

/// `MAJOR.MINOR.PATCH[-pre][+build]` with numbers without leading zeros.
pub(crate) fn is_semver(version: &str) -> bool {
    let (rest, build) = match version.split_once('+') {
        Some((rest, build)) => (rest, Some(build)),
        None => (version, None),
    };
    let (core, pre) = match rest.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (rest, None),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    let number_ok = |n: &&str| {
        !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) && (*n == "0" || !n.starts_with('0'))
    };
    let idents_ok = |s: Option<&str>| {
        s.is_none_or(|s| {
            s.split('.').all(|id| {
                !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            })
        })
    };
    numbers.len() == 3 && numbers.iter().all(number_ok) && idents_ok(pre) && idents_ok(build)
}

/// Exactly 64 hex digits.
fn is_sha256(digest: &str) -> bool {
    digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit())
}

/// A portable environment variable name.
fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A non-empty `/`-separated relative path of plain names (no `.`, `..`,
/// empty segment or backslash), the form `[files]` keys and archive entries take.
pub fn is_clean_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\\')
        && path
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..")
}

/// A non-empty relative path that cannot leave its base directory.
fn is_inside(path: &str) -> bool {
    let path = Path::new(path);
    !path.as_os_str().is_empty()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        && path.components().any(|c| matches!(c, Component::Normal(_)))
}
