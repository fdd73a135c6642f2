//! Keeping a loop's requests inside the model's context window: before each model
//! call the next request is projected ([`ward_context::budget`]); if it would not fit, old
//! tool outputs are pruned ([`ward_context::prune`]), and if that is not enough the session
//! is compacted ([`crate::compact`]). A compaction the user asked for (a pending
//! compaction part) runs first. After the loop, prune runs as in OpenCode.
//!
//! Also here: the agent-switch reminders (SPEC §4 step 7), which are decided from the
//! same loaded history.

use ward_store::{AssistantMessage, Message, MessageInfo, Part, PartKind, Session, TextPart};

use crate::active::Entry;
use crate::history::History;
use crate::reminders::{ENTER_PLAN, LEAVE_PLAN};
use crate::runner::{LoopError, LoopState, Runner, now};
use ward_context::budget::{ContextPolicy, Tally, usable};
use ward_context::prune;

impl Runner {
    /// The most input tokens a request may hold, if the model's window is known.
    pub fn usable(&self) -> Option<u64> {
        self.usable_for(&self.model)
    }

    /// [`Runner::usable`] for `model` (the compaction agent's, say), under this
    /// runner's context policy.
    pub(crate) fn usable_for(&self, model: &crate::ModelSetup) -> Option<u64> {
        let policy = ContextPolicy {
            threshold: model.compaction_threshold.or(self.context.threshold),
            ..self.context.clone()
        };
        usable(&model.limits, model.max_tokens, &policy)
    }

    /// Runs a pending compaction, then makes sure the next request fits: prune, and
    /// compact if pruning is not enough. `overhead` is what the system prompt and the
    /// tool definitions cost.
    pub(crate) async fn keep_within_budget(
        &self,
        session: &Session,
        state: &mut LoopState,
        overhead: u64,
    ) -> Result<(), LoopError> {
        state.history.load(self.store.as_ref(), &session.id)?;
        let ordered = state.history.ordered();
        if let Some((request, auto)) = pending_compaction(&ordered) {
            self.compact(
                session,
                &request,
                auto,
                &mut state.history,
                &mut state.tally,
            )
            .await?;
            state.history.load(self.store.as_ref(), &session.id)?;
            return Ok(());
        }
        let Some(limit) = self.usable() else {
            return Ok(());
        };
        let after = state.history.point().map(|p| p.summary_message_id.as_str());
        let mut projected = state.tally.projected(&ordered, after, overhead);
        if projected < limit {
            return Ok(());
        }
        if self.context.prune {
            let traits = |tool: &str| self.tools.traits(tool);
            let plan = prune::plan(state.history.messages_mut(), 0, &mut state.tally, &traits);
            prune::apply(
                &plan,
                state.history.messages_mut(),
                self.store.as_ref(),
                now(),
            )?;
            projected = projected.saturating_sub(plan.freed);
            tracing::debug!(
                freed = plan.freed,
                projected,
                limit,
                "pruned before overflow"
            );
            if projected < limit {
                return Ok(());
            }
        }
        if self.context.auto {
            let request = self.request_compaction(session, true, true)?;
            self.compact(
                session,
                &request,
                true,
                &mut state.history,
                &mut state.tally,
            )
            .await?;
            state.history.load(self.store.as_ref(), &session.id)?;
        }
        Ok(())
    }

    /// Prune after a loop (SPEC §5.3): the last two turns are left alone.
    pub(crate) fn prune_after_loop(
        &self,
        session: &Session,
        history: &mut History,
        tally: &mut Tally,
    ) {
        if !self.context.prune {
            return;
        }
        let pruned = history
            .load(self.store.as_ref(), &session.id)
            .and_then(|()| {
                let traits = |tool: &str| self.tools.traits(tool);
                let plan = prune::plan(history.messages_mut(), 2, tally, &traits);
                prune::apply(&plan, history.messages_mut(), self.store.as_ref(), now())
            });
        if let Err(e) = pruned {
            tracing::warn!("prune after the loop of {}: {e}", session.id);
        }
    }

    /// When the newest user message entered or left `plan`, adds the reminder
    /// to it as a synthetic part (once; history is never rewritten). `history` is
    /// loaded; the part is added to it as well as to the store.
    pub(crate) fn remind_agent_switch(
        &self,
        session: &Session,
        history: &mut History,
    ) -> Result<(), LoopError> {
        let messages = history.messages_mut();
        let Some(at) = messages
            .iter()
            .rposition(|m| matches!(m.info, MessageInfo::User(_)))
        else {
            return Ok(());
        };
        let previous = messages[..at].iter().rev().find_map(|m| match &m.info {
            MessageInfo::Assistant(a) if !a.summary => Some(a.agent.clone()),
            _ => None,
        });
        let message = &mut messages[at];
        let MessageInfo::User(user) = &message.info else {
            return Ok(());
        };
        // A session that starts in plan mode is entering it too.
        let reminder = match previous.as_deref() {
            Some("plan") if user.agent != "plan" => LEAVE_PLAN,
            Some("plan") => return Ok(()),
            _ if user.agent == "plan" => ENTER_PLAN,
            _ => return Ok(()),
        };
        let already = message
            .parts
            .iter()
            .any(|p| matches!(&p.kind, PartKind::Text(t) if t.synthetic && t.text == reminder));
        if !already {
            let part = Part::new(
                &session.id,
                &user.id,
                PartKind::Text(TextPart {
                    text: reminder.to_string(),
                    synthetic: true,
                    ..TextPart::default()
                }),
            );
            self.store.put_part(&part)?;
            message.parts.push(part);
        }
        Ok(())
    }

    /// Compacts `session` now (`ward session compact`): the summary message, once
    /// the compaction point is recorded. Fails if the session's loop is running.
    pub async fn compact_session(&self, session: &Session) -> Result<AssistantMessage, LoopError> {
        let Entry::Started(lease) = self.loops.start_or_join(&session.id) else {
            return Err(LoopError::Busy);
        };
        let mut history = History::default();
        let mut tally = Tally::new(self.model.counter).with_images(self.image_blobs());
        let request = self.request_compaction(session, false, false)?;
        let outcome = self
            .compact(session, &request, false, &mut history, &mut tally)
            .await;
        let shared = match &outcome {
            Ok(summary) => Ok(summary.clone()),
            Err(e) => Err(std::sync::Arc::new(LoopError::Compaction(e.to_string()))),
        };
        // Nothing else runs prompts in this process while a manual compaction does;
        // a prompt that joined anyway is answered by its own loop afterwards.
        let _ = lease.finish(shared);
        outcome
    }
}

/// The newest message, when it is a compaction request nobody answered yet: the
/// request and whether the loop made it.
fn pending_compaction(ordered: &[&Message]) -> Option<(ward_store::UserMessage, bool)> {
    let last = ordered.last()?;
    let MessageInfo::User(user) = &last.info else {
        return None;
    };
    last.parts.iter().find_map(|p| match p.kind {
        PartKind::Compaction { auto, .. } => Some((user.clone(), auto)),
        _ => None,
    })
}
