//! Session titles (SPEC §4 step 10): after the first exchange an untitled session is
//! named. With a small model configured (`small_model`), the hidden `title` agent
//! writes the title from the first prompt; without one — or if that call fails — the
//! first line of the prompt is the title. A title never costs a call to the main
//! model, and a failure never fails the prompt.

use futures_util::StreamExt;
use ward_provider::{ChatRequest, Event, Message as Wire, SystemBlock, UserPart};
use ward_store::{MessageInfo, PartKind, Session};

use crate::runner::{ModelSetup, Runner};

/// Longest title kept, in characters.
pub const MAX_TITLE: usize = 50;

/// How titles are written: the model (the configured small model) and the `title`
/// agent's prompt.
#[derive(Clone, Debug)]
pub struct Titles {
    /// The model that writes titles.
    pub model: ModelSetup,
    /// The `title` agent's system prompt.
    pub prompt: String,
}

impl Runner {
    /// Names `session` if it has no title yet (subagent sessions are left alone: the
    /// task's description names them in the parent).
    pub(crate) async fn title_if_untitled(&self, session: &Session) {
        let Ok(mut stored) = self.store.get_session(&session.id) else {
            return;
        };
        if !stored.title.is_empty() || stored.parent_id.is_some() {
            return;
        }
        let Some(first) = self.first_prompt(session) else {
            return;
        };
        let written = match &self.titles {
            Some(titles) => self.write_title(titles, &first).await,
            None => None,
        };
        stored.title = written.unwrap_or_else(|| clean(&first));
        if stored.title.is_empty() {
            return;
        }
        if let Err(e) = self.store.update_session(&stored) {
            tracing::warn!("cannot title session {}: {e}", session.id);
        }
    }

    fn first_prompt(&self, session: &Session) -> Option<String> {
        let messages = self.store.messages(&session.id, None).ok()?;
        messages
            .iter()
            .filter(|m| matches!(m.info, MessageInfo::User(_)))
            .flat_map(|m| &m.parts)
            .find_map(|p| match &p.kind {
                PartKind::Text(t) if !t.synthetic && !t.text.trim().is_empty() => {
                    Some(t.text.clone())
                }
                _ => None,
            })
    }

    async fn write_title(&self, titles: &Titles, first: &str) -> Option<String> {
        let request = ChatRequest {
            model: titles.model.model.clone(),
            system: vec![SystemBlock {
                text: titles.prompt.clone(),
                cache: false,
            }],
            messages: vec![Wire::User {
                content: vec![UserPart::Text {
                    text: format!("Write the title for this conversation:\n\n{first}"),
                }],
            }],
            max_tokens: Some(64),
            ..ChatRequest::default()
        };
        let model = &titles.model;
        let mut stream = std::pin::pin!(ward_provider::stream(
            &self.client,
            model.protocol,
            &model.endpoint,
            &request
        ));
        let mut text = String::new();
        while let Some(event) = stream.next().await {
            match event {
                Event::TextDelta(delta) => text.push_str(&delta),
                Event::Error(e) => {
                    tracing::warn!("title generation failed: {e}");
                    return None;
                }
                Event::Finish(_) => break,
                _ => {}
            }
        }
        Some(clean(&text)).filter(|t| !t.is_empty())
    }
}

/// The first non-empty line, without surrounding quotes, at most [`MAX_TITLE`]
/// characters (cut ones end in `…`).
pub fn clean(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .trim();
    if line.chars().count() <= MAX_TITLE {
        return line.to_string();
    }
    let cut: String = line.chars().take(MAX_TITLE - 1).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_one_clean_short_line() {
        assert_eq!(clean("\n  \"Fix the parser\"  \nmore"), "Fix the parser");
        assert_eq!(clean("   "), "");
        let long = "word ".repeat(30);
        let title = clean(&long);
        assert_eq!(title.chars().count(), MAX_TITLE);
        assert!(title.ends_with('…'));
    }
}
