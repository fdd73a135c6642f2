//! Glob patterns (`**`, `*`, `?`, `[abc]`, `[!a-z]`, `{a,b}`), compiled to a regex.
//!
//! Paths are `/`-separated and relative to the directory being searched. As with
//! ripgrep's `--glob` and `.gitignore`, a pattern without a `/` matches the file name at
//! any depth (`*.rs` finds `src/lib.rs`); one with a `/` matches the whole relative path.

use regex::Regex;

/// A compiled glob pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    regex: Regex,
    basename_only: bool,
}

impl Glob {
    /// Compiles `pattern`; the error explains what is malformed.
    pub fn new(pattern: &str) -> Result<Self, String> {
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        let source = translate(pattern)?;
        let regex = Regex::new(&source).map_err(|e| format!("invalid glob `{pattern}`: {e}"))?;
        Ok(Glob {
            regex,
            basename_only: !pattern.contains('/'),
        })
    }

    /// Compiles `pattern` to match whole relative paths even without a `/` (for
    /// `.gitignore` rules anchored to their directory).
    pub fn anchored(pattern: &str) -> Result<Self, String> {
        let mut glob = Glob::new(pattern)?;
        glob.basename_only = false;
        Ok(glob)
    }

    /// Whether the relative path `rel` matches.
    pub fn is_match(&self, rel: &str) -> bool {
        if self.basename_only {
            self.regex.is_match(basename(rel))
        } else {
            self.regex.is_match(rel)
        }
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

/// Translates a glob into an anchored regex source.
fn translate(pattern: &str) -> Result<String, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::from("^");
    let mut depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '*' if chars.get(i + 1) == Some(&'*') => {
                let segment_start = i == 0 || chars[i - 1] == '/';
                while chars.get(i) == Some(&'*') {
                    i += 1;
                }
                if segment_start && chars.get(i) == Some(&'/') {
                    // `**/` also matches zero directories.
                    out.push_str("(?:.*/)?");
                    i += 1;
                } else {
                    out.push_str(".*");
                }
                continue;
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '[' => match class(&chars[i + 1..]) {
                Some((class, used)) => {
                    out.push_str(&class);
                    i += used + 1;
                    continue;
                }
                None => out.push_str(r"\["),
            },
            '{' => {
                depth += 1;
                out.push_str("(?:");
            }
            ',' if depth > 0 => out.push('|'),
            '}' if depth > 0 => {
                depth -= 1;
                out.push(')');
            }
            '\\' => {
                i += 1;
                if let Some(&next) = chars.get(i) {
                    out.push_str(&regex::escape(&next.to_string()));
                }
            }
            other => out.push_str(&regex::escape(&other.to_string())),
        }
        i += 1;
    }
    if depth > 0 {
        return Err(format!("invalid glob `{pattern}`: unclosed `{{`"));
    }
    out.push('$');
    Ok(out)
}

/// Translates a `[...]` class whose body starts at `rest`; returns the regex class and
/// how many chars it used (including the closing `]`), or `None` when it is not closed.
fn class(rest: &[char]) -> Option<(String, usize)> {
    let mut i = 0;
    let mut out = String::from("[");
    if matches!(rest.first(), Some('!') | Some('^')) {
        out.push('^');
        i += 1;
    }
    let body_start = i;
    loop {
        let c = *rest.get(i)?;
        // A `]` right after the opening is a literal, as in shells.
        if c == ']' && i > body_start {
            break;
        }
        let is_range = c == '-' && i > body_start && rest.get(i + 1).is_some_and(|n| *n != ']');
        if is_range {
            out.push('-');
        } else if matches!(c, '\\' | '[' | ']' | '^' | '&' | '~' | '-') {
            out.push('\\');
            out.push(c);
        } else {
            out.push(c);
        }
        i += 1;
    }
    out.push(']');
    Some((out, i + 1))
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
    fn unclosed_brace_is_an_error() {
        assert!(Glob::new("{a,b").is_err());
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
