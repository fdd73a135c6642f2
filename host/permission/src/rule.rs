//! Rules, rulesets and their configuration syntax.
//!
//! Owns the data model (`permission`, `pattern`, `action`), parsing the `[permission]`
//! config table into a [`Ruleset`], and the built-in [`defaults`].

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::wildcard;
pub use ward_protocol::permission::{Action, ParseActionError, Rule};

/// Whether `rule` applies to a request for `permission` on `pattern`.
pub fn matches(rule: &Rule, permission: &str, pattern: &str) -> bool {
    wildcard::matches(&rule.permission, permission) && wildcard::matches(&rule.pattern, pattern)
}

/// An ordered list of rules from one source; later rules override earlier ones.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ruleset {
    /// Where the rules come from, for explanations: `defaults`, `agent build`,
    /// `ward.toml`, `session`, `approvals`, …
    pub source: String,
    /// The rules, in the order they were written.
    pub rules: Vec<Rule>,
    /// A narrowing layer can only make a decision stricter (allow < ask < deny),
    /// never looser: its matching rule is combined with what the layers before it
    /// decided instead of replacing it. Rules from third parties (an agent defined
    /// by a plugin component) are narrowing, so a plugin cannot allow what the
    /// user's own configuration asks about or denies.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub narrowing: bool,
}

/// A `[permission]` table could not be turned into rules.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RuleError {
    /// An action was not `allow`, `ask` or `deny`.
    #[error("{key}: expected \"allow\", \"ask\" or \"deny\", found {found}")]
    InvalidAction {
        /// Dotted config key, e.g. `permission.bash."git *"`.
        key: String,
        /// The offending value as written.
        found: String,
    },
    /// A permission was neither an action nor a table of `pattern = action`.
    #[error("{key}: expected an action or a table of pattern = action, found {found}")]
    InvalidEntry {
        /// Dotted config key, e.g. `permission.bash`.
        key: String,
        /// A description of the offending value.
        found: String,
    },
}

impl Ruleset {
    /// Builds a ruleset from `source` and `rules`.
    pub fn new(source: impl Into<String>, rules: Vec<Rule>) -> Self {
        Ruleset {
            source: source.into(),
            rules,
            narrowing: false,
        }
    }

    /// Builds a [narrowing](Self::narrowing) ruleset: one that can only tighten
    /// what the layers before it decide.
    pub fn narrowing(source: impl Into<String>, rules: Vec<Rule>) -> Self {
        Ruleset {
            narrowing: true,
            ..Ruleset::new(source, rules)
        }
    }

    /// Parses the contents of a `[permission]` config table.
    ///
    /// Each entry is either `edit = "ask"` (shorthand for pattern `*`) or
    /// `bash = { "*" = "ask", "git status" = "allow" }`. Rules keep the order of the
    /// file, which matters because the last match wins.
    pub fn from_toml(source: impl Into<String>, table: &toml::Table) -> Result<Ruleset, RuleError> {
        let mut rules = Vec::new();
        for (permission, value) in table {
            let key = format!("permission.{}", toml_key(permission));
            match value {
                toml::Value::String(action) => {
                    rules.push(Rule::new(
                        permission,
                        "*",
                        parse_action(&key, value, action)?,
                    ));
                }
                toml::Value::Table(patterns) => {
                    for (pattern, value) in patterns {
                        let key = format!("{key}.{}", toml_key(pattern));
                        let toml::Value::String(action) = value else {
                            return Err(RuleError::InvalidAction {
                                key,
                                found: describe(value),
                            });
                        };
                        rules.push(Rule::new(
                            permission,
                            pattern,
                            parse_action(&key, value, action)?,
                        ));
                    }
                }
                other => {
                    return Err(RuleError::InvalidEntry {
                        key,
                        found: describe(other),
                    });
                }
            }
        }
        Ok(Ruleset::new(source, rules))
    }
}

fn parse_action(key: &str, value: &toml::Value, action: &str) -> Result<Action, RuleError> {
    action.parse().map_err(|_| RuleError::InvalidAction {
        key: key.to_string(),
        found: describe(value),
    })
}

/// Quotes a key the way TOML would need it, so error keys can be pasted back.
fn toml_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { key.to_string() } else { quote(key) }
}

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn describe(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => quote(s),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(_) => "an array".to_string(),
        toml::Value::Table(_) => "a table".to_string(),
    }
}

/// The built-in rules every other layer builds on: everything allowed, except
/// repeated identical tool calls (`doom_loop`), paths outside the project
/// (`external_directory`) and `.env` files, which ask.
pub fn defaults() -> Ruleset {
    use Action::{Allow, Ask};
    Ruleset::new(
        "defaults",
        vec![
            Rule::new("*", "*", Allow),
            Rule::new("doom_loop", "*", Ask),
            Rule::new("external_directory", "*", Ask),
            // A command leaving the process sandbox is the user's call.
            Rule::new("unsandboxed", "*", Ask),
            Rule::new("read", "*", Allow),
            Rule::new("read", "*.env", Ask),
            Rule::new("read", "*.env.*", Ask),
            Rule::new("read", "*.env.example", Allow),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(src: &str) -> toml::Table {
        src.parse().expect("valid toml")
    }

    #[test]
    fn shorthand_and_tables_keep_file_order() {
        let t = table(
            r#"
            edit = "ask"
            bash = { "*" = "ask", "git status" = "allow", "rm *" = "deny" }
            webfetch = "deny"
            "#,
        );
        let set = Ruleset::from_toml("ward.toml", &t).expect("parses");
        assert_eq!(set.source, "ward.toml");
        assert_eq!(
            set.rules,
            vec![
                Rule::new("edit", "*", Action::Ask),
                Rule::new("bash", "*", Action::Ask),
                Rule::new("bash", "git status", Action::Allow),
                Rule::new("bash", "rm *", Action::Deny),
                Rule::new("webfetch", "*", Action::Deny),
            ]
        );
    }

    #[test]
    fn bad_action_names_the_key() {
        let t = table(r#"bash = { "*" = "ask", "git *" = "yes" }"#);
        let err = Ruleset::from_toml("ward.toml", &t).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"permission.bash."git *": expected "allow", "ask" or "deny", found "yes""#
        );

        let t = table(r#"edit = "maybe""#);
        let err = Ruleset::from_toml("ward.toml", &t).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"permission.edit: expected "allow", "ask" or "deny", found "maybe""#
        );

        let t = table(r#"bash = { "ls" = true }"#);
        let err = Ruleset::from_toml("ward.toml", &t).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"permission.bash.ls: expected "allow", "ask" or "deny", found true"#
        );
    }

    #[test]
    fn bad_entry_shape_is_reported() {
        let t = table(r#"edit = ["ask"]"#);
        let err = Ruleset::from_toml("ward.toml", &t).unwrap_err();
        assert_eq!(
            err.to_string(),
            "permission.edit: expected an action or a table of pattern = action, found an array"
        );
    }

    #[test]
    fn action_round_trips() {
        for action in [Action::Allow, Action::Ask, Action::Deny] {
            assert_eq!(action.as_str().parse::<Action>(), Ok(action));
            let json = serde_json::to_string(&action).expect("serialises");
            assert_eq!(json, format!("\"{action}\""));
        }
        assert!("Allow".parse::<Action>().is_err());
    }

    #[test]
    fn rule_display_and_matching() {
        let rule = Rule::new("bash", "rm *", Action::Deny);
        assert_eq!(rule.to_string(), "bash rm * = deny");
        assert!(matches(&rule, "bash", "rm -rf /"));
        assert!(matches(&rule, "bash", "rm"));
        assert!(!matches(&rule, "read", "rm x"));
        assert!(matches(
            &Rule::new("*", "*", Action::Allow),
            "anything",
            "at all"
        ));
    }

    #[test]
    fn defaults_shape() {
        let d = defaults();
        assert_eq!(d.source, "defaults");
        assert_eq!(d.rules[0], Rule::new("*", "*", Action::Allow));
        assert!(
            d.rules
                .contains(&Rule::new("read", "*.env.example", Action::Allow))
        );
        assert!(d.rules.contains(&Rule::new("doom_loop", "*", Action::Ask)));
        assert!(
            d.rules
                .contains(&Rule::new("external_directory", "*", Action::Ask))
        );
    }
}
