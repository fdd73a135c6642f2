//! `.gitignore` rules, matched by the `ignore` crate's gitignore matcher (ripgrep's):
//! globs, `!` negation, trailing `/` for directories only, patterns with a `/` anchored
//! to the file's directory, escapes.

use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The rules of one `.gitignore`, relative to the directory holding it.
#[derive(Debug, Clone)]
pub struct IgnoreFile {
    base: PathBuf,
    rules: Gitignore,
}

impl IgnoreFile {
    /// Parses `text` as the `.gitignore` of directory `base`. Malformed lines are skipped,
    /// as git does.
    pub fn parse(base: impl Into<PathBuf>, text: &str) -> Self {
        let base = base.into();
        let mut builder = GitignoreBuilder::new(&base);
        for line in text.lines() {
            // A line the matcher refuses (an invalid glob) is skipped, the rest kept.
            let _ = builder.add_line(None, line);
        }
        let rules = builder.build().unwrap_or_else(|_| Gitignore::empty());
        IgnoreFile { base, rules }
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
        if rel.as_os_str().is_empty() {
            return None;
        }
        match self.rules.matched(rel, is_dir) {
            Match::None => None,
            Match::Ignore(_) => Some(true),
            Match::Whitelist(_) => Some(false),
        }
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
