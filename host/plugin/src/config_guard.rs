//! Changes to Ward's own configuration through the permission checks: every `edit`
//! question about a protected path goes to a person, whatever the rules allow.
//!
//! Owns how [`CallScope::check`](crate::CallScope::check) treats such a request: the
//! caller's rules still deny what they deny, but an allow becomes an ask (a narrowing
//! layer naming exactly the protected patterns), an "always" answer stores nothing, and
//! the question is marked ([`CONFIG_CHANGE_KEY`]) so no `permission.ask` hook may answer
//! it and `--yes` does not approve it. An "always" answer to any other `edit` question
//! never stores a pattern that would cover a protected path either. Which paths are
//! protected is [`ward_permission::protected`]'s to say; the filesystem guard refuses
//! plugin writes there on its own (see `fsguard::policy`).

use std::path::{Path, PathBuf};

use serde_json::Value;
use ward_permission::protected::{CONFIG_CHANGE_KEY, Kind, ProtectedPaths};
use ward_permission::{Action, Rule, Ruleset};

/// The permission that changes files.
const EDIT: &str = "edit";

/// Name of the layer that turns allows into asks, as decisions and errors show it.
const LAYER: &str = "Ward's configuration (always asks)";

/// What one permission request means for Ward's configuration.
pub(crate) struct ConfigChange {
    /// The requested patterns that name protected paths, with what protects each.
    touched: Vec<(String, &'static str)>,
}

impl ConfigChange {
    /// The protected paths among `patterns` of a `permission` request in `project`;
    /// `None` when the request changes none.
    pub(crate) fn of(project: &Path, permission: &str, patterns: &[String]) -> Option<Self> {
        if permission != EDIT {
            return None;
        }
        let protected = ProtectedPaths::from_env(project);
        let touched: Vec<(String, &'static str)> = patterns
            .iter()
            .filter_map(|p| protected.find_pattern(p).map(|what| (p.clone(), what)))
            .collect();
        (!touched.is_empty()).then_some(ConfigChange { touched })
    }

    /// `rules` followed by a narrowing layer that makes every touched pattern ask at
    /// least: a deny still denies, an allow asks. (The wildcard language has no
    /// escapes: a `*` in a file name widens the ask, never an allow.)
    pub(crate) fn layers(&self, rules: &[Ruleset]) -> Vec<Ruleset> {
        let forced = self
            .touched
            .iter()
            .map(|(pattern, _)| Rule::new(EDIT, pattern.as_str(), Action::Ask))
            .collect();
        let mut layers = rules.to_vec();
        layers.push(Ruleset::narrowing(LAYER, forced));
        layers
    }

    /// `metadata` marked as a configuration change, naming what is touched.
    pub(crate) fn mark(&self, metadata: Value) -> Value {
        let what: Vec<Value> = self
            .touched
            .iter()
            .map(|(pattern, what)| serde_json::json!({ "pattern": pattern, "what": what }))
            .collect();
        with_key(metadata, Value::Array(what))
    }
}

/// A request as [`CallScope::check`](crate::CallScope::check) puts it to the engine.
pub(crate) struct Guarded {
    /// What an "always" answer may store.
    pub(crate) always: Vec<String>,
    /// The question's details, marked when it changes the configuration.
    pub(crate) metadata: Value,
    /// The layers to decide it under, when they differ from the caller's.
    pub(crate) layers: Option<Vec<Ruleset>>,
}

/// Prepares a `permission` request for `patterns` in `project` under `rules`.
pub(crate) fn guard(
    project: &Path,
    permission: &str,
    patterns: &[String],
    always: Vec<String>,
    metadata: Value,
    rules: &[Ruleset],
) -> Guarded {
    match ConfigChange::of(project, permission, patterns) {
        Some(change) => Guarded {
            always: Vec::new(),
            metadata: change.mark(metadata),
            layers: Some(change.layers(rules)),
        },
        None => Guarded {
            always: storable(project, permission, always),
            metadata: unmark(metadata),
            layers: None,
        },
    }
}

/// `metadata` without a configuration-change mark: only the host may set one.
pub(crate) fn unmark(mut metadata: Value) -> Value {
    if let Value::Object(map) = &mut metadata {
        map.remove(CONFIG_CHANGE_KEY);
    }
    metadata
}

/// The `always` patterns of an `edit` request in `project` that may be stored: none
/// that would approve changes to a protected path from then on.
pub(crate) fn storable(project: &Path, permission: &str, always: Vec<String>) -> Vec<String> {
    if permission != EDIT || always.is_empty() {
        return always;
    }
    let protected = ProtectedPaths::from_env(project);
    always
        .into_iter()
        .filter(|p| !protected.covered_by(p))
        .collect()
}

/// `metadata` as an object with [`CONFIG_CHANGE_KEY`] set to `value` (a non-object
/// kept under `value`).
fn with_key(metadata: Value, value: Value) -> Value {
    let mut map = match metadata {
        Value::Object(map) => map,
        Value::Null => serde_json::Map::new(),
        other => {
            let mut map = serde_json::Map::new();
            map.insert("value".to_string(), other);
            map
        }
    };
    map.insert(CONFIG_CHANGE_KEY.to_string(), value);
    Value::Object(map)
}

/// The protected paths of `project` plus the plugin host's own state (`extra`: its
/// compiled cache, audit log directory and plugin directories) and Ward's `private`
/// state (its data directory, as the host was given it).
pub(crate) fn protected_paths(
    project: &Path,
    extra: &[(PathBuf, bool)],
    private: &[PathBuf],
) -> ProtectedPaths {
    let mut protected = ProtectedPaths::from_env(project);
    for dir in private {
        protected.add(dir.clone(), true, Kind::Private, "Ward's data directory");
    }
    for (path, tree) in extra {
        protected.add(path.clone(), *tree, Kind::State, "Ward's plugin state");
    }
    protected
}

#[cfg(test)]
mod tests {
    use super::*;
    use ward_permission::evaluate_all;

    #[test]
    fn configuration_edits_ask_even_when_allowed_and_deny_when_denied() {
        let project = Path::new("/nonexistent/ward-guard-test");
        let patterns = vec!["src/a.rs".to_string(), "ward.toml".to_string()];
        assert!(ConfigChange::of(project, "read", &patterns).is_none());
        assert!(ConfigChange::of(project, EDIT, &["src/a.rs".to_string()]).is_none());
        let change = ConfigChange::of(project, EDIT, &patterns).expect("touches ward.toml");
        let allow = vec![Ruleset::new("t", vec![Rule::new("*", "*", Action::Allow)])];
        let layers = change.layers(&allow);
        assert_eq!(evaluate_all(EDIT, &patterns, &layers).action, Action::Ask);
        let deny = vec![Ruleset::new(
            "t",
            vec![Rule::new(EDIT, "ward.*", Action::Deny)],
        )];
        assert_eq!(
            evaluate_all(EDIT, &patterns, &change.layers(&deny)).action,
            Action::Deny
        );
    }

    #[test]
    fn marks_are_the_hosts_alone() {
        let project = Path::new("/nonexistent/ward-guard-test");
        let forged = serde_json::json!({ "diff": "x", CONFIG_CHANGE_KEY: false });
        let clean = unmark(forged);
        assert!(!ward_permission::protected::marks_config_change(&clean));
        assert_eq!(clean["diff"], "x");
        let change = ConfigChange::of(project, EDIT, &[".git/hooks/pre-commit".into()])
            .expect("touches .git");
        assert!(ward_permission::protected::marks_config_change(
            &change.mark(Value::Null)
        ));
        let kept = storable(
            project,
            EDIT,
            vec!["src/*".into(), "*".into(), ".ward/*".into()],
        );
        assert_eq!(kept, ["src/*"]);
    }
}
