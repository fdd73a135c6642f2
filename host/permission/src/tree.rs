//! Path rules applied to a directory operation: listing, renaming or removing a
//! directory touches what is beneath it, so a rule on `dir/*` must decide it too.
//!
//! Owns two readings of "beneath D", each for the operations it fits:
//! - [`entries_pattern`]: the pattern of *an arbitrary entry* of D (`D/*`, the `*`
//!   taken as a name). Evaluated like any path, it is what a rule says about D's
//!   entries as such: a deny on `secrets/*` covers listing `secrets`, while a rule on
//!   `*.env` does not make every directory unlistable.
//! - [`evaluate_beneath`]: the strictest decision any path beneath D could get. Moving
//!   a directory moves every file in it out from under its rules, so a rename is
//!   checked against every rule that could match something inside (`secrets/*.key`
//!   refuses renaming `secrets`), up to the last rule that covers all of D.

use crate::evaluate::{Decision, evaluate};
use crate::rule::{Action, Ruleset};
use crate::wildcard;

/// The pattern standing for an arbitrary entry of directory `dir` (a rule pattern:
/// project-relative, `.` for the root, or absolute).
pub fn entries_pattern(dir: &str) -> String {
    match dir {
        "." | "" => "*".to_string(),
        _ => format!("{}/*", dir.trim_end_matches('/')),
    }
}

/// The strictest decision `permission` could get for directory `dir` itself or any
/// path beneath it, under `layers` (last match wins, no match asks).
///
/// Scans the rules from the last back. A rule that could match some path beneath
/// `dir` contributes its action; the scan stops at the last ordinary rule that
/// matches *every* path beneath `dir`, since nothing before it decides anything
/// there. Without such a rule some paths match nothing, which asks.
pub fn evaluate_beneath<'a>(permission: &str, dir: &str, layers: &'a [Ruleset]) -> Decision<'a> {
    let mut strictest = evaluate(permission, dir, layers);
    let prefix = format!("{}/", dir.trim_end_matches('/'));
    let prefix = if dir == "." { "" } else { prefix.as_str() };
    let mut covered = false;
    let rules = layers
        .iter()
        .rev()
        .flat_map(|set| set.rules.iter().rev().map(move |rule| (set, rule)));
    for (set, rule) in rules {
        if !wildcard::matches(&rule.permission, permission) {
            continue;
        }
        let pattern = wildcard::expand_home(&rule.pattern);
        let reach = Reach::after(&pattern, prefix);
        if !reach.some {
            continue;
        }
        let decision = Decision {
            action: rule.action,
            rule: Some((set, rule)),
        };
        if strictness(decision.action) > strictness(strictest.action) {
            strictest = decision;
        }
        // A narrowing layer's allow or ask decides nothing on its own.
        if reach.all && !set.narrowing {
            covered = true;
            break;
        }
    }
    if !covered && strictness(Action::Ask) > strictness(strictest.action) {
        strictest = Decision {
            action: Action::Ask,
            rule: None,
        };
    }
    strictest
}

fn strictness(action: Action) -> u8 {
    match action {
        Action::Allow => 0,
        Action::Ask => 1,
        Action::Deny => 2,
    }
}

/// What a wildcard pattern can still match once it has read a prefix.
struct Reach {
    /// Some text beginning with the prefix matches.
    some: bool,
    /// Every non-empty continuation of the prefix matches.
    all: bool,
}

impl Reach {
    /// Runs `pattern` over `prefix` (`*` any run, `?` one character, else literal)
    /// and looks at where it can be.
    fn after(pattern: &str, prefix: &str) -> Reach {
        let pat: Vec<char> = pattern.chars().collect();
        let mut at = vec![false; pat.len() + 1];
        at[0] = true;
        close(&pat, &mut at);
        for c in prefix.chars() {
            let mut next = vec![false; pat.len() + 1];
            for (i, _) in at.iter().enumerate().filter(|(_, on)| **on) {
                match pat.get(i) {
                    Some('*') => next[i] = true,
                    Some('?') => next[i + 1] = true,
                    Some(p) if *p == c => next[i + 1] = true,
                    _ => {}
                }
            }
            close(&pat, &mut next);
            at = next;
        }
        let some = at.iter().any(|on| *on);
        // Only stars left (at least one): anything that follows matches.
        let all = at
            .iter()
            .enumerate()
            .any(|(i, on)| *on && i < pat.len() && pat[i..].iter().all(|c| *c == '*'));
        Reach { some, all }
    }
}

/// A star can match nothing: wherever one is reachable, so is what follows it.
fn close(pat: &[char], at: &mut [bool]) {
    for i in 0..pat.len() {
        if at[i] && pat[i] == '*' {
            at[i + 1] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::Rule;

    fn rules(list: &[(&str, &str, Action)]) -> Vec<Ruleset> {
        vec![Ruleset::new(
            "test",
            list.iter()
                .map(|(perm, pat, action)| Rule::new(*perm, *pat, *action))
                .collect(),
        )]
    }

    #[test]
    fn entries_of_a_directory() {
        assert_eq!(entries_pattern("."), "*");
        assert_eq!(entries_pattern("secrets"), "secrets/*");
        assert_eq!(entries_pattern("/abs/dir/"), "/abs/dir/*");
        let layers = rules(&[
            ("read", "*", Action::Allow),
            ("read", "secrets/*", Action::Deny),
            ("read", "*.env", Action::Ask),
        ]);
        let at = |dir: &str| evaluate("read", &entries_pattern(dir), &layers).action;
        assert_eq!(at("secrets"), Action::Deny);
        assert_eq!(
            at("."),
            Action::Allow,
            "a *.env rule leaves the root listable"
        );
        assert_eq!(at("src"), Action::Allow);
    }

    #[test]
    fn everything_beneath_a_directory() {
        use Action::{Allow, Ask, Deny};
        let layers = rules(&[
            ("*", "*", Allow),
            ("edit", "secrets/*.key", Deny),
            ("edit", "docs/*", Ask),
            ("edit", "docs/public*", Allow),
        ]);
        let at = |dir: &str| evaluate_beneath("edit", dir, &layers).action;
        assert_eq!(at("secrets"), Deny, "a key inside would move");
        assert_eq!(at("src"), Allow);
        assert_eq!(at("docs"), Ask);
        assert_eq!(at("docs/public"), Allow, "covered by a later allow");
        assert_eq!(at("."), Deny);
        // No rule covers everything: unmatched paths ask.
        let partial = rules(&[("edit", "src/*.rs", Allow)]);
        assert_eq!(evaluate_beneath("edit", "src", &partial).action, Ask);
        // A later allow of everything beneath outvotes an earlier deny.
        let later = rules(&[("edit", "*", Deny), ("edit", "src/*", Allow)]);
        assert_eq!(evaluate_beneath("edit", "src/a", &later).action, Allow);
        assert_eq!(evaluate_beneath("edit", "lib", &later).action, Deny);
    }

    #[test]
    fn reach_of_patterns() {
        let r = |p: &str, prefix: &str| {
            let r = Reach::after(p, prefix);
            (r.some, r.all)
        };
        assert_eq!(r("secrets/*", "secrets/"), (true, true));
        assert_eq!(r("secrets/*.key", "secrets/"), (true, false));
        assert_eq!(r("*.env", "src/"), (true, false));
        assert_eq!(r("docs/*", "src/"), (false, false));
        assert_eq!(r("s?c*", "sec/"), (true, true));
        assert_eq!(r("secrets", "secrets/"), (false, false));
    }
}
