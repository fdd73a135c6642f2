//! Deciding a request against layered rulesets.
//!
//! Owns the evaluation order: rulesets are concatenated in the order given, the
//! **last** rule matching both the permission and the pattern wins, and no match
//! means [`Action::Ask`]. Also owns which tools are hidden from the model outright.

use crate::rule::{Action, Rule, Ruleset};

/// The outcome of evaluating one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision<'a> {
    /// What to do.
    pub action: Action,
    /// The deciding rule and its ruleset; `None` when no rule matched (then `Ask`).
    pub rule: Option<(&'a Ruleset, &'a Rule)>,
}

impl Decision<'_> {
    /// The deciding rule as `` `bash rm * = deny` (ward.toml) ``, or `no matching rule`.
    pub fn describe(&self) -> String {
        match self.rule {
            Some((set, rule)) => format!("`{rule}` ({})", set.source),
            None => "no matching rule".to_string(),
        }
    }
}

/// Evaluates one `pattern` for `permission`; the last matching rule across all
/// `layers` wins, no match asks.
pub fn evaluate<'a>(permission: &str, pattern: &str, layers: &'a [Ruleset]) -> Decision<'a> {
    evaluate_in(permission, pattern, layers.iter())
}

/// Evaluates a request with several patterns (e.g. each sub-command of a bash
/// command): any deny denies, else any ask asks, else it is allowed. The returned
/// rule is the one that decided the first pattern with that outcome.
///
/// An empty `patterns` is evaluated as the single pattern `*`, so a request can
/// never slip through by naming nothing.
pub fn evaluate_all<'a>(
    permission: &str,
    patterns: &[String],
    layers: &'a [Ruleset],
) -> Decision<'a> {
    evaluate_all_in(permission, patterns, layers.iter()).0
}

/// Tools whose permission is denied outright (the last rule matching the key has
/// pattern `*` and action deny), given as `(tool, permission key)`: the key a tool
/// declares it is ruled under (`edit` for `write`), else its own name. A deny of
/// the tool's own name switches it off too. These are not offered to the model.
pub fn disabled_tools(tools: &[(&str, &str)], layers: &[Ruleset]) -> Vec<String> {
    tools
        .iter()
        .filter(|(tool, key)| denied_outright(key, layers) || denied_outright(tool, layers))
        .map(|(tool, _)| tool.to_string())
        .collect()
}

/// Whether the last rule matching `key` denies it for every pattern.
fn denied_outright(key: &str, layers: &[Ruleset]) -> bool {
    let last = layers
        .iter()
        .rev()
        .flat_map(|set| set.rules.iter().rev().map(move |rule| (set, rule)))
        // A narrowing layer's allow or ask cannot undo an earlier deny.
        .filter(|(set, rule)| !set.narrowing || rule.action == Action::Deny)
        .map(|(_, rule)| rule)
        .find(|rule| crate::wildcard::matches(&rule.permission, key));
    last.is_some_and(|rule| rule.pattern == "*" && rule.action == Action::Deny)
}

/// [`evaluate`] over any sequence of rulesets, so the engine can append the
/// approvals layer without copying the caller's layers.
///
/// Scans from the last layer back: the last matching rule of an ordinary layer
/// decides, made stricter by the last matching rule of each
/// [narrowing](Ruleset::narrowing) layer after it.
pub(crate) fn evaluate_in<'a, I>(permission: &str, pattern: &str, layers: I) -> Decision<'a>
where
    I: DoubleEndedIterator<Item = &'a Ruleset>,
{
    let mut narrowed: Option<Decision<'a>> = None;
    for set in layers.rev() {
        let Some(rule) = set
            .rules
            .iter()
            .rev()
            .find(|r| crate::rule::matches(r, permission, pattern))
        else {
            continue;
        };
        let decision = Decision {
            action: rule.action,
            rule: Some((set, rule)),
        };
        if !set.narrowing {
            return stricter(decision, narrowed);
        }
        narrowed = Some(match narrowed {
            Some(n) => stricter(n, Some(decision)),
            None => decision,
        });
    }
    let nothing = Decision {
        action: Action::Ask,
        rule: None,
    };
    stricter(nothing, narrowed)
}

/// The stricter of `decision` and `narrowed` (allow < ask < deny); `decision` on a tie.
fn stricter<'a>(decision: Decision<'a>, narrowed: Option<Decision<'a>>) -> Decision<'a> {
    match narrowed {
        Some(n) if strictness(n.action) > strictness(decision.action) => n,
        _ => decision,
    }
}

fn strictness(action: Action) -> u8 {
    match action {
        Action::Allow => 0,
        Action::Ask => 1,
        Action::Deny => 2,
    }
}

/// [`evaluate_all`] over any sequence of rulesets; also returns the pattern that
/// decided, for error messages.
pub(crate) fn evaluate_all_in<'a, 'p, I>(
    permission: &str,
    patterns: &'p [String],
    layers: I,
) -> (Decision<'a>, &'p str)
where
    I: DoubleEndedIterator<Item = &'a Ruleset> + Clone,
{
    evaluate_each(patterns, |pattern| {
        evaluate_in(permission, pattern, layers.clone())
    })
}

/// [`evaluate_all_in`] followed by stored approvals, which can only turn an *ask* into
/// an *allow*: a pattern the rules deny stays denied whatever was approved, so an
/// "always" answer can never outvote an explicit deny rule.
pub(crate) fn evaluate_approved<'a, 'p, I>(
    permission: &str,
    patterns: &'p [String],
    layers: I,
    approvals: &'a Ruleset,
) -> (Decision<'a>, &'p str)
where
    I: DoubleEndedIterator<Item = &'a Ruleset> + Clone,
{
    evaluate_each(patterns, |pattern| {
        let decision = evaluate_in(permission, pattern, layers.clone());
        if decision.action != Action::Ask {
            return decision;
        }
        let approved =
            approvals.rules.iter().rev().find(|r| {
                r.action == Action::Allow && crate::rule::matches(r, permission, pattern)
            });
        match approved {
            Some(rule) => Decision {
                action: Action::Allow,
                rule: Some((approvals, rule)),
            },
            None => decision,
        }
    })
}

/// Decides every pattern with `decide` (an empty list as the single pattern `*`): any
/// deny denies, else any ask asks, else it is allowed; also returns the deciding pattern.
fn evaluate_each<'a, 'p>(
    patterns: &'p [String],
    mut decide: impl FnMut(&str) -> Decision<'a>,
) -> (Decision<'a>, &'p str) {
    if patterns.is_empty() {
        return (decide("*"), "*");
    }
    let mut ask = None;
    let mut allow = None;
    for pattern in patterns {
        let decision = decide(pattern);
        match decision.action {
            Action::Deny => return (decision, pattern),
            Action::Ask => {
                ask.get_or_insert((decision, pattern.as_str()));
            }
            Action::Allow => {
                allow.get_or_insert((decision, pattern.as_str()));
            }
        }
    }
    // `patterns` is non-empty, so one of the two is set.
    ask.or(allow).unwrap_or((
        Decision {
            action: Action::Ask,
            rule: None,
        },
        "*",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::defaults;
    use Action::{Allow, Ask, Deny};

    fn set(source: &str, rules: &[(&str, &str, Action)]) -> Ruleset {
        Ruleset::new(
            source,
            rules
                .iter()
                .map(|&(p, pat, a)| Rule::new(p, pat, a))
                .collect(),
        )
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn narrowing_layers_only_tighten() {
        let user = set("ward.toml", &[("bash", "*", Ask), ("edit", "*", Allow)]);
        let plugin = Ruleset::narrowing(
            "plugin reviewer",
            vec![
                Rule::new("bash", "*", Allow),
                Rule::new("bash", "rm *", Deny),
                Rule::new("edit", "*", Deny),
            ],
        );
        let layers = [defaults(), user.clone(), plugin.clone()];
        // The plugin's allow cannot loosen the user's ask ...
        let d = evaluate("bash", "ls", &layers);
        assert_eq!(d.action, Ask);
        assert_eq!(d.rule.map(|(s, _)| s.source.as_str()), Some("ward.toml"));
        // ... but its ask and deny hold even where the user allows.
        assert_eq!(evaluate("bash", "rm -rf x", &layers).action, Deny);
        let d = evaluate("edit", "a.rs", &layers);
        assert_eq!(d.action, Deny);
        assert_eq!(d.describe(), "`edit * = deny` (plugin reviewer)");
        // An ordinary layer after it decides again.
        let later = set("agent.reviewer", &[("edit", "*", Allow)]);
        let layers = [defaults(), user, plugin.clone(), later];
        assert_eq!(evaluate("edit", "a.rs", &layers).action, Allow);
        // With nothing before it, a narrowing allow is no better than no rule.
        assert_eq!(
            evaluate("bash", "ls", std::slice::from_ref(&plugin)).action,
            Ask
        );
        // A narrowing blanket deny hides the tool; a narrowing allow cannot unhide it.
        let off = set("ward.toml", &[("edit", "*", Deny)]);
        let reopen = Ruleset::narrowing("plugin x", vec![Rule::new("edit", "*", Allow)]);
        assert_eq!(
            disabled_tools(&[("edit", "edit")], &[defaults(), plugin]),
            ["edit"]
        );
        assert_eq!(
            disabled_tools(&[("edit", "edit")], &[defaults(), off, reopen]),
            ["edit"]
        );
    }

    #[test]
    fn no_rule_means_ask() {
        let d = evaluate("bash", "ls", &[]);
        assert_eq!(d.action, Ask);
        assert!(d.rule.is_none());
        assert_eq!(d.describe(), "no matching rule");
    }

    #[test]
    fn last_match_wins_within_and_across_layers() {
        let layers = [
            set("defaults", &[("*", "*", Allow)]),
            set(
                "ward.toml",
                &[
                    ("bash", "*", Ask),
                    ("bash", "git *", Allow),
                    ("bash", "git push *", Deny),
                ],
            ),
        ];
        assert_eq!(evaluate("bash", "ls", &layers).action, Ask);
        assert_eq!(evaluate("bash", "git status", &layers).action, Allow);
        assert_eq!(evaluate("bash", "git", &layers).action, Allow);
        assert_eq!(evaluate("bash", "git push origin", &layers).action, Deny);
        assert_eq!(evaluate("webfetch", "https://x", &layers).action, Allow);

        let session = set("session", &[("bash", "*", Allow)]);
        let layers = [layers[0].clone(), layers[1].clone(), session];
        let d = evaluate("bash", "git push origin", &layers);
        assert_eq!(d.action, Allow);
        assert_eq!(d.describe(), "`bash * = allow` (session)");
    }

    #[test]
    fn permission_names_are_wildcards_too() {
        let layers = [set("x", &[("*", "*", Deny), ("mcp_*", "*", Allow)])];
        assert_eq!(evaluate("mcp_github", "x", &layers).action, Allow);
        assert_eq!(evaluate("read", "x", &layers).action, Deny);
    }

    #[test]
    fn defaults_guard_env_files() {
        let layers = [defaults()];
        assert_eq!(evaluate("read", "src/main.rs", &layers).action, Allow);
        assert_eq!(evaluate("read", ".env", &layers).action, Ask);
        assert_eq!(evaluate("read", "app/.env.local", &layers).action, Ask);
        assert_eq!(evaluate("read", ".env.example", &layers).action, Allow);
        assert_eq!(
            evaluate("external_directory", "/etc/*", &layers).action,
            Ask
        );
        assert_eq!(evaluate("doom_loop", "bash", &layers).action, Ask);
        assert_eq!(evaluate("edit", "src/main.rs", &layers).action, Allow);
    }

    #[test]
    fn evaluate_all_deny_beats_ask_beats_allow() {
        let layers = [set(
            "ward.toml",
            &[
                ("bash", "*", Ask),
                ("bash", "ls *", Allow),
                ("bash", "rm *", Deny),
            ],
        )];
        let all = |p: &[&str]| evaluate_all("bash", &strings(p), &layers).action;
        assert_eq!(all(&["ls", "ls -la"]), Allow);
        assert_eq!(all(&["ls", "make"]), Ask);
        assert_eq!(all(&["ls", "make", "rm -rf x"]), Deny);
        // Nothing to check is evaluated as `*`, never a free pass.
        assert_eq!(all(&[]), Ask);

        let patterns = strings(&["ls", "rm x"]);
        let (d, pattern) = evaluate_all_in("bash", &patterns, layers.iter());
        assert_eq!((d.action, pattern), (Deny, "rm x"));
        assert_eq!(d.describe(), "`bash rm * = deny` (ward.toml)");
    }

    #[test]
    fn disabled_tools_only_for_blanket_deny() {
        let layers = [
            defaults(),
            set(
                "agent plan",
                &[
                    ("edit", "*", Deny),
                    ("bash", "*", Deny),
                    ("bash", "git *", Allow),
                    ("webfetch", "*", Deny),
                ],
            ),
            set("session", &[("webfetch", "*", Allow)]),
        ];
        // As the standard tools declare their permission keys.
        let tools = [
            ("read", "read"),
            ("write", "edit"),
            ("edit", "edit"),
            ("apply_patch", "edit"),
            ("bash", "bash"),
            ("webfetch", "webfetch"),
            ("grep", "grep"),
        ];
        assert_eq!(
            disabled_tools(&tools, &layers),
            strings(&["write", "edit", "apply_patch"])
        );
        let all_off = [set("x", &[("*", "*", Deny)])];
        assert_eq!(
            disabled_tools(&[("read", "read"), ("bash", "bash")], &all_off),
            strings(&["read", "bash"])
        );
        // A deny of a tool's own name switches it off whatever key it is ruled under.
        let own = [set("x", &[("write", "*", Deny)])];
        assert_eq!(
            disabled_tools(&[("write", "edit"), ("edit", "edit")], &own),
            strings(&["write"])
        );
    }
}
