//! Output limits (SPEC §5.2) the tools apply themselves: lines cut at 2000 characters
//! and `read`'s window of 2000 lines or 50 KB. Whole outputs beyond those limits are
//! cut by the host, which also saves the full text.

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

/// The largest char boundary `<= at`.
pub fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
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
    fn boundaries_never_split_a_character() {
        assert_eq!(floor_char_boundary("éé", 3), 2);
        assert_eq!(floor_char_boundary("ab", 9), 2);
    }
}
