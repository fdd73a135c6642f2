//! Output limits (SPEC §5.2): lines cut at 2000 characters, outputs cut at 2000 lines or
//! 50 KB, keeping the head — or the tail for commands, where errors usually are.

use std::borrow::Cow;

/// Most lines a tool returns.
pub const MAX_LINES: usize = 2000;
/// Most bytes a tool returns.
pub const MAX_BYTES: usize = 50 * 1024;
/// Longest line shown; longer ones are cut and end in `...`.
pub const MAX_LINE_CHARS: usize = 2000;

/// Cuts `line` after `max_chars` characters, appending `...` when it did.
pub fn cut_line(line: &str, max_chars: usize) -> Cow<'_, str> {
    // No more bytes than `max_chars` means no more characters: skip counting them.
    if line.len() <= max_chars {
        return Cow::Borrowed(line);
    }
    match line.char_indices().nth(max_chars) {
        Some((at, _)) => Cow::Owned(format!("{}...", &line[..at])),
        None => Cow::Borrowed(line),
    }
}

/// Text after truncation.
#[derive(Debug, PartialEq, Eq)]
pub struct Truncated {
    /// The kept text, with the `...N lines truncated...` marker when something was cut.
    pub text: String,
    /// How many lines were dropped (a line kept only in part counts as dropped).
    pub omitted_lines: usize,
}

impl Truncated {
    /// Whether anything was cut.
    pub fn truncated(&self) -> bool {
        self.omitted_lines > 0
    }
}

/// Keeps the first lines of `text` within `max_lines` and `max_bytes`.
pub fn keep_head(text: &str, max_lines: usize, max_bytes: usize) -> Truncated {
    let lines: Vec<&str> = text.split('\n').collect();
    let kept = fitting(lines.iter(), max_lines, max_bytes);
    if kept == lines.len() {
        return Truncated {
            text: text.to_string(),
            omitted_lines: 0,
        };
    }
    let mut out = lines[..kept].join("\n");
    if kept == 0 {
        // A single huge first line: keep a prefix of it rather than nothing.
        out.push_str(&text[..floor_char_boundary(text, max_bytes)]);
    }
    let omitted = lines.len() - kept;
    out.push_str(&format!("\n\n...{omitted} lines truncated..."));
    Truncated {
        text: out,
        omitted_lines: omitted,
    }
}

/// How many of `lines`, taken in order, fit in `max_lines` and `max_bytes` (counting
/// the newline between kept lines).
fn fitting<'a>(
    lines: impl Iterator<Item = &'a &'a str>,
    max_lines: usize,
    max_bytes: usize,
) -> usize {
    let mut kept = 0;
    let mut bytes = 0;
    for line in lines {
        let size = line.len() + usize::from(kept > 0);
        if kept == max_lines || bytes + size > max_bytes {
            break;
        }
        bytes += size;
        kept += 1;
    }
    kept
}

/// Keeps the last lines of `text` within `max_lines` and `max_bytes`.
pub fn keep_tail(text: &str, max_lines: usize, max_bytes: usize) -> Truncated {
    let lines: Vec<&str> = text.split('\n').collect();
    let kept = fitting(lines.iter().rev(), max_lines, max_bytes);
    if kept == lines.len() {
        return Truncated {
            text: text.to_string(),
            omitted_lines: 0,
        };
    }
    let omitted = lines.len() - kept;
    let mut out = format!("...{omitted} lines truncated...\n\n");
    if kept == 0 {
        let start = ceil_char_boundary(text, text.len().saturating_sub(max_bytes));
        out.push_str(&text[start..]);
    } else {
        out.push_str(&lines[lines.len() - kept..].join("\n"));
    }
    Truncated {
        text: out,
        omitted_lines: omitted,
    }
}

/// The largest char boundary `<= at`.
pub fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary `>= at`.
pub fn ceil_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cut_by_characters_not_bytes() {
        assert_eq!(cut_line("abc", 3), "abc");
        assert_eq!(cut_line("abcd", 3), "abc...");
        assert_eq!(cut_line("ééééé", 2), "éé...");
    }

    #[test]
    fn short_text_is_untouched() {
        let t = keep_head("a\nb", 10, 100);
        assert_eq!(t.text, "a\nb");
        assert!(!t.truncated());
        assert_eq!(keep_tail("a\nb", 10, 100).text, "a\nb");
    }

    #[test]
    fn head_keeps_first_lines() {
        let text = (1..=10)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        let t = keep_head(&text, 3, 1000);
        assert_eq!(t.text, "1\n2\n3\n\n...7 lines truncated...");
        assert_eq!(t.omitted_lines, 7);
    }

    #[test]
    fn tail_keeps_last_lines() {
        let text = (1..=10)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        let t = keep_tail(&text, 3, 1000);
        assert_eq!(t.text, "...7 lines truncated...\n\n8\n9\n10");
    }

    #[test]
    fn byte_limit_applies() {
        let text = "aaaa\nbbbb\ncccc";
        assert_eq!(
            keep_head(text, 100, 9).text,
            "aaaa\nbbbb\n\n...1 lines truncated..."
        );
        assert_eq!(
            keep_tail(text, 100, 9).text,
            "...1 lines truncated...\n\nbbbb\ncccc"
        );
    }

    #[test]
    fn one_huge_line_keeps_a_part() {
        let text = "é".repeat(100);
        let head = keep_head(&text, 10, 11);
        assert_eq!(
            head.text,
            format!("{}\n\n...1 lines truncated...", "é".repeat(5))
        );
        let tail = keep_tail(&text, 10, 11);
        assert_eq!(
            tail.text,
            format!("...1 lines truncated...\n\n{}", "é".repeat(5))
        );
    }
}
