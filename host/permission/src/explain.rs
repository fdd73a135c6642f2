//! A human-readable account of a permission decision.
//!
//! Owns `ward permission explain TOOL PATTERN`: which rule decides, every rule that
//! matches in evaluation order, and warnings for deny rules that look protective but
//! are overridden by a later, more permissive rule.

use std::fmt;

use crate::evaluate::evaluate;
use crate::rule::{Action, Rule, Ruleset};

/// A rule together with the name of the ruleset it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcedRule {
    /// The ruleset's source (`defaults`, `ward.toml`, `session`, …).
    pub source: String,
    /// The rule itself.
    pub rule: Rule,
}

impl SourcedRule {
    fn new(set: &Ruleset, rule: &Rule) -> Self {
        SourcedRule {
            source: set.source.clone(),
            rule: rule.clone(),
        }
    }
}

/// Renders as `` `read *.env = deny` from ward.toml ``.
impl fmt::Display for SourcedRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` from {}", self.rule, self.source)
    }
}

/// A deny rule that matches but is overridden by a later non-deny rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShadowedDeny {
    /// The deny rule that has no effect for this request.
    pub deny: SourcedRule,
    /// The later rule that wins instead.
    pub by: SourcedRule,
}

/// Why a request gets the action it gets. `Display` prints the full report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The permission asked about.
    pub permission: String,
    /// The pattern asked about.
    pub pattern: String,
    /// The resulting action.
    pub action: Action,
    /// The deciding rule; `None` when nothing matched (the action is then ask).
    pub decided_by: Option<SourcedRule>,
    /// Every matching rule, in evaluation order (the last one decides).
    pub matching: Vec<SourcedRule>,
    /// Deny rules that match but lose to a later rule.
    pub shadowed: Vec<ShadowedDeny>,
}

/// Explains how `permission` on `pattern` is decided by `layers`.
pub fn explain(permission: &str, pattern: &str, layers: &[Ruleset]) -> Explanation {
    let decision = evaluate(permission, pattern, layers);
    let decided_by = decision.rule.map(|(set, rule)| SourcedRule::new(set, rule));
    let matching: Vec<SourcedRule> = layers
        .iter()
        .flat_map(|set| set.rules.iter().map(move |rule| (set, rule)))
        .filter(|(_, rule)| crate::rule::matches(rule, permission, pattern))
        .map(|(set, rule)| SourcedRule::new(set, rule))
        .collect();

    // A deny only loses if the final decision is not a deny; an earlier deny
    // followed by allow and then deny again still ends in deny, so it is not shadowed.
    let shadowed = match &decided_by {
        Some(winner) if winner.rule.action != Action::Deny => matching
            .iter()
            .filter(|m| m.rule.action == Action::Deny)
            .map(|deny| ShadowedDeny {
                deny: deny.clone(),
                by: winner.clone(),
            })
            .collect(),
        _ => Vec::new(),
    };

    Explanation {
        permission: permission.to_string(),
        pattern: pattern.to_string(),
        action: decision.action,
        decided_by,
        matching,
        shadowed,
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.permission, self.pattern)?;
        match &self.decided_by {
            Some(rule) => writeln!(f, "decision: {} by {rule}", self.action)?,
            None => writeln!(f, "decision: no rule matches: {}", self.action)?,
        }
        if !self.matching.is_empty() {
            writeln!(f, "matching rules (in order, the last one wins):")?;
            for (i, rule) in self.matching.iter().enumerate() {
                writeln!(f, "  {}. {rule}", i + 1)?;
            }
        }
        for s in &self.shadowed {
            writeln!(
                f,
                "warning: deny rule `{}` from {} is shadowed by `{}` from {}",
                s.deny.rule, s.deny.source, s.by.rule, s.by.source
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::defaults;
    use Action::{Allow, Ask, Deny};

    fn layers() -> Vec<Ruleset> {
        vec![
            defaults(),
            Ruleset::new("ward.toml", vec![Rule::new("read", "*.env", Deny)]),
            Ruleset::new("session", vec![Rule::new("read", "*", Allow)]),
        ]
    }

    #[test]
    fn shadowed_deny_is_warned_about() {
        let e = explain("read", ".env", &layers());
        assert_eq!(e.action, Allow);
        assert_eq!(
            e.decided_by.as_ref().map(|r| r.source.as_str()),
            Some("session")
        );
        assert_eq!(e.matching.len(), 5);
        let text = e.to_string();
        assert!(text.contains(
            "warning: deny rule `read *.env = deny` from ward.toml is shadowed by `read * = allow` from session"
        ), "{text}");
        assert_eq!(e.shadowed.len(), 1);
    }

    #[test]
    fn report_lists_matches_in_order() {
        let e = explain("read", ".env", &layers());
        let text = e.to_string();
        let expected = "\
read .env
decision: allow by `read * = allow` from session
matching rules (in order, the last one wins):
  1. `* * = allow` from defaults
  2. `read * = allow` from defaults
  3. `read *.env = ask` from defaults
  4. `read *.env = deny` from ward.toml
  5. `read * = allow` from session
";
        assert!(text.starts_with(expected), "{text}");
    }

    #[test]
    fn effective_deny_is_not_shadowed() {
        let mut l = layers();
        l.push(Ruleset::new(
            "agent",
            vec![Rule::new("read", "*.env", Deny)],
        ));
        let e = explain("read", ".env", &l);
        assert_eq!(e.action, Deny);
        assert!(e.shadowed.is_empty());
        assert!(!e.to_string().contains("warning"));
    }

    #[test]
    fn non_matching_deny_is_not_reported() {
        let e = explain("read", "src/lib.rs", &layers());
        assert_eq!(e.action, Allow);
        assert!(e.shadowed.is_empty());
    }

    #[test]
    fn no_rule_matches() {
        let e = explain("bash", "ls", &[]);
        assert_eq!(e.action, Ask);
        assert_eq!(e.to_string(), "bash ls\ndecision: no rule matches: ask\n");
    }
}
