//! Finding `oldString` in a file and replacing it: an exact match first, then fuzzier
//! matchers for the ways models misquote code (after OpenCode's `edit.ts` replacers):
//! line-trimmed, whitespace-normalised, indentation-flexible and block-anchor.
//!
//! Each matcher proposes candidate substrings *of the content*; the first candidate that
//! occurs exactly once (or at all, with `replaceAll`) is replaced.

use ward_tool_common::text::edit_distance;

/// Why a replacement could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplaceError {
    /// `oldString` equals `newString`.
    Identical,
    /// No matcher found `oldString`.
    NotFound,
    /// Every match found occurs more than once.
    Multiple,
}

/// A matcher: the candidate substrings of `content` that `find` may have meant.
type Matcher = fn(&str, &str) -> Vec<String>;

/// The matchers, most exact first, and whether they match whole lines whatever their
/// indentation (then `newString` is re-indented like the text it replaces).
const MATCHERS: &[(&str, Matcher, bool)] = &[
    ("exact", exact, false),
    ("line-trimmed", line_trimmed, true),
    ("whitespace-normalised", whitespace_normalised, false),
    ("indentation-flexible", indentation_flexible, true),
    ("block-anchor", block_anchor, true),
];

/// Block-anchor similarity (0..1) of the middle lines needed with one candidate block.
const SINGLE_CANDIDATE_SIMILARITY: f64 = 0.5;
/// Block-anchor similarity needed to pick one of several candidate blocks.
const MULTIPLE_CANDIDATES_SIMILARITY: f64 = 0.7;

/// A successful replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The new content.
    pub content: String,
    /// How many occurrences were replaced.
    pub count: usize,
    /// Which matcher found the text.
    pub matcher: &'static str,
}

/// Replaces `old` with `new` in `content` (every occurrence with `replace_all`).
pub fn replace(
    content: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<Replaced, ReplaceError> {
    if old == new {
        return Err(ReplaceError::Identical);
    }
    let mut found = false;
    for (name, matcher, line_based) in MATCHERS {
        for candidate in matcher(content, old) {
            if candidate.is_empty() {
                continue;
            }
            let Some(index) = content.find(&candidate) else {
                continue;
            };
            found = true;
            let new = if *line_based {
                reindent(new, old, &candidate)
            } else {
                new.to_string()
            };
            let new = new.as_str();
            if replace_all {
                return Ok(Replaced {
                    count: content.matches(&candidate).count(),
                    content: content.replace(&candidate, new),
                    matcher: name,
                });
            }
            if content.rfind(&candidate) != Some(index) {
                continue;
            }
            let mut out = String::with_capacity(content.len() + new.len());
            out.push_str(&content[..index]);
            out.push_str(new);
            out.push_str(&content[index + candidate.len()..]);
            return Ok(Replaced {
                content: out,
                count: 1,
                matcher: name,
            });
        }
    }
    Err(if found {
        ReplaceError::Multiple
    } else {
        ReplaceError::NotFound
    })
}

/// The leading whitespace of the first non-blank line of `text`.
fn first_indent(text: &str) -> &str {
    let line = text
        .split('\n')
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    &line[..line.len() - line.trim_start().len()]
}

/// `new` shifted by the indentation difference between the text found and `old`: a model
/// that quoted a block without its indentation most likely wrote `new` the same way, and
/// OpenCode's verbatim replacement would then break indentation-sensitive code.
fn reindent(new: &str, old: &str, found: &str) -> String {
    let (have, quoted) = (first_indent(found), first_indent(old));
    if have == quoted {
        return new.to_string();
    }
    let map_lines = |f: &dyn Fn(&str) -> String| {
        new.split('\n')
            .map(|l| {
                if l.trim().is_empty() {
                    l.to_string()
                } else {
                    f(l)
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    if let Some(extra) = have.strip_prefix(quoted) {
        map_lines(&|l| format!("{extra}{l}"))
    } else if let Some(extra) = quoted.strip_prefix(have) {
        map_lines(&|l| l.strip_prefix(extra).unwrap_or(l).to_string())
    } else {
        new.to_string()
    }
}

/// The content's lines with their byte offsets, to slice out blocks of lines.
struct Lines<'a> {
    content: &'a str,
    lines: Vec<&'a str>,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(content: &'a str) -> Self {
        let lines: Vec<&str> = content.split('\n').collect();
        let mut starts = Vec::with_capacity(lines.len());
        let mut at = 0;
        for line in &lines {
            starts.push(at);
            at += line.len() + 1;
        }
        Lines {
            content,
            lines,
            starts,
        }
    }

    /// Lines `first..=last` as they appear in the content, without the final newline.
    fn block(&self, first: usize, last: usize) -> &'a str {
        &self.content[self.starts[first]..self.starts[last] + self.lines[last].len()]
    }
}

/// The lines of `find`, without the empty line a trailing newline leaves.
fn search_lines(find: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = find.split('\n').collect();
    if lines.len() > 1 && lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

fn exact(_content: &str, find: &str) -> Vec<String> {
    vec![find.to_string()]
}

/// Blocks whose lines equal the searched lines once both are trimmed.
fn line_trimmed(content: &str, find: &str) -> Vec<String> {
    let lines = Lines::new(content);
    let search = search_lines(find);
    let mut out = Vec::new();
    for i in 0..(lines.lines.len() + 1).saturating_sub(search.len()) {
        let matches = search
            .iter()
            .enumerate()
            .all(|(j, s)| lines.lines[i + j].trim() == s.trim());
        if matches {
            out.push(lines.block(i, i + search.len() - 1).to_string());
        }
    }
    out
}

fn normalize_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text equal to `find` once every run of whitespace is a single space: whole lines,
/// parts of a line, or blocks of lines.
fn whitespace_normalised(content: &str, find: &str) -> Vec<String> {
    let wanted = normalize_whitespace(find);
    if wanted.is_empty() {
        return Vec::new();
    }
    let lines = Lines::new(content);
    let mut out = Vec::new();
    let words: Vec<&str> = find.split_whitespace().collect();
    for line in &lines.lines {
        let normalized = normalize_whitespace(line);
        if normalized == wanted {
            out.push(line.to_string());
        } else if normalized.contains(&wanted)
            && let Some(found) = find_words(line, &words)
        {
            out.push(found.to_string());
        }
    }
    let count = find.split('\n').count();
    if count > 1 {
        for i in 0..(lines.lines.len() + 1).saturating_sub(count) {
            let block = lines.block(i, i + count - 1);
            if normalize_whitespace(block) == wanted {
                out.push(block.to_string());
            }
        }
    }
    out
}

/// The first part of `line` made of `words` separated by runs of whitespace.
fn find_words<'a>(line: &'a str, words: &[&str]) -> Option<&'a str> {
    let first = words.first()?;
    line.match_indices(first).find_map(|(start, _)| {
        let mut at = start + first.len();
        for word in &words[1..] {
            let rest = &line[at..];
            let gap = rest.len() - rest.trim_start().len();
            if gap == 0 || !rest[gap..].starts_with(word) {
                return None;
            }
            at += gap + word.len();
        }
        Some(&line[start..at])
    })
}

/// `text` with the indentation common to its non-blank lines removed.
fn dedent(text: &str) -> String {
    let indent = text
        .split('\n')
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.split('\n')
        .map(|l| if l.trim().is_empty() { l } else { &l[indent..] })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Blocks equal to `find` once both have their common indentation removed.
fn indentation_flexible(content: &str, find: &str) -> Vec<String> {
    let wanted = dedent(find);
    let lines = Lines::new(content);
    let count = find.split('\n').count();
    let mut out = Vec::new();
    for i in 0..(lines.lines.len() + 1).saturating_sub(count) {
        let block = lines.block(i, i + count - 1);
        if dedent(block) == wanted {
            out.push(block.to_string());
        }
    }
    out
}

/// Average similarity (0..1) of the middle lines of a block and of the search.
fn middle_similarity(block: &[&str], search: &[&str]) -> f64 {
    let checked = block.len().min(search.len()).saturating_sub(2);
    if checked == 0 {
        return 1.0;
    }
    let total: f64 = (1..=checked)
        .map(|j| {
            let (a, b) = (block[j].trim(), search[j].trim());
            let longest = a.chars().count().max(b.chars().count());
            if longest == 0 {
                1.0
            } else {
                1.0 - edit_distance(a, b) as f64 / longest as f64
            }
        })
        .sum();
    total / checked as f64
}

/// Blocks whose first and last lines match the search's (trimmed) and whose middle lines
/// are similar enough. Stricter than OpenCode (which accepts a lone candidate whatever its
/// middle): the middle must be at least half similar and the block about as long as the
/// search, so a misremembered snippet cannot replace an unrelated stretch of code.
fn block_anchor(content: &str, find: &str) -> Vec<String> {
    let search = search_lines(find);
    if search.len() < 3 {
        return Vec::new();
    }
    let (first, last) = (search[0].trim(), search[search.len() - 1].trim());
    if first.is_empty() || last.is_empty() {
        return Vec::new();
    }
    let lines = Lines::new(content);
    let slack = (search.len() / 4).max(2);
    let mut candidates = Vec::new();
    for i in 0..lines.lines.len() {
        if lines.lines[i].trim() != first {
            continue;
        }
        // Only blocks about as long as the search qualify, which also bounds the scan.
        let end = lines.lines.len().min(i + search.len() + slack);
        if let Some(j) = (i + 2..end).find(|&j| lines.lines[j].trim() == last)
            && (j - i + 1).abs_diff(search.len()) <= slack
        {
            let score = middle_similarity(&lines.lines[i..=j], &search);
            candidates.push((i, j, score));
        }
    }
    let threshold = if candidates.len() == 1 {
        SINGLE_CANDIDATE_SIMILARITY
    } else {
        MULTIPLE_CANDIDATES_SIMILARITY
    };
    let Some(&(i, j, best)) = candidates.iter().max_by(|a, b| a.2.total_cmp(&b.2)) else {
        return Vec::new();
    };
    let ties = candidates.iter().filter(|c| c.2 == best).count();
    if best < threshold || ties > 1 {
        return Vec::new();
    }
    vec![lines.block(i, j).to_string()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(content: &str, old: &str, new: &str) -> Replaced {
        match replace(content, old, new, false) {
            Ok(r) => r,
            Err(e) => panic!("replace failed: {e:?}"),
        }
    }

    #[test]
    fn exact_unique_match() {
        let r = ok("a\nb\nc\n", "b", "B");
        assert_eq!(r.content, "a\nB\nc\n");
        assert_eq!((r.count, r.matcher), (1, "exact"));
    }

    #[test]
    fn identical_strings_are_refused() {
        assert_eq!(replace("x", "x", "x", false), Err(ReplaceError::Identical));
    }

    #[test]
    fn ambiguous_matches_need_context_or_replace_all() {
        assert_eq!(
            replace("x y x", "x", "z", false),
            Err(ReplaceError::Multiple)
        );
        let all = replace("x y x", "x", "z", true);
        assert_eq!(
            all.map(|r| (r.content, r.count)),
            Ok(("z y z".to_string(), 2))
        );
    }

    #[test]
    fn not_found() {
        assert_eq!(
            replace("abc", "xyz", "q", false),
            Err(ReplaceError::NotFound)
        );
    }

    #[test]
    fn line_trimmed_ignores_each_lines_indentation() {
        let content = "fn f() {\n    let a = 1;\n        let b = 2;\n}\n";
        let r = ok(content, "let a = 1;\nlet b = 2;", "let c = 3;");
        assert_eq!(r.content, "fn f() {\n    let c = 3;\n}\n");
        assert_eq!(r.matcher, "line-trimmed");
    }

    #[test]
    fn whitespace_normalised_inside_a_line() {
        let content = "let  x =   compute(a,  b);\n";
        let r = ok(content, "x = compute(a, b)", "y = 2");
        assert_eq!(r.content, "let  y = 2;\n");
        assert_eq!(r.matcher, "whitespace-normalised");
    }

    #[test]
    fn words_are_found_across_whitespace_runs() {
        assert_eq!(find_words("a  b\tc d", &["b", "c"]), Some("b\tc"));
        assert_eq!(find_words("xb c b  c", &["b", "c"]), Some("b c"));
        assert_eq!(find_words("bc", &["b", "c"]), None);
    }

    #[test]
    fn whitespace_normalised_across_lines() {
        let content = "let  a = 1;\nlet b  = 2;\nnext\n";
        let r = ok(content, "let a = 1;\nlet b = 2;", "done");
        assert_eq!(r.content, "done\nnext\n");
        assert_eq!(r.matcher, "whitespace-normalised");
    }

    #[test]
    fn indentation_flexible_block() {
        // `replace` finds such blocks with line-trimmed first; check the matcher itself.
        let content = "    if x {\n        y();\n    }\n";
        let found = indentation_flexible(content, "if x {\n    y();\n}");
        assert_eq!(found, vec!["    if x {\n        y();\n    }".to_string()]);
    }

    #[test]
    fn block_anchor_tolerates_a_misremembered_middle() {
        let content =
            "start\nfn body() {\n    let total = sum(values);\n    print(total);\n}\nend\n";
        let old = "fn body() {\n    let total = sum(value);\n    print(totals);\n}";
        let r = ok(content, old, "fn body() {}");
        assert_eq!(r.content, "start\nfn body() {}\nend\n");
        assert_eq!(r.matcher, "block-anchor");
    }

    #[test]
    fn block_anchor_refuses_an_unrelated_middle() {
        let content = "fn body() {\n    completely();\n    different();\n}\n";
        let old = "fn body() {\n    let total = sum(value);\n    print(totals);\n}";
        assert_eq!(
            replace(content, old, "x", false),
            Err(ReplaceError::NotFound)
        );
    }

    #[test]
    fn block_anchor_refuses_much_longer_blocks() {
        let body: String = (0..20).map(|i| format!("  line{i}\n")).collect();
        let content = format!("begin\n{body}finish\n");
        let old = "begin\n  line0\n  line1\nfinish";
        assert_eq!(
            replace(&content, old, "x", false),
            Err(ReplaceError::NotFound)
        );
    }

    #[test]
    fn reindent_follows_the_found_block() {
        assert_eq!(reindent("a\n  b", "x", "    x"), "    a\n      b");
        assert_eq!(reindent("    a\n\n      b", "    x", "  x"), "  a\n\n    b");
        assert_eq!(reindent("a", "\tx", "  x"), "a");
        assert_eq!(reindent("a", "x", "x"), "a");
    }

    #[test]
    fn dedent_keeps_relative_indentation() {
        assert_eq!(dedent("    a\n      b\n\n    c"), "a\n  b\n\nc");
    }
}
