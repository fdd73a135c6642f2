//! A prompt stored before its loop can run. Getting a runner ready can take seconds —
//! components compiled, plugins asked what they declare, the tools loaded — and a
//! process killed meanwhile must not lose what the user typed: the front end stores
//! the prompt first ([`RecordedPrompt::store`], needing nothing but the store), then
//! [`crate::Runner::run_recorded`] runs the loop on that same message, never storing
//! it a second time. A session killed in between holds the prompt as its last
//! message, and `--session` carries on from it.

use ward_store::{MessageInfo, ModelRef, Part, PartKind, Store, StoreError, TextPart, UserMessage};

/// A user message stored with what the user typed, not yet answered.
#[derive(Clone, Debug)]
pub struct RecordedPrompt {
    user: UserMessage,
    typed: Part,
}

/// Who a prompt is for: the user message's agent, model and extra system text.
#[derive(Clone, Debug, PartialEq)]
pub struct Addressee {
    /// The agent that is to answer.
    pub agent: String,
    /// The model that is to answer.
    pub model: ModelRef,
    /// System text the prompt carries (`ward run --system`).
    pub system: Option<String>,
}

impl RecordedPrompt {
    /// Stores, in `session_id`, a user message for `to` whose text is `text`.
    pub fn store(
        store: &dyn Store,
        session_id: &str,
        to: Addressee,
        text: &str,
    ) -> Result<Self, StoreError> {
        let mut user = UserMessage::new(session_id, to.agent, to.model);
        user.system = to.system;
        let typed = Part::new(
            session_id,
            &user.id,
            PartKind::Text(TextPart {
                text: text.to_string(),
                ..TextPart::default()
            }),
        );
        store.put_message_with_parts(
            &MessageInfo::User(user.clone()),
            std::slice::from_ref(&typed),
        )?;
        Ok(Self { user, typed })
    }

    /// The stored message.
    pub fn message(&self) -> &UserMessage {
        &self.user
    }

    /// The part holding the user's text.
    pub fn typed(&self) -> &Part {
        &self.typed
    }

    /// The user's text as stored now.
    pub fn text(&self) -> &str {
        match &self.typed.kind {
            PartKind::Text(t) => &t.text,
            _ => "",
        }
    }

    /// Replaces the stored text with `text` — what a slash command expanded to, which
    /// is what the model is to read (the typed `/name args` stays until then, so a
    /// kill during the expansion still leaves the prompt).
    pub fn replace_text(&mut self, store: &dyn Store, text: &str) -> Result<(), StoreError> {
        if let PartKind::Text(t) = &mut self.typed.kind {
            if t.text == text {
                return Ok(());
            }
            t.text = text.to_string();
        }
        store.put_part(&self.typed)
    }

    /// Addresses the message to `to` if it was stored for someone else: the front end
    /// records before plugin components can declare agents, so its guess of the
    /// agent (and so of the model) can be corrected by the runner that answers.
    pub fn address(&mut self, store: &dyn Store, to: Addressee) -> Result<(), StoreError> {
        let now = Addressee {
            agent: self.user.agent.clone(),
            model: self.user.model.clone(),
            system: self.user.system.clone(),
        };
        if now == to {
            return Ok(());
        }
        self.user.agent = to.agent;
        self.user.model = to.model;
        self.user.system = to.system;
        store.put_message(&MessageInfo::User(self.user.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ward_store::{Session, SqliteStore};

    fn addressee(agent: &str) -> Addressee {
        Addressee {
            agent: agent.into(),
            model: ModelRef::new("p", "m"),
            system: None,
        }
    }

    #[test]
    fn the_prompt_is_stored_then_readdressed_and_expanded_in_place() {
        let store = SqliteStore::open_in_memory().expect("store");
        let session = Session::new("/p", "build");
        store.create_session(&session).expect("session");
        let mut recorded =
            RecordedPrompt::store(&store, &session.id, addressee("build"), "/review x")
                .expect("stored");
        let stored = store.messages(&session.id, None).expect("messages");
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].parts, [recorded.typed().clone()]);

        recorded
            .address(&store, addressee("reviewer"))
            .expect("addressed");
        recorded
            .replace_text(&store, "Review x carefully.")
            .expect("expanded");
        let stored = store.messages(&session.id, None).expect("messages");
        assert_eq!(stored.len(), 1, "still one message");
        assert!(matches!(&stored[0].info, MessageInfo::User(u) if u.agent == "reviewer"));
        assert_eq!(stored[0].parts.len(), 1, "still one part");
        assert!(
            matches!(&stored[0].parts[0].kind, PartKind::Text(t) if t.text == "Review x carefully.")
        );
        assert_eq!(recorded.text(), "Review x carefully.");
    }
}
