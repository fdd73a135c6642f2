//! Assembles streamed tool calls into `ToolCall*` events.
//!
//! All three protocols stream a call as a header (id, name) followed by
//! argument fragments, addressed by a provider key (a choice index, a content
//! block index, an output index). This module owns the bookkeeping they
//! share: numbering calls in arrival order, holding fragments back until the
//! name is known, synthesising missing ids, and closing a call with its
//! complete argument text exactly once.

use crate::types::Event;

#[derive(Debug)]
struct Call {
    key: u64,
    id: String,
    name: String,
    arguments: String,
    started: bool,
    open: bool,
}

/// The tool calls of one response.
#[derive(Debug, Default)]
pub(crate) struct ToolCalls {
    calls: Vec<Call>,
}

impl ToolCalls {
    /// Whether a call under `key` is still receiving arguments.
    pub fn is_open(&self, key: u64) -> bool {
        self.open(key).is_some()
    }

    /// The id of the open call under `key`.
    pub fn open_id(&self, key: u64) -> Option<&str> {
        self.open(key).map(|i| self.calls[i].id.as_str())
    }

    /// Registers a new call under `key`. `ToolCallStart` is emitted as soon as
    /// the name is known; a provider that sends no id gets `call_<index>`.
    pub fn begin(&mut self, key: u64, id: Option<&str>, name: Option<&str>, out: &mut Vec<Event>) {
        let index = self.calls.len();
        let id = id
            .filter(|id| !id.is_empty())
            .map_or_else(|| format!("call_{index}"), str::to_owned);
        self.calls.push(Call {
            key,
            id,
            name: String::new(),
            arguments: String::new(),
            started: false,
            open: true,
        });
        self.name(key, name, out);
    }

    /// Supplies the name of the open call under `key` if it had none yet
    /// (continuation chunks repeating `"name": ""` change nothing).
    pub fn name(&mut self, key: u64, name: Option<&str>, out: &mut Vec<Event>) {
        let Some(i) = self.open(key) else { return };
        let call = &mut self.calls[i];
        match name {
            Some(name) if !name.is_empty() && call.name.is_empty() => call.name = name.to_owned(),
            _ => return,
        }
        call.started = true;
        out.push(Event::ToolCallStart {
            index: i,
            id: call.id.clone(),
            name: call.name.clone(),
        });
        // Fragments that arrived before the name are released in one piece.
        if !call.arguments.is_empty() {
            out.push(Event::ToolCallDelta {
                index: i,
                arguments_delta: call.arguments.clone(),
            });
        }
    }

    /// Appends an argument fragment to the open call under `key`.
    pub fn append(&mut self, key: u64, fragment: &str, out: &mut Vec<Event>) {
        let Some(i) = self.open(key) else { return };
        if fragment.is_empty() {
            return;
        }
        let call = &mut self.calls[i];
        call.arguments.push_str(fragment);
        if call.started {
            out.push(Event::ToolCallDelta {
                index: i,
                arguments_delta: fragment.to_owned(),
            });
        }
    }

    /// Closes the open call under `key`. `complete` is the whole argument
    /// text when the provider repeats it at the end; it wins over the
    /// fragments. Arguments that stayed empty become `{}`.
    pub fn end(&mut self, key: u64, complete: Option<String>, out: &mut Vec<Event>) {
        let Some(i) = self.open(key) else { return };
        if !self.calls[i].started {
            // A nameless call still has to be reported so the agent loop can
            // answer it (it routes unknown tools to an error result).
            self.calls[i].started = true;
            let call = &self.calls[i];
            out.push(Event::ToolCallStart {
                index: i,
                id: call.id.clone(),
                name: call.name.clone(),
            });
        }
        let call = &mut self.calls[i];
        call.open = false;
        if let Some(complete) = complete.filter(|c| !c.trim().is_empty()) {
            // Keep the deltas adding up to the final text when the provider
            // streamed less than it sent at the end (LM Studio sends none).
            if let Some(rest) = complete
                .strip_prefix(call.arguments.as_str())
                .filter(|r| !r.is_empty())
            {
                out.push(Event::ToolCallDelta {
                    index: i,
                    arguments_delta: rest.to_owned(),
                });
            }
            call.arguments = complete;
        }
        if call.arguments.trim().is_empty() {
            call.arguments = "{}".to_owned();
        }
        out.push(Event::ToolCallEnd {
            index: i,
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
        });
    }

    /// Closes every open call, in the order they began.
    pub fn end_all(&mut self, out: &mut Vec<Event>) {
        let open: Vec<u64> = self
            .calls
            .iter()
            .filter(|c| c.open)
            .map(|c| c.key)
            .collect();
        for key in open {
            self.end(key, None, out);
        }
    }

    /// Whether any call was completed.
    pub fn any_completed(&self) -> bool {
        self.calls.iter().any(|c| !c.open)
    }

    fn open(&self, key: u64) -> Option<usize> {
        self.calls.iter().rposition(|c| c.open && c.key == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_before_the_name_are_released_with_the_start() {
        let mut calls = ToolCalls::default();
        let mut out = Vec::new();
        calls.begin(3, Some("c1"), None, &mut out);
        calls.append(3, "{\"a\"", &mut out);
        assert!(out.is_empty());
        calls.name(3, Some("f"), &mut out);
        calls.name(3, Some(""), &mut out);
        calls.append(3, ":1}", &mut out);
        calls.end(3, None, &mut out);
        assert_eq!(
            out,
            vec![
                Event::ToolCallStart {
                    index: 0,
                    id: "c1".into(),
                    name: "f".into()
                },
                Event::ToolCallDelta {
                    index: 0,
                    arguments_delta: "{\"a\"".into()
                },
                Event::ToolCallDelta {
                    index: 0,
                    arguments_delta: ":1}".into()
                },
                Event::ToolCallEnd {
                    index: 0,
                    id: "c1".into(),
                    name: "f".into(),
                    arguments: "{\"a\":1}".into()
                },
            ]
        );
        assert!(calls.any_completed());
    }

    #[test]
    fn empty_arguments_become_an_empty_object_and_ids_are_synthesised() {
        let mut calls = ToolCalls::default();
        let mut out = Vec::new();
        calls.begin(0, None, Some("a"), &mut out);
        calls.begin(1, Some(""), Some("b"), &mut out);
        calls.end_all(&mut out);
        let ends: Vec<_> = out
            .iter()
            .filter_map(|e| match e {
                Event::ToolCallEnd { id, arguments, .. } => Some((id.as_str(), arguments.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(ends, [("call_0", "{}"), ("call_1", "{}")]);
    }

    #[test]
    fn complete_text_wins_and_closed_calls_ignore_late_fragments() {
        let mut calls = ToolCalls::default();
        let mut out = Vec::new();
        calls.begin(0, Some("x"), Some("f"), &mut out);
        calls.append(0, "{\"a\":", &mut out);
        calls.end(0, Some("{\"a\":2}".into()), &mut out);
        out.clear();
        calls.append(0, "junk", &mut out);
        calls.end(0, None, &mut out);
        assert!(out.is_empty());
        assert!(!calls.is_open(0));
    }
}
