//! Unified diffs of a file's old and new text, shown to the user when a tool edits files
//! (metadata `diff`, and the permission question's details).

use std::time::Duration;

use similar::{ChangeTag, TextDiff};

/// A diff and its size.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileDiff {
    /// Unified diff text with `--- label` / `+++ label` headers and 3 lines of context.
    pub text: String,
    /// Lines added.
    pub additions: usize,
    /// Lines removed.
    pub deletions: usize,
}

/// Diffs `old` against `new` line by line. The diff is bounded in time so that a huge
/// rewrite cannot stall a tool; it is then coarser but still correct.
pub fn unified(label: &str, old: &str, new: &str) -> FileDiff {
    let diff = TextDiff::configure()
        .timeout(Duration::from_millis(500))
        .diff_lines(old, new);
    let mut additions = 0;
    let mut deletions = 0;
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => additions += 1,
            ChangeTag::Delete => deletions += 1,
            ChangeTag::Equal => {}
        }
    }
    let text = if additions + deletions == 0 {
        String::new()
    } else {
        diff.unified_diff()
            .context_radius(3)
            .header(label, label)
            .to_string()
    };
    FileDiff {
        text,
        additions,
        deletions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_has_headers_and_counts() {
        let d = unified("a.txt", "one\ntwo\nthree\n", "one\n2\nthree\n");
        assert!(
            d.text
                .starts_with("--- a.txt\n+++ a.txt\n@@ -1,3 +1,3 @@\n")
        );
        assert!(d.text.contains("-two\n+2\n"));
        assert_eq!((d.additions, d.deletions), (1, 1));
    }

    #[test]
    fn identical_texts_have_no_diff() {
        assert_eq!(unified("a", "x\n", "x\n"), FileDiff::default());
    }

    #[test]
    fn created_file_is_all_additions() {
        let d = unified("n", "", "a\nb\n");
        assert_eq!((d.additions, d.deletions), (2, 0));
        assert!(d.text.contains("+a\n+b\n"));
    }
}
