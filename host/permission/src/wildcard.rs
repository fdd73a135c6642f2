//! The wildcard language of permission rules.
//!
//! Owns matching a rule's permission name or pattern against a request: `*` matches
//! any run of characters (including `/`), `?` exactly one character, and everything
//! else is literal. A pattern ending in ` *` also matches its bare prefix, so
//! `git *` covers a plain `git`. A leading `~` or `$HOME` stands for the home
//! directory. The match is always over the whole text.

use std::borrow::Cow;

/// Returns whether `pattern` matches the whole of `text`.
///
/// `~` or `$HOME` at the start of `pattern` is expanded first (see [`expand_home`]).
pub fn matches(pattern: &str, text: &str) -> bool {
    let pattern = expand_with(pattern, home_dir);
    if glob(&pattern, text) {
        return true;
    }
    // `git *` is written to mean "git, with any arguments", including none.
    pattern
        .strip_suffix(" *")
        .is_some_and(|prefix| glob(prefix, text))
}

/// Expands a leading `~` or `$HOME` in `pattern` to the home directory (`$HOME`).
///
/// Only a whole leading component is expanded (`~`, `~/x`, `$HOME/x`); `~user` and
/// `$HOMEDIR` are left alone, as is everything when no home directory is known.
pub fn expand_home(pattern: &str) -> String {
    expand_with(pattern, home_dir).into_owned()
}

fn home_dir() -> Option<String> {
    std::env::var("HOME")
        .or_else(|_| std::env::var("USERPROFILE"))
        .ok()
}

/// Expansion with an injectable home lookup, read only when the pattern needs it:
/// matching runs for every rule of every check, so the common case must not touch
/// the environment or allocate.
fn expand_with(pattern: &str, home: impl FnOnce() -> Option<String>) -> Cow<'_, str> {
    let rest = match pattern
        .strip_prefix("$HOME")
        .or_else(|| pattern.strip_prefix('~'))
    {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
        _ => return Cow::Borrowed(pattern),
    };
    match home() {
        Some(home) if !home.is_empty() => {
            Cow::Owned(format!("{}{rest}", home.trim_end_matches('/')))
        }
        _ => Cow::Borrowed(pattern),
    }
}

/// Iterative glob match with single-star backtracking: on a mismatch we retry from
/// the most recent `*`, letting it swallow one more character. Linear in practice
/// and never exponential, unlike naive recursion.
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text);
    let (mut pi, mut ti) = (0usize, 0usize);
    // (pattern index just after the last `*`, text index that `*` currently ends at)
    let mut backtrack: Option<(usize, usize)> = None;

    while ti < t.len() {
        let tc = next_char(t, ti);
        match p.get(pi) {
            Some(b'*') => {
                pi += 1;
                backtrack = Some((pi, ti));
                continue;
            }
            Some(b'?') => {
                pi += 1;
                ti += tc.len_utf8();
                continue;
            }
            Some(_) => {
                let pc = next_char(pattern, pi);
                if pc == tc {
                    pi += pc.len_utf8();
                    ti += tc.len_utf8();
                    continue;
                }
            }
            None => {}
        }
        match backtrack {
            Some((star_pi, star_ti)) => {
                let skipped = next_char(t, star_ti).len_utf8();
                pi = star_pi;
                ti = star_ti + skipped;
                backtrack = Some((star_pi, ti));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&b| b == b'*')
}

/// The character starting at byte `at`; callers only pass char boundaries.
fn next_char(s: &str, at: usize) -> char {
    s[at..].chars().next().unwrap_or('\0')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_and_whole_string() {
        assert!(matches("read", "read"));
        assert!(!matches("read", "reader"));
        assert!(!matches("read", "xread"));
        assert!(matches("", ""));
        assert!(!matches("", "a"));
    }

    #[test]
    fn star_matches_any_run_including_slashes() {
        assert!(matches("*", ""));
        assert!(matches("*", "a/b/c"));
        assert!(matches("*.env", "config/.env"));
        assert!(!matches("*.env", "config/.env.local"));
        assert!(matches("*.env.*", "config/.env.local"));
        assert!(matches("src/*", "src/a/b.rs"));
        assert!(matches("a*b*c", "aXXbYYbZc"));
        assert!(!matches("a*b*c", "aXXbYY"));
        assert!(matches("**", "anything"));
    }

    #[test]
    fn question_mark_matches_exactly_one_char() {
        assert!(matches("?", "a"));
        assert!(matches("?", "é"));
        assert!(!matches("?", ""));
        assert!(!matches("?", "ab"));
        assert!(matches("file?.txt", "file1.txt"));
        assert!(!matches("file?.txt", "file10.txt"));
    }

    #[test]
    fn regex_metacharacters_are_literal() {
        assert!(matches("a.b", "a.b"));
        assert!(!matches("a.b", "axb"));
        assert!(matches("(x)+[y]^$|\\", "(x)+[y]^$|\\"));
        assert!(!matches("a+", "aa"));
    }

    #[test]
    fn trailing_space_star_also_matches_bare_prefix() {
        assert!(matches("git *", "git"));
        assert!(matches("git *", "git status"));
        assert!(!matches("git *", "gitk"));
        assert!(matches("git checkout *", "git checkout"));
        assert!(!matches("git checkout *", "git"));
    }

    #[test]
    fn unicode_text_is_matched_by_char() {
        assert!(matches("héllo*", "héllo wörld"));
        assert!(matches("*ö*", "wörld"));
        assert!(!matches("h?llo", "hllo"));
    }

    #[test]
    fn home_expansion() {
        let home = || Some("/home/u".to_string());
        assert_eq!(expand_with("~", home), "/home/u");
        assert_eq!(expand_with("~/src/*", home), "/home/u/src/*");
        assert_eq!(expand_with("$HOME/x", home), "/home/u/x");
        assert_eq!(expand_with("~user/x", home), "~user/x");
        assert_eq!(expand_with("$HOMEDIR", home), "$HOMEDIR");
        assert_eq!(expand_with("a/~", home), "a/~");
        assert_eq!(expand_with("~/x", || None), "~/x");
        assert_eq!(expand_with("~/x", || Some("/".into())), "/x");
    }

    #[test]
    fn matches_uses_the_real_home() {
        if let Some(home) = home_dir().filter(|h| !h.is_empty() && h != "/") {
            let file = format!("{}/notes.txt", home.trim_end_matches('/'));
            assert!(matches("~/*", &file));
            assert!(matches("$HOME/*.txt", &file));
            assert_eq!(
                expand_home("~/a"),
                format!("{}/a", home.trim_end_matches('/'))
            );
        }
    }
}
