//! How full the context window is, and how full the next request would make it.
//!
//! Owns [`ContextPolicy`] (the `[compaction]` settings), the usable-input formula of
//! SPEC §5.4 ([`usable`]) and [`Tally`], which counts the tokens of stored messages
//! with the model's tokenizer, remembering each part's count so a long loop does not
//! re-tokenize its history every step. An attached image counts by its pixels
//! ([`image`]), when the model takes images; for one that does not, it is the short
//! note sent instead.
//!
//! OpenCode only looks at the last step's usage, so the step that adds a large tool
//! result can still send a request over the limit. Ward projects the *next* request —
//! the last step's reported usage plus everything stored after it — and acts before
//! sending it.

use std::collections::HashMap;

use ward_provider::Limits;
use ward_store::{Blobs, FilePart, Message, MessageInfo, PartKind, ToolState};
use ward_tokens::TokenCounter;

/// The text a pruned tool output is replaced with.
pub const PRUNED: &str = "[Old tool result content cleared]";

/// The question a compaction request is sent as.
pub const COMPACTION_QUESTION: &str = "What did we do so far?";

/// When and how history is made smaller: `[compaction]` in config.
pub use ward_config::CompactionConfig as ContextPolicy;

/// The most input tokens a request may hold: `limit.input − reserved` when the model
/// caps input, else `context − max_output`; times `threshold` when one is set (a
/// fraction of the usable context, as SPEC §7's config shape says). `None` when the
/// model's window is unknown (nothing to protect).
pub fn usable(limits: &Limits, max_output: Option<u32>, policy: &ContextPolicy) -> Option<u64> {
    let context = limits.context.filter(|c| *c > 0)?;
    let max_output = max_output
        .map(u64::from)
        .or(limits.output)
        .unwrap_or(20_000);
    let reserved = policy.reserved.unwrap_or(max_output.min(20_000));
    let usable = match limits.input {
        Some(input) => input.saturating_sub(reserved),
        None => context.saturating_sub(max_output),
    };
    Some(
        policy
            .threshold
            .map_or(usable, |t| (usable as f64 * t) as u64),
    )
}

/// Counts tokens of stored messages, caching each part's count.
#[derive(Debug)]
pub struct Tally {
    counter: TokenCounter,
    /// Part id → (length of the counted text, its tokens); a part whose text changed
    /// length is counted again.
    parts: HashMap<String, (usize, u64)>,
    /// Where attached images' bytes are, when the model takes images (their
    /// dimensions decide their cost); `None`: files are sent as a note.
    images: Option<Blobs>,
}

/// Tokens the note replacing a file for a text-only model is counted as (it names
/// the model and the file: a few dozen tokens at most).
const FILE_NOTE_TOKENS: u64 = 30;

impl Tally {
    /// A tally using `counter`.
    pub fn new(counter: TokenCounter) -> Self {
        Self {
            counter,
            parts: HashMap::new(),
            images: None,
        }
    }

    /// This tally, counting attached images by their pixels, read from `blobs` —
    /// for a model that takes images (`None` leaves files counted as the note).
    pub fn with_images(mut self, blobs: Option<Blobs>) -> Self {
        self.images = blobs;
        self
    }

    /// Tokens of free text (not cached).
    pub fn text(&self, text: &str) -> u64 {
        self.counter.count(text)
    }

    /// Tokens `message` costs when sent; tool results only when `results`.
    pub fn message(&mut self, message: &Message, results: bool) -> u64 {
        let mut total = 4; // role and framing
        for part in &message.parts {
            total += match &part.kind {
                PartKind::Tool(tool) => {
                    let (input, output) = match &tool.state {
                        ToolState::Completed {
                            input,
                            output,
                            time,
                            ..
                        } => (
                            input,
                            if time.compacted.is_some() {
                                PRUNED
                            } else {
                                output
                            },
                        ),
                        ToolState::Error { input, error, .. } => (input, error.as_str()),
                        ToolState::Pending { input } | ToolState::Running { input, .. } => {
                            (input, "")
                        }
                    };
                    let call = 8 + self.text(&input.to_string());
                    let result = if results {
                        self.cached(&part.id, output)
                    } else {
                        0
                    };
                    call + result
                }
                PartKind::Text(t) if !t.ignored => self.cached(&part.id, &t.text),
                PartKind::Reasoning { text, .. } => self.cached(&part.id, text),
                PartKind::Compaction { .. } => self.text(COMPACTION_QUESTION),
                PartKind::File(file) => self.file(&part.id, file),
                _ => 0,
            };
        }
        total
    }

    /// Tokens of one tool part's output as stored (for prune accounting).
    pub fn output(&mut self, part_id: &str, output: &str) -> u64 {
        self.cached(part_id, output)
    }

    /// Tokens of an attached file, cached by its part (reading the header once).
    fn file(&mut self, part_id: &str, file: &FilePart) -> u64 {
        let Some(blobs) = &self.images else {
            return FILE_NOTE_TOKENS;
        };
        if let Some((len, tokens)) = self.parts.get(part_id)
            && *len == file.url.len()
        {
            return *tokens;
        }
        // A missing blob is sent as a note too; a PDF is not estimated (see
        // [`image`]).
        let tokens = blobs
            .get(&file.url)
            .ok()
            .and_then(|bytes| image::tokens_of(&bytes))
            .unwrap_or(FILE_NOTE_TOKENS);
        self.parts
            .insert(part_id.to_string(), (file.url.len(), tokens));
        tokens
    }

    fn cached(&mut self, part_id: &str, text: &str) -> u64 {
        if let Some((len, tokens)) = self.parts.get(part_id)
            && *len == text.len()
        {
            return *tokens;
        }
        let tokens = self.counter.count(text);
        self.parts.insert(part_id.to_string(), (text.len(), tokens));
        tokens
    }

    /// Tokens the next request will hold: the newest finished step's reported usage
    /// (which counts the system prompt and tools exactly) plus what was stored after
    /// it — its tool results and any newer messages. Without such a step (a new
    /// session, or just after a compaction, whose summary call saw the old history),
    /// every message is counted, plus `overhead` for the system prompt and tools.
    /// `messages` are in send order; only steps newer than `after` (the current
    /// summary's id) measured the history as it is sent now.
    pub fn projected(&mut self, messages: &[&Message], after: Option<&str>, overhead: u64) -> u64 {
        let baseline = messages
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, m)| match &m.info {
                MessageInfo::Assistant(a)
                    if !a.summary
                        && a.time.completed.is_some()
                        && after.is_none_or(|after| a.id.as_str() > after) =>
                {
                    let t = &a.tokens;
                    let count = t.input + t.output + t.cache.read + t.cache.write;
                    (count > 0).then_some((i, count))
                }
                _ => None,
            });
        match baseline {
            Some((i, count)) => {
                let own_results =
                    self.message(messages[i], true) - self.message(messages[i], false);
                let newer: u64 = messages[i + 1..]
                    .iter()
                    .map(|m| self.message(m, true))
                    .sum();
                count + own_results + newer
            }
            None => overhead + messages.iter().map(|m| self.message(m, true)).sum::<u64>(),
        }
    }
}

pub mod image;
#[cfg(test)]
mod tests;
