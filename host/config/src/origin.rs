//! Where each key of the merged configuration was set.
//!
//! Layers are validated one by one, so schema errors already carry a location.
//! Checks that only make sense after layering (does an override make a bundled
//! model's output limit exceed its context window?) see only the merged
//! [`Config`](crate::Config); [`Origins`] lets them still name the file, line
//! and column that set the offending key.
//!
//! They also remember which values came from `{env:…}` or `{file:…}`
//! substitution, so that `ward config show` and `GET /config` can hide them
//! ([`crate::show::redact`]): such a value is typically a secret, and the file that
//! names it does not show it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::diagnose::Source;
use crate::error::Located;
use crate::substitute::SourceMap;

/// The location of every table key in the merged configuration, taken from
/// the highest-precedence layer that set it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Origins {
    keys: BTreeMap<Vec<String>, Located>,
    /// Values spelt, at least in part, by substitution: the value's path (an
    /// array element by its index) and the layer file that wrote it.
    substituted: BTreeMap<Vec<String>, PathBuf>,
}

impl Origins {
    /// Where the key at `path` (e.g. `["provider", "local", "base_url"]`) was
    /// last set; `None` when no layer set it.
    pub fn get(&self, path: &[&str]) -> Option<&Located> {
        let path: Vec<String> = path.iter().map(|key| (*key).to_owned()).collect();
        self.keys.get(&path)
    }

    /// The location of the first of `paths` that some layer set.
    pub fn first(&self, paths: &[&[&str]]) -> Option<&Located> {
        paths.iter().find_map(|path| self.get(path))
    }

    /// Records that one layer set the key at `path` at `at`, overriding earlier
    /// layers' location for it.
    pub(crate) fn insert(&mut self, path: Vec<String>, at: Located) {
        self.keys.insert(path, at);
    }

    /// Every recorded key path with its location, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&[String], &Located)> {
        self.keys.iter().map(|(path, at)| (path.as_slice(), at))
    }

    /// Whether the value at `path` (an array element by its index, `["mcp",
    /// "db", "command", "2"]`) came from `{env:…}` or `{file:…}` substitution in
    /// the layer that set it last.
    pub fn is_substituted(&self, path: &[&str]) -> bool {
        let owned: Vec<String> = path.iter().map(|key| (*key).to_owned()).collect();
        let Some(file) = self.substituted.get(&owned) else {
            return false;
        };
        // A later layer that set the key holding the value replaced the value:
        // the mark counts only while the nearest key above it is still the
        // marking layer's. (Array elements have no key of their own.)
        (1..=path.len())
            .rev()
            .find_map(|len| self.get(&path[..len]))
            .is_some_and(|at| at.file == *file)
    }

    /// Records that the layer `file` spelt the values at `paths` by
    /// substitution (an OpenCode layer's come from its converter).
    pub(crate) fn mark_substituted(
        &mut self,
        file: &Path,
        paths: impl IntoIterator<Item = Vec<String>>,
    ) {
        for path in paths {
            self.substituted.insert(path, file.to_path_buf());
        }
    }

    /// Records the keys of one layer, overriding earlier layers' locations,
    /// and which of its values came from substitution.
    pub(crate) fn record(&mut self, source: &Source<'_>) {
        // The layer was parsed successfully just before, so this cannot fail;
        // if it somehow did, errors would merely lack a location (and values
        // their mark: the fixed secret fields are hidden regardless).
        if let Ok(doc) = DeTable::parse(source.text) {
            let newlines = crate::error::newlines(source.original);
            let at = |offset| source.locate_in(&newlines, offset);
            walk(doc.get_ref(), &mut Vec::new(), &at, &mut self.keys);
            if let Some(map) = source.map {
                let mut marked = Vec::new();
                for (key, value) in doc.get_ref().iter() {
                    let mut path = vec![key.get_ref().to_string()];
                    mark(value, &mut path, map, &mut marked);
                }
                self.mark_substituted(source.file, marked);
            }
        }
    }
}

/// Collects the paths of the scalar values under `value` that substitution
/// wrote (an array element by its index).
fn mark(
    value: &Spanned<DeValue<'_>>,
    path: &mut Vec<String>,
    map: &SourceMap,
    out: &mut Vec<Vec<String>>,
) {
    match value.get_ref() {
        DeValue::Table(table) => {
            for (key, inner) in table.iter() {
                path.push(key.get_ref().to_string());
                mark(inner, path, map, out);
                path.pop();
            }
        }
        DeValue::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                path.push(index.to_string());
                mark(inner, path, map, out);
                path.pop();
            }
        }
        _ => {
            let span = value.span();
            if map.substituted_within(span.start, span.end) {
                out.push(path.clone());
            }
        }
    }
}

fn walk(
    table: &DeTable<'_>,
    path: &mut Vec<String>,
    at: &dyn Fn(usize) -> Located,
    keys: &mut BTreeMap<Vec<String>, Located>,
) {
    for (key, value) in table.iter() {
        path.push(key.get_ref().to_string());
        keys.insert(path.clone(), at(key.span().start));
        if let DeValue::Table(inner) = value.get_ref() {
            walk(inner, path, at, keys);
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn later_layers_win_and_nested_keys_are_located() {
        let mut origins = Origins::default();
        let first = "[provider.local]\nbase_url = \"a\"\n";
        origins.record(&Source::plain(Path::new("one.toml"), first));
        let second = "model = \"x/y\"\n[provider.local.models.qwen]\ncontext = 8\n";
        origins.record(&Source::plain(Path::new("two.toml"), second));

        let at = |path: &[&str]| origins.get(path).map(ToString::to_string);
        assert_eq!(
            at(&["provider", "local", "base_url"]).as_deref(),
            Some("one.toml:2:1")
        );
        assert_eq!(
            at(&["provider", "local", "models", "qwen", "context"]).as_deref(),
            Some("two.toml:3:1")
        );
        assert_eq!(at(&["provider", "local"]).as_deref(), Some("two.toml:2:11"));
        assert_eq!(at(&["provider", "other"]), None);
        let first_set = origins.first(&[&["nope"], &["model"]]);
        assert_eq!(
            first_set.map(ToString::to_string).as_deref(),
            Some("two.toml:1:1")
        );
    }
}
