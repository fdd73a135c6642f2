//! Wrapping a line of (already inert) text to a width in terminal columns. Done
//! here rather than by ratatui's `Paragraph` because the view needs the wrapped
//! line count to show the newest lines and scroll from the bottom, which ratatui
//! exposes only behind an unstable feature.

use unicode_width::UnicodeWidthChar;

/// `line` cut into rows of at most `width` columns, at spaces where one is near,
/// else anywhere; at least one row (an empty line stays one). A character wider
/// than `width` gets a row of its own rather than looping.
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut used = 0usize;
    // Where in `row` the last space ends, and the columns used up to there.
    let mut space: Option<(usize, usize)> = None;
    for c in line.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width && !row.is_empty() {
            match space {
                // Break after the last space when it leaves a reasonable row.
                Some((at, cols)) if cols * 2 >= width => {
                    let rest = row.split_off(at);
                    rows.push(std::mem::take(&mut row));
                    used -= cols;
                    row = rest;
                }
                _ => {
                    rows.push(std::mem::take(&mut row));
                    used = 0;
                }
            }
            space = None;
        }
        row.push(c);
        used += w;
        if c == ' ' {
            space = Some((row.len(), used));
        }
    }
    rows.push(row);
    rows
}

/// Columns `text` takes.
pub fn columns(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_never_exceed_the_width() {
        for width in 0..12 {
            for row in wrap("hello wide 日本語 world of text", width) {
                assert!(columns(&row) <= width.max(2), "{row:?} at {width}");
            }
        }
        assert_eq!(wrap("hello world", 8), ["hello ", "world"]);
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(wrap("abcdef", 4), ["abcd", "ef"]);
    }
}
