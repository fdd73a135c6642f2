//! What a frontend does with stored sessions besides prompting them: create one
//! under another, list a session's children, change its title and rules, delete it,
//! read its messages and todos. Each checks the session exists first, so an unknown
//! id is [`EngineError::is_not_found`] whichever call meets it.

use ward_store::{Session, Store};

use crate::engine::Engine;
use crate::error::EngineError;
use crate::workspace::primary_agent;

impl Engine {
    /// A new session started by session `parent` (listed among its children), led
    /// by `agent` (a primary one; default: the default agent).
    pub fn create_child_session(
        &self,
        parent: &str,
        agent: Option<&str>,
    ) -> Result<Session, EngineError> {
        self.session(parent)?;
        let agent = primary_agent(&self.shared.ws.agents, agent)?;
        let mut session = Session::new(
            self.shared.ws.config.project_root.to_string_lossy(),
            &agent.name,
        );
        session.parent_id = Some(parent.to_string());
        self.shared.store.create_session(&session)?;
        Ok(session)
    }

    /// The sessions `id` started (its subagents' sessions).
    pub fn children(&self, id: &str) -> Result<Vec<Session>, EngineError> {
        self.session(id)?;
        Ok(self.shared.store.list_children(id)?)
    }

    /// Makes primary agent `agent` lead session `id` from its next prompt; returns the
    /// session as stored.
    pub fn set_session_agent(&self, id: &str, agent: &str) -> Result<Session, EngineError> {
        let stored = self.session(id)?;
        let agent = primary_agent(&self.shared.ws.agents, Some(agent))?;
        Ok(self.shared.store.update_session(&Session {
            agent: agent.name.clone(),
            ..stored
        })?)
    }

    /// Stores `session`'s title, permission rules and chosen model as given (the rules
    /// and the model apply from the session's next prompt; see [`Engine::model_ref`]);
    /// returns the session as stored.
    pub fn update_session(&self, session: &Session) -> Result<Session, EngineError> {
        let stored = self.session(&session.id)?;
        Ok(self.shared.store.update_session(&Session {
            title: session.title.clone(),
            permission: session.permission.clone(),
            model: session.model.clone(),
            ..stored
        })?)
    }

    /// Deletes session `id` with its messages and its subagents' sessions (the store
    /// removes those), aborting whatever of them runs first.
    pub fn delete_session(&self, id: &str) -> Result<(), EngineError> {
        self.session(id)?;
        let mut running = vec![id.to_string()];
        while let Some(next) = running.pop() {
            self.abort(&next);
            running.extend(
                self.shared
                    .store
                    .list_children(&next)?
                    .into_iter()
                    .map(|c| c.id),
            );
        }
        Ok(crate::manage::delete(
            &self.shared.store,
            &self.blobs(),
            id,
        )?)
    }

    /// Session `id`'s messages with their parts, oldest first.
    pub fn messages(&self, id: &str) -> Result<Vec<ward_store::Message>, EngineError> {
        self.session(id)?;
        Ok(self.shared.store.messages(id, None)?)
    }

    /// Message `message_id` of session `id`, with its parts.
    pub fn message(&self, id: &str, message_id: &str) -> Result<ward_store::Message, EngineError> {
        let message = self.shared.store.get_message(message_id)?;
        if message.info.session_id() != id {
            return Err(EngineError::Store(ward_store::StoreError::NotFound {
                kind: "message",
                id: message_id.to_string(),
            }));
        }
        Ok(message)
    }

    /// Session `id`'s task list.
    pub fn todos(&self, id: &str) -> Result<Vec<ward_store::Todo>, EngineError> {
        self.session(id)?;
        Ok(self.shared.store.todos(id)?)
    }
}
