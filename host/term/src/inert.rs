//! Rendering untrusted text inert: every character a terminal would act on rather
//! than show, or that would hide or reorder text, is replaced by a visible escape.
//!
//! What is escaped, and why:
//!
//! - C0 controls except `\t` (and `\n` in multi-line text): ESC starts every CSI, OSC
//!   (clipboard writes, hyperlinks, window titles), DCS, APC, PM and SOS sequence; BEL,
//!   BS, VT, FF, SO/SI and the rest move the cursor, switch character sets or sound.
//! - `\r` unless it ends a line (`\r\n`): a bare carriage return lets later text
//!   overwrite a line, which is how a fake "tests passed" is printed over a failure.
//! - DEL and the C1 controls U+0080–U+009F: some terminals take U+009B as CSI and
//!   U+009D as OSC, with no ESC at all.
//! - Unicode format characters (general category Cf): the bidi embeddings, overrides
//!   and isolates (U+202A–U+202E, U+2066–U+2069) and marks that reorder what is shown,
//!   zero-width spaces and joiners-of-words, U+FEFF, soft hyphens, and the tag
//!   characters U+E0000–U+E007F that smuggle whole invisible sentences. Two are kept:
//!   ZWJ and ZWNJ, which emoji sequences and Persian and Indic scripts need and which
//!   carry no text of their own; tags are kept only inside a well-formed subdivision
//!   flag (🏴 + 2–7 lowercase letters or digits + cancel tag).
//! - The line and paragraph separators U+2028 / U+2029, and the blank fillers that
//!   render as nothing (Hangul fillers, the combining grapheme joiner, Khmer inherent
//!   vowels), which make two different names look alike.
//!
//! Escapes are Rust's notation — `\x1b`, `\r`, `\u{202e}` — so the reader sees that
//! something was there and what it was. Everything else, CJK and emoji included,
//! passes through untouched, and clean text is borrowed, not copied.

use std::borrow::Cow;
use std::fmt::Write as _;

use unicode_general_category::{GeneralCategory, get_general_category};

/// Whether line breaks are part of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Multi-line text (a model's answer, a tool's output): `\n` and `\r\n` stay.
    Text,
    /// One line (a name, a title, a pattern in a question): `\n` and `\r` are shown
    /// escaped, so the value cannot forge lines of Ward's own output.
    Line,
}

/// `text` with every terminal control, bidi control and invisible format character
/// replaced by a visible escape; `\n`, `\r\n` and `\t` are kept. Borrowed when there
/// is nothing to replace.
///
/// ```
/// assert_eq!(ward_term::inert("ok\x1b[2J"), "ok\\x1b[2J");
/// assert_eq!(ward_term::inert("fail\rpass\n"), "fail\\rpass\n");
/// assert_eq!(ward_term::inert("日本語 ✅\n"), "日本語 ✅\n");
/// ```
pub fn inert(text: &str) -> Cow<'_, str> {
    render(text, Shape::Text)
}

/// [`inert`] for a value that must stay on one line — a name, a title, a version, a
/// pattern in a permission question: line breaks are escaped too (tabs are kept).
///
/// ```
/// assert_eq!(ward_term::inert_line("a\nb\r\n"), "a\\nb\\r\\n");
/// ```
pub fn inert_line(text: &str) -> Cow<'_, str> {
    render(text, Shape::Line)
}

fn render(text: &str, shape: Shape) -> Cow<'_, str> {
    let mut hazards = Hazards::new(text, shape);
    let Some(first) = hazards.next() else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    let mut done = 0;
    for (at, c) in std::iter::once(first).chain(hazards) {
        out.push_str(&text[done..at]);
        push_escape(&mut out, c);
        done = at + c.len_utf8();
    }
    out.push_str(&text[done..]);
    Cow::Owned(out)
}

/// Appends the visible form of `c`: `\r`, `\n`, `\x1b`, `\u{202e}`.
fn push_escape(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        // Writing to a String cannot fail.
        c if c.is_ascii() => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
}

/// The characters of a text that must not reach a terminal raw, with their byte
/// offsets, in order.
pub(crate) struct Hazards<'a> {
    text: &'a str,
    pos: usize,
    shape: Shape,
}

impl<'a> Hazards<'a> {
    pub(crate) fn new(text: &'a str, shape: Shape) -> Self {
        Self {
            text,
            pos: 0,
            shape,
        }
    }
}

impl Iterator for Hazards<'_> {
    type Item = (usize, char);

    fn next(&mut self) -> Option<(usize, char)> {
        let bytes = self.text.as_bytes();
        loop {
            // The common case, printable ASCII, in a tight loop the compiler vectorises.
            self.pos += bytes[self.pos..]
                .iter()
                .position(|b| !matches!(b, 0x20..=0x7e))
                .unwrap_or(bytes.len() - self.pos);
            let at = self.pos;
            let &b = bytes.get(at)?;
            if b.is_ascii() {
                self.pos += 1;
                let kept = match b {
                    b'\t' => true,
                    b'\n' => self.shape == Shape::Text,
                    b'\r' => self.shape == Shape::Text && bytes.get(at + 1) == Some(&b'\n'),
                    _ => false,
                };
                if kept {
                    continue;
                }
                return Some((at, char::from(b)));
            }
            // `at` is a character boundary: only whole characters are stepped over.
            let c = self.text[at..].chars().next()?;
            self.pos += c.len_utf8();
            if c == BLACK_FLAG {
                self.pos += flag_tags(&self.text[self.pos..]);
            } else if hidden(c) {
                return Some((at, c));
            }
        }
    }
}

/// U+1F3F4 WAVING BLACK FLAG, the base of subdivision flags (🏴 + tags).
const BLACK_FLAG: char = '\u{1F3F4}';
/// U+E007F CANCEL TAG, which ends a flag's tag sequence.
const CANCEL_TAG: char = '\u{E007F}';

/// The length in bytes of the subdivision tag sequence `rest` starts with (`gbsct`
/// then a cancel tag, spelt in tag characters), or 0 when it does not start with a
/// well-formed one: a longer run of tags is hidden text, not a flag.
fn flag_tags(rest: &str) -> usize {
    let mut len = 0;
    let mut tags = 0;
    for c in rest.chars() {
        match c {
            '\u{E0030}'..='\u{E0039}' | '\u{E0061}'..='\u{E007A}' if tags < 7 => {
                tags += 1;
                len += c.len_utf8();
            }
            CANCEL_TAG if tags >= 2 => return len + c.len_utf8(),
            _ => return 0,
        }
    }
    0
}

/// Whether a non-ASCII character would act on the terminal or hide text.
fn hidden(c: char) -> bool {
    match c {
        // ZWNJ and ZWJ: needed by emoji sequences and several scripts; they add no text.
        '\u{200C}' | '\u{200D}' => false,
        // Blank and invisible characters outside the format category.
        '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}' | '\u{3164}'
        | '\u{FFA0}' => true,
        c => matches!(
            get_general_category(c),
            GeneralCategory::Control
                | GeneralCategory::Format
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
        ),
    }
}

#[cfg(test)]
#[path = "inert_tests.rs"]
mod tests;
