//! Glob patterns (`**`, `*`, `?`, `[abc]`, `[!a-z]`, `{a,b}`), matched by a small
//! backtracking matcher (a regex engine would quadruple the size of the components).
//!
//! Paths are `/`-separated and relative to the directory being searched. As with
//! ripgrep's `--glob` and `.gitignore`, a pattern without a `/` matches the file name at
//! any depth (`*.rs` finds `src/lib.rs`); one with a `/` matches the whole relative path.

/// Most alternatives `{a,b}` groups may expand to.
const MAX_ALTERNATIVES: usize = 1024;

/// One element of a compiled pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// This character.
    Literal(char),
    /// `?`: one character other than `/`.
    One,
    /// `*`: any run of characters other than `/`.
    Star,
    /// `**` not followed by `/`: any run of characters.
    GlobStar,
    /// `**/` at the start of a segment: nothing, or any run of characters ending in `/`.
    Dirs,
    /// `[...]`: one character in (or, negated, not in and not `/`) the ranges.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

/// A compiled glob pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    alternatives: Vec<Vec<Token>>,
    basename_only: bool,
}

impl Glob {
    /// Compiles `pattern`; the error explains what is malformed.
    pub fn new(pattern: &str) -> Result<Self, String> {
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        let alternatives = expand_braces(pattern)
            .map_err(|e| format!("invalid glob `{pattern}`: {e}"))?
            .iter()
            .map(|alt| compile(alt))
            .collect();
        Ok(Glob {
            alternatives,
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
        let subject = if self.basename_only {
            basename(rel)
        } else {
            rel
        };
        let chars: Vec<char> = subject.chars().collect();
        self.alternatives
            .iter()
            .any(|tokens| matches(tokens, &chars))
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

/// Expands `{a,b}` groups (nested too) into the plain patterns they stand for.
fn expand_braces(pattern: &str) -> Result<Vec<String>, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut open = None;
    let mut depth = 0;
    let mut commas = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '{' => {
                if depth == 0 {
                    open = Some(i);
                    commas.clear();
                }
                depth += 1;
            }
            ',' if depth == 1 => commas.push(i),
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0
                    && let Some(start) = open
                {
                    let prefix: String = chars[..start].iter().collect();
                    let suffix: String = chars[i + 1..].iter().collect();
                    let mut bounds = vec![start];
                    bounds.extend(&commas);
                    bounds.push(i);
                    let mut out = Vec::new();
                    for pair in bounds.windows(2) {
                        let middle: String = chars[pair[0] + 1..pair[1]].iter().collect();
                        for rest in expand_braces(&format!("{prefix}{middle}{suffix}"))? {
                            out.push(rest);
                            if out.len() > MAX_ALTERNATIVES {
                                return Err("too many `{}` alternatives".into());
                            }
                        }
                    }
                    return Ok(out);
                }
            }
            _ => {}
        }
        i += 1;
    }
    if depth > 0 {
        return Err("unclosed `{`".into());
    }
    Ok(vec![pattern.to_string()])
}

/// Compiles a brace-free pattern.
fn compile(pattern: &str) -> Vec<Token> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut tokens = Vec::new();
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
                    tokens.push(Token::Dirs);
                    i += 1;
                } else {
                    tokens.push(Token::GlobStar);
                }
                continue;
            }
            '*' => tokens.push(Token::Star),
            '?' => tokens.push(Token::One),
            '[' => match class(&chars[i + 1..]) {
                Some((token, used)) => {
                    tokens.push(token);
                    i += used + 1;
                    continue;
                }
                None => tokens.push(Token::Literal('[')),
            },
            '\\' => {
                i += 1;
                if let Some(&next) = chars.get(i) {
                    tokens.push(Token::Literal(next));
                }
            }
            other => tokens.push(Token::Literal(other)),
        }
        i += 1;
    }
    tokens
}

/// Compiles a `[...]` class whose body starts at `rest`; returns it and how many chars it
/// used (including the closing `]`), or `None` when it is not closed.
fn class(rest: &[char]) -> Option<(Token, usize)> {
    let mut i = 0;
    let negated = matches!(rest.first(), Some('!') | Some('^'));
    if negated {
        i += 1;
    }
    let body_start = i;
    let mut ranges = Vec::new();
    loop {
        let c = *rest.get(i)?;
        // A `]` right after the opening is a literal, as in shells.
        if c == ']' && i > body_start {
            break;
        }
        match (rest.get(i + 1), rest.get(i + 2)) {
            (Some('-'), Some(&end)) if end != ']' => {
                ranges.push((c, end));
                i += 3;
            }
            _ => {
                ranges.push((c, c));
                i += 1;
            }
        }
    }
    Some((Token::Class { negated, ranges }, i + 1))
}

/// Whether `tokens` match all of `subject`.
fn matches(tokens: &[Token], subject: &[char]) -> bool {
    // memo[t * (n + 1) + s]: whether tokens[t..] match subject[s..], once known.
    let n = subject.len();
    let mut memo = vec![None; (tokens.len() + 1) * (n + 1)];
    match_from(tokens, subject, 0, 0, &mut memo)
}

fn match_from(
    tokens: &[Token],
    subject: &[char],
    t: usize,
    s: usize,
    memo: &mut [Option<bool>],
) -> bool {
    let key = t * (subject.len() + 1) + s;
    if let Some(known) = memo[key] {
        return known;
    }
    let result = match tokens.get(t) {
        None => s == subject.len(),
        Some(Token::Literal(c)) => {
            subject.get(s) == Some(c) && match_from(tokens, subject, t + 1, s + 1, memo)
        }
        Some(Token::One) => {
            subject.get(s).is_some_and(|c| *c != '/')
                && match_from(tokens, subject, t + 1, s + 1, memo)
        }
        Some(Token::Class { negated, ranges }) => {
            subject.get(s).is_some_and(|c| {
                let inside = ranges.iter().any(|(lo, hi)| lo <= c && c <= hi);
                if *negated {
                    !inside && *c != '/'
                } else {
                    inside
                }
            }) && match_from(tokens, subject, t + 1, s + 1, memo)
        }
        Some(Token::Star) => {
            // Try every run of non-`/` characters.
            let mut end = s;
            loop {
                if match_from(tokens, subject, t + 1, end, memo) {
                    break true;
                }
                if end == subject.len() || subject[end] == '/' {
                    break false;
                }
                end += 1;
            }
        }
        Some(Token::GlobStar) => {
            (s..=subject.len()).any(|end| match_from(tokens, subject, t + 1, end, memo))
        }
        Some(Token::Dirs) => {
            // Nothing, or up to and including any later `/`.
            match_from(tokens, subject, t + 1, s, memo)
                || (s..subject.len())
                    .filter(|&i| subject[i] == '/')
                    .any(|i| match_from(tokens, subject, t + 1, i + 1, memo))
        }
    };
    memo[key] = Some(result);
    result
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
