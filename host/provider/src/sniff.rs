//! What a successful reply's body really is, read from its first bytes.
//!
//! The `content-type` label is not trusted either way: real servers send an
//! event stream with no label at all (OpenAI's OAuth route, as recorded by
//! OpenCode) or with a wrong one, and gateways send a JSON error labelled
//! `text/event-stream`. The body decides instead. An event stream starts,
//! after an optional byte-order mark, blank space and `:` comment lines (the
//! keep-alives OpenRouter sends before the first event), with one of the
//! four SSE field names `event`, `data`, `id` or `retry`; a JSON error body
//! starts with `{`. Anything else is neither, and the caller reports what it
//! was rather than feeding it to a parser that would only see silence.

/// What the start of a body says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// Server-sent events (or nothing but blank space and comments, which the
    /// event reader reports as a stream that ended too early).
    EventStream,
    /// A JSON document, typically an error object.
    Json,
    /// Neither: an HTML page, plain text, a JSON array…
    Other,
}

/// The SSE field names a line of an event stream may start with.
const FIELDS: [&[u8]; 4] = [b"event", b"data", b"id", b"retry"];

/// The UTF-8 byte-order mark, which the SSE standard allows before the first line.
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between lines: blank space is skipped here.
    #[default]
    LineStart,
    /// Inside a `:` comment line, up to its end.
    Comment,
    /// Inside the first word of the first meaningful line.
    Word,
}

/// Incremental classifier: feed it chunks until it decides.
#[derive(Debug, Default)]
pub(crate) struct Sniffer {
    state: State,
    /// Bytes fed so far.
    seen: usize,
    /// Byte-order-mark bytes matched; a mark only counts at the very start.
    bom: usize,
    /// The first word of the first meaningful line, so far.
    word: Vec<u8>,
}

impl Sniffer {
    /// Reads `chunk`; `Some` once the kind is known (later bytes change nothing).
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Option<BodyKind> {
        for &byte in chunk {
            let at = self.seen;
            self.seen += 1;
            match self.state {
                State::LineStart if at == self.bom && BOM.get(at) == Some(&byte) => {
                    self.bom += 1;
                }
                State::LineStart => match byte {
                    b' ' | b'\t' | b'\r' | b'\n' => {}
                    b':' => self.state = State::Comment,
                    b'{' => return Some(BodyKind::Json),
                    _ => {
                        self.state = State::Word;
                        if let Some(kind) = self.word_byte(byte) {
                            return Some(kind);
                        }
                    }
                },
                State::Comment => {
                    if matches!(byte, b'\r' | b'\n') {
                        self.state = State::LineStart;
                    }
                }
                State::Word => {
                    if let Some(kind) = self.word_byte(byte) {
                        return Some(kind);
                    }
                }
            }
        }
        None
    }

    /// The verdict at the end of the body, when [`Sniffer::feed`] never gave
    /// one: the body held nothing but blank space and comments, or stopped
    /// inside what could still be a field name. Either way it is an event
    /// stream cut short, which the reader reports as such (and which may be
    /// retried), not a body of another kind.
    pub(crate) fn finish(&self) -> BodyKind {
        BodyKind::EventStream
    }

    /// One byte of the first word: a field name followed by `:` or the end of
    /// the line is an event stream; a word no field name starts with is not.
    fn word_byte(&mut self, byte: u8) -> Option<BodyKind> {
        if matches!(byte, b':' | b'\r' | b'\n') {
            let field = FIELDS.contains(&self.word.as_slice());
            return Some(if field {
                BodyKind::EventStream
            } else {
                BodyKind::Other
            });
        }
        self.word.push(byte);
        let prefix = FIELDS.iter().any(|f| f.starts_with(&self.word));
        (!prefix).then_some(BodyKind::Other)
    }
}

/// A short description of a body that is neither an event stream nor JSON,
/// for the error message: what it looks like and how it starts.
pub(crate) fn describe(body: &str) -> String {
    let text = body.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return "an empty body".to_owned();
    }
    let lower: String = text
        .chars()
        .take(64)
        .collect::<String>()
        .to_ascii_lowercase();
    let kind = if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        "an HTML page"
    } else if lower.starts_with('<') {
        "markup (HTML or XML)"
    } else if lower.starts_with('[') {
        "a JSON array"
    } else {
        "text"
    };
    const MAX: usize = 200;
    let start: String = text.chars().take(MAX).collect();
    let more = if text.chars().nth(MAX).is_some() {
        "…"
    } else {
        ""
    };
    format!("{kind} starting {start:?}{more}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniff(chunks: &[&[u8]]) -> BodyKind {
        let mut sniffer = Sniffer::default();
        for chunk in chunks {
            if let Some(kind) = sniffer.feed(chunk) {
                return kind;
            }
        }
        sniffer.finish()
    }

    #[test]
    fn event_streams_are_recognised_after_marks_space_and_comments() {
        for body in [
            &b"event: response.created\ndata: {}\n\n"[..],
            b"data: {\"choices\":[]}\n\n",
            b"id: 1\ndata: x\n\n",
            b"retry: 100\n\n",
            b"\xEF\xBB\xBFdata: {}\n\n",
            b"\r\n\n  : OPENROUTER PROCESSING\n\n: again\r\ndata: {}\n\n",
            b"data\n\n",
            b"data",
            b"ev",
            b"",
            b": keep-alive\n\n",
        ] {
            assert_eq!(
                sniff(&[body]),
                BodyKind::EventStream,
                "{:?}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn a_field_name_split_across_chunks_is_still_recognised() {
        assert_eq!(
            sniff(&[
                b"\xEF",
                b"\xBB\xBF: c",
                b"omment\n",
                b"ev",
                b"ent",
                b": x\n"
            ]),
            BodyKind::EventStream
        );
    }

    #[test]
    fn json_and_other_bodies() {
        assert_eq!(sniff(&[b"  {\"error\": {}}"]), BodyKind::Json);
        assert_eq!(sniff(&[b": c\n{\"error\": {}}"]), BodyKind::Json);
        for body in [
            &b"<!DOCTYPE html><html></html>"[..],
            b"[{\"candidates\": []}]",
            b"dat: x\n",
            b"datum: x\n",
            b"Hello",
            b"\xBB\xEF\xBFdata: {}",
        ] {
            assert_eq!(
                sniff(&[body]),
                BodyKind::Other,
                "{:?}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn descriptions_name_what_came() {
        assert_eq!(describe("  "), "an empty body");
        assert_eq!(
            describe("<!DOCTYPE html><title>Login</title>"),
            "an HTML page starting \"<!DOCTYPE html><title>Login</title>\""
        );
        assert!(describe(&"x".repeat(300)).ends_with('…'));
        assert!(describe("[1]").starts_with("a JSON array"));
    }
}
