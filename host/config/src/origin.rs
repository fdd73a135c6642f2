//! Where each key of the merged configuration was set.
//!
//! Layers are validated one by one, so schema errors already carry a location.
//! Checks that only make sense after layering (does an override make a bundled
//! model's output limit exceed its context window?) see only the merged
//! [`Config`](crate::Config); [`Origins`] lets them still name the file, line
//! and column that set the offending key.

use std::collections::BTreeMap;

use toml::de::{DeTable, DeValue};

use crate::diagnose::Source;
use crate::error::Located;

/// The location of every table key in the merged configuration, taken from
/// the highest-precedence layer that set it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Origins {
    keys: BTreeMap<Vec<String>, Located>,
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

    /// Records the keys of one layer, overriding earlier layers' locations.
    pub(crate) fn record(&mut self, source: &Source<'_>) {
        // The layer was parsed successfully just before, so this cannot fail;
        // if it somehow did, errors would merely lack a location.
        if let Ok(doc) = DeTable::parse(source.text) {
            let newlines = crate::error::newlines(source.original);
            let at = |offset| source.locate_in(&newlines, offset);
            walk(doc.get_ref(), &mut Vec::new(), &at, &mut self.keys);
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
