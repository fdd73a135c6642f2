//! The `permission` map of an agent's front matter, in YAML:
//!
//! ```yaml
//! permission:
//!   edit: deny
//!   bash:
//!     "*": ask
//!     "git diff *": allow
//! ```
//!
//! Actions are checked while the YAML is read, so a bad one is reported at its
//! line and column; the result is the same `toml::Table` shape as
//! `[permission]`, in the order written, for `Ruleset::from_toml`.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use ward_permission::Action;

/// A validated permission map, as the equivalent TOML table.
#[derive(Debug, Default)]
pub(super) struct PermissionSpec(pub toml::Table);

impl<'de> Deserialize<'de> for PermissionSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(SpecVisitor)
    }
}

struct SpecVisitor;

impl<'de> Visitor<'de> for SpecVisitor {
    type Value = PermissionSpec;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of `permission: action` or `permission: { pattern: action }`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut table = toml::Table::new();
        while let Some(permission) = map.next_key::<String>()? {
            let entry = match map.next_value::<Entry>()? {
                Entry::Action(action) => toml::Value::String(action.as_str().to_string()),
                Entry::Patterns(patterns) => toml::Value::Table(patterns),
            };
            table.insert(permission, entry);
        }
        Ok(PermissionSpec(table))
    }
}

/// One permission's value: an action for every pattern, or actions by pattern.
enum Entry {
    Action(Action),
    Patterns(toml::Table),
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EntryVisitor)
    }
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an action (allow, ask or deny) or a map of `pattern: action`")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        parse_action(value).map(Entry::Action)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut patterns = toml::Table::new();
        while let Some(pattern) = map.next_key::<String>()? {
            let ActionValue(action) = map.next_value()?;
            patterns.insert(pattern, toml::Value::String(action.as_str().to_string()));
        }
        Ok(Entry::Patterns(patterns))
    }
}

/// An action written as a string.
struct ActionValue(Action);

impl<'de> Deserialize<'de> for ActionValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ActionVisitor)
    }
}

struct ActionVisitor;

impl<'de> Visitor<'de> for ActionVisitor {
    type Value = ActionValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an action (allow, ask or deny)")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        parse_action(value).map(ActionValue)
    }
}

fn parse_action<E: de::Error>(value: &str) -> Result<Action, E> {
    value
        .parse()
        .map_err(|_| E::custom(format!("expected allow, ask or deny, found `{value}`")))
}
