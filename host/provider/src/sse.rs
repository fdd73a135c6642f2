//! Server-sent events: turns a byte stream into [`SseEvent`]s.
//!
//! Owns the wire framing of the WHATWG `text/event-stream` format and nothing
//! else: lines end in CRLF, LF or a lone CR (also when the CR and LF arrive in
//! different chunks), `:` lines are comments, a field without a colon has an
//! empty value, one space after the colon is dropped, `data:` lines of one
//! event are joined with `\n`, and a blank line dispatches the event. Bytes
//! are buffered until a line is complete and decoded per line, so a UTF-8
//! character split across chunks survives; invalid UTF-8 is replaced (U+FFFD)
//! as the standard requires. `retry:` is ignored because reconnecting is the
//! caller's business.
//!
//! End of stream: the standard discards an event that was not followed by a
//! blank line. We are lenient and dispatch it when it carries data, because
//! real servers and proxies close the connection right after the last
//! `data:` line; the protocol parsers decide whether that event completed the
//! response.
//!
//! Hand-written rather than taken from a crate because of that leniency, which a
//! parser that follows the standard drops, and because it is small (this file) and
//! every recorded provider stream replays through it in the tests.

use std::collections::VecDeque;

use bytes::Bytes;
use futures_util::{Stream, StreamExt, stream};

/// One dispatched server-sent event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if the event had one (the standard's default
    /// type, "message", is reported as `None`).
    pub event: Option<String>,
    /// All `data:` lines of the event joined with `\n`.
    pub data: String,
    /// The last event id seen on the stream; like a browser's `lastEventId`
    /// it carries over to later events until another `id:` replaces it.
    pub id: Option<String>,
}

/// Incremental decoder: feed it chunks, take the events that completed.
#[derive(Debug, Default)]
pub struct SseDecoder {
    buf: Vec<u8>,
    /// The previous chunk ended in CR, so a LF opening the next chunk is the
    /// second half of a CRLF and not an empty line.
    skip_lf: bool,
    started: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    last_id: Option<String>,
    ready: VecDeque<SseEvent>,
}

impl SseDecoder {
    /// Creates a decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Consumes a chunk of bytes; completed events become available from
    /// [`SseDecoder::next_event`].
    pub fn feed(&mut self, chunk: &[u8]) {
        let mut chunk = chunk;
        if self.skip_lf && !chunk.is_empty() {
            self.skip_lf = false;
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
            }
        }
        self.buf.extend_from_slice(chunk);
        let mut start = 0;
        while let Some(offset) = self.buf[start..]
            .iter()
            .position(|b| *b == b'\r' || *b == b'\n')
        {
            let end = start + offset;
            let line = String::from_utf8_lossy(&self.buf[start..end]).into_owned();
            start = end + 1;
            if self.buf[end] == b'\r' {
                match self.buf.get(start) {
                    Some(b'\n') => start += 1,
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            self.line(&line);
        }
        self.buf.drain(..start);
    }

    /// Marks the end of the stream: a last line without a terminator is
    /// processed, and a pending event with data is dispatched (see the module
    /// docs for why).
    pub fn finish(&mut self) {
        if !self.buf.is_empty() {
            let line = String::from_utf8_lossy(&self.buf).into_owned();
            self.buf.clear();
            self.line(&line);
        }
        self.dispatch();
    }

    /// Takes the next completed event, if any.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        self.ready.pop_front()
    }

    fn line(&mut self, line: &str) {
        let line = if self.started {
            line
        } else {
            self.started = true;
            line.strip_prefix('\u{feff}').unwrap_or(line)
        };
        if line.is_empty() {
            self.dispatch();
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            // The standard ignores ids containing NUL so they cannot truncate
            // a C string downstream.
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            _ => {}
        }
    }

    fn dispatch(&mut self) {
        let event = self.event.take().filter(|e| !e.is_empty());
        if !std::mem::take(&mut self.has_data) {
            return;
        }
        self.ready.push_back(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
            id: self.last_id.clone(),
        });
    }
}

/// Adapts a byte stream into a stream of events. An error from the byte
/// stream is passed through and ends the event stream.
pub fn sse_events<S, E>(bytes: S) -> impl Stream<Item = Result<SseEvent, E>>
where
    S: Stream<Item = Result<Bytes, E>>,
{
    let state = (Box::pin(bytes), SseDecoder::new(), false);
    stream::unfold(state, |(mut bytes, mut decoder, mut ended)| async move {
        loop {
            if let Some(event) = decoder.next_event() {
                return Some((Ok(event), (bytes, decoder, ended)));
            }
            if ended {
                return None;
            }
            match bytes.next().await {
                Some(Ok(chunk)) => decoder.feed(&chunk),
                Some(Err(error)) => return Some((Err(error), (bytes, SseDecoder::new(), true))),
                None => {
                    decoder.finish();
                    ended = true;
                }
            }
        }
    })
}

#[cfg(test)]
mod tests;
