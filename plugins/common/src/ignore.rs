//! `.gitignore` rules: the subset searches need (globs, `!` negation, trailing `/` for
//! directories only, patterns with a `/` anchored to the file's directory).

use std::path::{Path, PathBuf};

use crate::glob::Glob;

/// One rule line.
#[derive(Debug, Clone)]
struct Rule {
    glob: Glob,
    negate: bool,
    dir_only: bool,
}

/// The rules of one `.gitignore`, relative to the directory holding it.
#[derive(Debug, Clone)]
pub struct IgnoreFile {
    base: PathBuf,
    rules: Vec<Rule>,
}

impl IgnoreFile {
    /// Parses `text` as the `.gitignore` of directory `base`. Malformed lines are skipped,
    /// as git does.
    pub fn parse(base: impl Into<PathBuf>, text: &str) -> Self {
        let rules = text.lines().filter_map(parse_rule).collect();
        IgnoreFile {
            base: base.into(),
            rules,
        }
    }

    /// Reads `dir/.gitignore`, if there is one with rules.
    pub fn load(dir: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(dir.join(".gitignore")).ok()?;
        let file = IgnoreFile::parse(dir, &text);
        (!file.rules.is_empty()).then_some(file)
    }

    /// `Some(true)` if the last matching rule ignores `path`, `Some(false)` if it
    /// re-includes it, `None` if no rule matches or `path` is outside `base`.
    pub fn decide(&self, path: &Path, is_dir: bool) -> Option<bool> {
        let rel = path.strip_prefix(&self.base).ok()?;
        let rel = rel.to_string_lossy();
        let rel = rel.replace('\\', "/");
        if rel.is_empty() {
            return None;
        }
        self.rules
            .iter()
            .rev()
            .find(|rule| (is_dir || !rule.dir_only) && rule.glob.is_match(&rel))
            .map(|rule| !rule.negate)
    }
}

/// Whether `path` is ignored by a stack of `.gitignore` files (outermost first; deeper
/// files override shallower ones).
pub fn is_ignored(stack: &[IgnoreFile], path: &Path, is_dir: bool) -> bool {
    stack
        .iter()
        .rev()
        .find_map(|file| file.decide(path, is_dir))
        .unwrap_or(false)
}

fn parse_rule(line: &str) -> Option<Rule> {
    let line = line.trim_end_matches('\r');
    if line.trim().is_empty() || line.starts_with('#') {
        return None;
    }
    let mut pattern = line.trim_end();
    let negate = pattern.starts_with('!');
    if negate {
        pattern = &pattern[1..];
    } else if let Some(rest) = pattern.strip_prefix('\\') {
        // `\!` and `\#` stand for a literal first character.
        if rest.starts_with(['!', '#']) {
            pattern = rest;
        }
    }
    let dir_only = pattern.ends_with('/');
    let pattern = pattern.trim_end_matches('/');
    if pattern.is_empty() {
        return None;
    }
    let glob = if pattern.contains('/') {
        Glob::anchored(pattern.trim_start_matches('/'))
    } else {
        Glob::new(pattern)
    }
    .ok()?;
    Some(Rule {
        glob,
        negate,
        dir_only,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ignored(text: &str, rel: &str, is_dir: bool) -> bool {
        let file = IgnoreFile::parse("/r", text);
        is_ignored(&[file], &Path::new("/r").join(rel), is_dir)
    }

    #[test]
    fn plain_names_match_at_any_depth() {
        assert!(ignored("target\n", "target", true));
        assert!(ignored("target\n", "a/target", true));
        assert!(ignored("*.log", "a/b/x.log", false));
        assert!(!ignored("*.log", "a/b/x.txt", false));
    }

    #[test]
    fn trailing_slash_means_directories_only() {
        assert!(ignored("build/", "build", true));
        assert!(!ignored("build/", "build", false));
    }

    #[test]
    fn slashes_anchor_to_the_base() {
        assert!(ignored("/target", "target", true));
        assert!(!ignored("/target", "sub/target", true));
        assert!(ignored("docs/*.html", "docs/a.html", false));
        assert!(!ignored("docs/*.html", "x/docs/a.html", false));
    }

    #[test]
    fn negation_and_comments() {
        let text = "# comment\n*.env\n!keep.env\n";
        assert!(ignored(text, "a.env", false));
        assert!(!ignored(text, "keep.env", false));
        assert!(ignored("\\#x", "#x", false));
    }

    #[test]
    fn deeper_files_override() {
        let outer = IgnoreFile::parse("/r", "*.txt\n");
        let inner = IgnoreFile::parse("/r/sub", "!a.txt\n");
        let stack = [outer, inner];
        assert!(!is_ignored(&stack, Path::new("/r/sub/a.txt"), false));
        assert!(is_ignored(&stack, Path::new("/r/sub/b.txt"), false));
        assert!(is_ignored(&stack, Path::new("/r/a.txt"), false));
    }
}
