//! Glob patterns (`**`, `*`, `?`, `[abc]`, `[!a-z]`, `{a,b}`), compiled by ripgrep's
//! `globset`.
//!
//! Paths are `/`-separated and relative to the directory being searched. As with
//! ripgrep's `--glob` and `.gitignore`, a pattern without a `/` matches the file name at
//! any depth (`*.rs` finds `src/lib.rs`); one with a `/` matches the whole relative path.
//!
//! Two spellings `globset` reads differently are rewritten first, so patterns mean what
//! they meant before: a `**` that is not a whole path segment (`src/**.rs`) still spans
//! directories (`globset` would read it as `*`), and a `[` that is never closed is a
//! literal (`globset` would refuse it).
//!
//! `globset` brings a regex engine: the `glob` and `list` components grow from about
//! 0.43 MB to 1.8 MB (`grep`, which had one already, from 1.71 to 1.83 MB). Matching
//! was not measurably slower (#15 item 7).

use std::fmt;

use globset::{GlobBuilder, GlobMatcher};
use ward_sdk::ToolError;

/// A pattern `globset` refuses, with the reason (a model's tool arguments are the usual
/// source, so the message is for the model).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError {
    /// The pattern as written (after a leading `./` is dropped).
    pub pattern: String,
    /// Why it is malformed, in `globset`'s words.
    pub reason: String,
}

impl fmt::Display for GlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid glob `{}`: {}", self.pattern, self.reason)
    }
}

impl std::error::Error for GlobError {}

/// A malformed pattern in a tool's arguments is the model's to fix.
impl From<GlobError> for ToolError {
    fn from(error: GlobError) -> Self {
        ToolError::InvalidArguments(error.to_string())
    }
}

/// A compiled glob pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    matcher: GlobMatcher,
    basename_only: bool,
}

impl Glob {
    /// Compiles `pattern`; the error explains what is malformed.
    pub fn new(pattern: &str) -> Result<Self, GlobError> {
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        let matcher = GlobBuilder::new(&rewrite(pattern))
            .literal_separator(true)
            .backslash_escape(true)
            .empty_alternates(true)
            .build()
            .map_err(|e| GlobError {
                pattern: pattern.to_string(),
                reason: e.kind().to_string(),
            })?
            .compile_matcher();
        Ok(Glob {
            matcher,
            basename_only: !pattern.contains('/'),
        })
    }

    /// Compiles `pattern` to match whole relative paths even without a `/` (for
    /// patterns anchored to a directory).
    pub fn anchored(pattern: &str) -> Result<Self, GlobError> {
        let mut glob = Glob::new(pattern)?;
        glob.basename_only = false;
        Ok(glob)
    }

    /// Whether the relative path `rel` matches.
    pub fn is_match(&self, rel: &str) -> bool {
        let subject = if self.basename_only {
            basename(rel)
        } else {
            rel
        };
        self.matcher.is_match(subject)
    }
}

/// The part of `rel` after its last `/`.
pub fn basename(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

/// Whether `s` contains glob syntax (so it is a pattern rather than a literal path).
pub fn has_magic(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

/// Rewrites `pattern` for `globset`: a `**` that is not a whole segment becomes
/// `{*,*/**/*}` (any run of characters, `/` included), an unclosed `[` becomes `\[`.
fn rewrite(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len());
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                out.extend(chars.get(i..i + 2).unwrap_or(&chars[i..]));
                i += 2;
                continue;
            }
            '*' if chars.get(i + 1) == Some(&'*') => {
                let start = i;
                while chars.get(i) == Some(&'*') {
                    i += 1;
                }
                let whole_segment = (start == 0 || matches!(chars[start - 1], '/' | '{' | ','))
                    && chars.get(i).is_none_or(|c| matches!(c, '/' | '}' | ','));
                out.push_str(if whole_segment { "**" } else { "{*,*/**/*}" });
                continue;
            }
            '[' => match class_len(&chars[i + 1..]) {
                Some(len) => {
                    out.extend(&chars[i..=i + len]);
                    i += len + 1;
                    continue;
                }
                None => out.push_str("\\["),
            },
            other => out.push(other),
        }
        i += 1;
    }
    out
}

/// The length of the `[...]` class whose body starts at `rest`, closing `]` included,
/// or `None` when it is never closed. A `]` first in the body is a literal, as in shells.
fn class_len(rest: &[char]) -> Option<usize> {
    let body = usize::from(matches!(rest.first(), Some('!' | '^')));
    let close = rest
        .iter()
        .enumerate()
        .skip(body + 1)
        .find(|(_, c)| **c == ']')?
        .0;
    Some(close + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, path: &str) -> bool {
        Glob::new(pattern)
            .map(|g| g.is_match(path))
            .unwrap_or(false)
    }

    #[test]
    fn star_stays_within_a_segment() {
        assert!(m("src/*.rs", "src/lib.rs"));
        assert!(!m("src/*.rs", "src/a/lib.rs"));
        assert!(m("*.rs", "lib.rs"));
    }

    #[test]
    fn patterns_without_slash_match_basenames_anywhere() {
        assert!(m("*.rs", "src/deep/lib.rs"));
        assert!(m("Cargo.toml", "a/Cargo.toml"));
        assert!(!m("*.rs", "src/lib.rsx"));
    }

    #[test]
    fn double_star_spans_directories() {
        assert!(m("**/*.rs", "lib.rs"));
        assert!(m("**/*.rs", "a/b/c.rs"));
        assert!(m("src/**/*.rs", "src/x.rs"));
        assert!(m("src/**/*.rs", "src/a/b/x.rs"));
        assert!(!m("src/**/*.rs", "other/x.rs"));
        assert!(m("src/**", "src/a/b"));
        assert!(m("a/**/b", "a/b"));
        assert!(m("a/**/b", "a/x/y/b"));
    }

    #[test]
    fn question_mark_classes_and_braces() {
        assert!(m("?.txt", "a.txt"));
        assert!(!m("?.txt", "ab.txt"));
        assert!(m("[ab].txt", "b.txt"));
        assert!(!m("[!ab].txt", "b.txt"));
        assert!(m("[a-c]x", "bx"));
        assert!(m("*.{ts,tsx}", "x/y.tsx"));
        assert!(m("*.{ts,tsx}", "y.ts"));
        assert!(!m("*.{ts,tsx}", "y.js"));
        assert!(m("{src,lib}/**/*.{rs,toml}", "lib/a/b.toml"));
    }

    #[test]
    fn regex_metacharacters_are_literal() {
        assert!(m("a+b(1).txt", "a+b(1).txt"));
        assert!(!m("a.b", "axb"));
        assert!(m("[x", "[x"));
        assert!(m(r"\*", "*"));
    }

    #[test]
    fn double_star_inside_a_segment_still_spans_directories() {
        assert!(m("src/**.rs", "src/a/b.rs"));
        assert!(m("x/a**b", "x/ac/db"));
        assert!(m("a**b", "ab"));
        assert!(!m("x/a**b", "x/ac/d"));
        assert!(m("{**/a,b}", "x/a"));
        assert!(m("{**/a,b}", "a"));
        assert!(!m("src/**.rs", "lib/a.rs"));
    }

    #[test]
    fn unclosed_brace_is_an_error() {
        assert!(Glob::new("{a,b").is_err());
    }

    #[test]
    fn braces_nest_and_negated_classes_skip_slashes() {
        assert!(m("a{b,c{d,e}}f", "acef"));
        assert!(m("a{b,c{d,e}}f", "abf"));
        assert!(!m("a{b,c{d,e}}f", "acf"));
        assert!(m("{,x}y", "y"));
        assert!(!m("a[!b]c", "a/c"));
        assert!(m("a[]]c", "a]c"));
        assert!(m("[a-]x", "-x"));
    }

    #[test]
    fn stars_backtrack() {
        assert!(m("*a*b*c", "xaxxbxxc"));
        assert!(!m("*a*b*c", "xaxxcxxb"));
        assert!(m("**/a/**/b", "x/a/y/z/b"));
        assert!(m("src/**", "src/"));
        assert!(m("**", "any/thing"));
    }

    #[test]
    fn anchored_matches_whole_path() {
        let Ok(g) = Glob::anchored("build") else {
            panic!("valid glob")
        };
        assert!(g.is_match("build"));
        assert!(!g.is_match("x/build"));
    }
}
