//! Splitting a reader into text lines cheaply: lines are handed over where they lie in
//! the reader's buffer (only a line split across two reads is copied), and complete
//! lines are checked as UTF-8 a few kilobytes at a time, as far as they are read,
//! falling back to a lossy conversion line by line only where the check fails.

use std::borrow::Cow;
use std::io::BufRead;
use std::ops::ControlFlow;

/// Calls `line` with each line of `reader`, without its `\n`, until it breaks. Bytes
/// that are not UTF-8 are replaced (U+FFFD), as `String::from_utf8_lossy` does.
pub(crate) fn for_each_line(
    reader: &mut impl BufRead,
    mut line: impl FnMut(&str) -> ControlFlow<()>,
) -> std::io::Result<()> {
    let mut split = Vec::new();
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            if !split.is_empty() {
                let _ = line(&text_of(&split));
            }
            return Ok(());
        }
        let Some(first) = memchr::memchr(b'\n', buf) else {
            split.extend_from_slice(buf);
            let used = buf.len();
            reader.consume(used);
            continue;
        };
        // The line carried over from the last read ends here.
        let flow = if split.is_empty() {
            line(&text_of(&buf[..first]))
        } else {
            split.extend_from_slice(&buf[..first]);
            let flow = line(&text_of(&split));
            split.clear();
            flow
        };
        if flow.is_break() {
            reader.consume(first + 1);
            return Ok(());
        }
        // Every line between the first and the last newline of the buffer.
        let last = memchr::memrchr(b'\n', buf).unwrap_or(first);
        if let (ControlFlow::Break(()), used) = whole_lines(&buf[first + 1..=last], &mut line) {
            reader.consume(first + 1 + used);
            return Ok(());
        }
        split.extend_from_slice(&buf[last + 1..]);
        let used = buf.len();
        reader.consume(used);
    }
}

/// Bytes of lines checked as UTF-8 at a time: enough for the check to run at full
/// speed, few enough that a window of a few lines does not check a whole block.
const CHECK_SPAN: usize = 4096;

/// Calls `line` for each line of `lines` (complete lines, the last ending in `\n`),
/// checking them as UTF-8 a span of whole lines at a time; returns how it stopped and
/// the bytes it went through.
fn whole_lines(
    lines: &[u8],
    line: &mut impl FnMut(&str) -> ControlFlow<()>,
) -> (ControlFlow<()>, usize) {
    let mut start = 0;
    while start < lines.len() {
        // The span ends after the last newline within `CHECK_SPAN` bytes, or after the
        // next one when a single line is longer than that.
        let limit = (start + CHECK_SPAN).min(lines.len());
        let end = match memchr::memrchr(b'\n', &lines[start..limit]) {
            Some(at) => start + at + 1,
            None => memchr::memchr(b'\n', &lines[limit..]).map_or(lines.len(), |at| limit + at + 1),
        };
        let span = &lines[start..end];
        let (flow, used) = match std::str::from_utf8(span) {
            Ok(text) => lines_of(text, line),
            Err(_) => lines_of_bytes(span, line),
        };
        if flow.is_break() {
            return (flow, start + used);
        }
        start = end;
    }
    (ControlFlow::Continue(()), start)
}

/// Calls `line` for each `\n`-terminated line of `text`; returns how it stopped and
/// the bytes it went through.
fn lines_of(
    text: &str,
    line: &mut impl FnMut(&str) -> ControlFlow<()>,
) -> (ControlFlow<()>, usize) {
    let mut start = 0;
    while let Some(at) = memchr::memchr(b'\n', &text.as_bytes()[start..]) {
        let end = start + at;
        // A newline is ASCII, so both ends are character boundaries.
        let flow = line(&text[start..end]);
        start = end + 1;
        if flow.is_break() {
            return (flow, start);
        }
    }
    (ControlFlow::Continue(()), start)
}

/// [`lines_of`] for bytes that are not all UTF-8: each line converted on its own.
fn lines_of_bytes(
    bytes: &[u8],
    line: &mut impl FnMut(&str) -> ControlFlow<()>,
) -> (ControlFlow<()>, usize) {
    let mut start = 0;
    while let Some(at) = memchr::memchr(b'\n', &bytes[start..]) {
        let end = start + at;
        let flow = line(&text_of(&bytes[start..end]));
        start = end + 1;
        if flow.is_break() {
            return (flow, start);
        }
    }
    (ControlFlow::Continue(()), start)
}

/// `bytes` as text: borrowed when UTF-8, else with invalid sequences replaced.
fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn lines(text: &[u8], capacity: usize, stop_after: usize) -> Vec<String> {
        let mut reader = BufReader::with_capacity(capacity, text);
        let mut out = Vec::new();
        let read = for_each_line(&mut reader, |line| {
            out.push(line.to_string());
            if out.len() == stop_after {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert!(read.is_ok());
        out
    }

    /// What is left in the reader after stopping at line `stop_at`.
    fn unread_after(text: &[u8], capacity: usize, stop_at: usize) -> String {
        let mut reader = BufReader::with_capacity(capacity, text);
        let mut seen = 0;
        let read = for_each_line(&mut reader, |_| {
            seen += 1;
            if seen == stop_at {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert!(read.is_ok());
        let mut rest = String::new();
        assert!(std::io::Read::read_to_string(&mut reader, &mut rest).is_ok());
        rest
    }

    #[test]
    fn lines_are_whole_across_reads_and_sizes() {
        let text = b"ab\ncdefg\n\nh\r\nlast";
        let expected = ["ab", "cdefg", "", "h\r", "last"];
        for capacity in [1, 2, 3, 5, 64] {
            assert_eq!(lines(text, capacity, usize::MAX), expected, "{capacity}");
        }
        assert_eq!(lines(b"", 4, usize::MAX), Vec::<String>::new());
        assert_eq!(lines(b"\n", 4, usize::MAX), [""]);
        assert_eq!(lines(b"one\n", 4, usize::MAX), ["one"]);
    }

    #[test]
    fn invalid_bytes_are_replaced_per_line() {
        let text = b"ok\nbad \xff here\nfine\n";
        for capacity in [3, 64] {
            assert_eq!(
                lines(text, capacity, usize::MAX),
                ["ok", "bad \u{fffd} here", "fine"]
            );
        }
    }

    #[test]
    fn spans_of_checked_lines_meet_exactly() {
        // Lines across several check spans, one longer than a span, and a bad byte in
        // a later span: every line comes out whole, wherever the reads and spans end.
        let mut text = Vec::new();
        let mut expected = Vec::new();
        for i in 0..600 {
            let line = match i {
                300 => "x".repeat(CHECK_SPAN + 100),
                450 => "bad \u{fffd} byte".to_string(),
                _ => format!("line {i} é"),
            };
            if i == 450 {
                text.extend_from_slice(b"bad \xff byte");
            } else {
                text.extend_from_slice(line.as_bytes());
            }
            text.push(b'\n');
            expected.push(line);
        }
        for capacity in [7, 4096, 64 * 1024] {
            assert_eq!(lines(&text, capacity, usize::MAX), expected, "{capacity}");
        }
        // Stopping in a later span consumes exactly the lines taken.
        let rest = unread_after(&text, 64 * 1024, 500);
        assert!(rest.starts_with("line 500 é\n"), "{}", &rest[..20]);
    }

    #[test]
    fn stopping_leaves_the_rest_unread() {
        assert_eq!(unread_after(b"1\n2\n3\n4\n", 64, 2), "3\n4\n");
    }
}
