//! Compaction, the third line of context defence (SPEC §5.4): the history before the
//! last turns is replaced — for the model, not in storage — by a summary.
//!
//! A compaction is a user message with a `compaction` part (sent as "What did we do so
//! far?"), answered by the hidden `compaction` agent with no tools: an assistant
//! message with `summary = true` holding an anchored summary in fixed sections. The
//! last two user turns (at most a quarter of the usable window) stay verbatim. The
//! store then records the compaction point, so the next load starts from the kept
//! turns and sends [question, summary, kept turns, newer]. An automatic compaction
//! adds a synthetic "continue" message so the loop picks up where it was.
//!
//! The summariser's own request never overflows: its input is clipped to fit — tool
//! outputs cut to [`CLIP_OUTPUT`] characters, oldest first, then the oldest messages
//! dropped — before it is sent.

use ward_provider::{ChatRequest, Message as Wire, SystemBlock, UserPart};
use ward_store::{
    AssistantMessage, Message, MessageError, MessageInfo, ModelRef, Part, PartKind, Session,
    TextPart, UserMessage,
};

use crate::history::{History, to_wire};
use crate::runner::{LoopError, Runner, now};
use ward_context::budget::Tally;

/// The synthetic message that follows an automatic compaction.
pub const CONTINUE: &str = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.";

/// Characters a tool output keeps in the summariser's input when it must be clipped.
pub const CLIP_OUTPUT: usize = 2000;

/// The compaction agent's system prompt.
pub const COMPACTION_AGENT: &str = "You are a summariser inside a coding agent. The conversation so far is about to be replaced by your summary: the agent will continue the work with nothing but your summary and the last few messages. Write for that agent, not for the user. Be complete about facts and terse in wording. Never call tools.";

/// The instruction that ends the summariser's input.
pub const SUMMARY_REQUEST: &str = "Summarise the conversation above so that the work can continue without it. If it begins with an earlier summary, update that summary with what happened since: keep what still holds, drop what was superseded, and add what is new.

Use exactly these sections, in this order, as Markdown headings:

## Goal
What the user wants overall, in their terms.

## Constraints & Preferences
Requirements, conventions and preferences the user stated or the project imposes.

## Progress
### Done
### In progress
### Blocked
Each a list; say which files changed and how.

## Key Decisions
Choices made and why, including approaches rejected.

## Next Steps
The concrete next actions, in order.

## Critical Context
Exact file paths, commands, error messages, identifiers and values, copied verbatim (not paraphrased), that the next steps depend on.

## Relevant Files
Each path with one line on why it matters.";

impl Runner {
    /// Adds a compaction request to the session: a user message with a compaction
    /// part (`auto` when the loop started it, `overflow` when the window was full).
    pub(crate) fn request_compaction(
        &self,
        session: &Session,
        auto: bool,
        overflow: bool,
    ) -> Result<UserMessage, LoopError> {
        let model = ModelRef::new(&self.model.provider, &self.model.model);
        let request = UserMessage::new(&session.id, &self.agent, model);
        self.store
            .put_message(&MessageInfo::User(request.clone()))?;
        self.store.put_part(&Part::new(
            &session.id,
            &request.id,
            PartKind::Compaction { auto, overflow },
        ))?;
        Ok(request)
    }

    /// Answers the compaction `request` (the newest message of `history`) with a
    /// summary, records the compaction point, and — when `auto` — adds the message
    /// that lets the loop continue. Returns the summary message.
    pub(crate) async fn compact(
        &self,
        session: &Session,
        request: &UserMessage,
        auto: bool,
        history: &mut History,
        tally: &mut Tally,
    ) -> Result<AssistantMessage, LoopError> {
        history.load(self.store.as_ref(), &session.id)?;
        let earlier: Vec<&Message> = history
            .ordered()
            .into_iter()
            .filter(|m| m.info.id() != request.id)
            .collect();
        // After a compaction, send order starts [question, summary, …].
        let floor = history.point().map_or(0, |_| 2);
        let tail = self.tail_start(&earlier, floor, tally);
        let from = earlier
            .get(tail)
            .map_or(request.id.clone(), |m| m.info.id().to_string());
        let mut messages = to_wire(&earlier[..tail], false);
        crate::attach::as_text(&mut messages);

        let hooked = self
            .tools
            .host()
            .session_compacting(&self.session_scope(session))
            .await;
        let mut ask = hooked.prompt.unwrap_or_else(|| SUMMARY_REQUEST.to_string());
        for extra in hooked.context {
            ask.push_str("\n\n");
            ask.push_str(&extra);
        }
        // `[agent.compaction]` may give the summariser its own prompt, model and
        // sampling; the session's model and Ward's prompt otherwise.
        let agent = &self.compaction;
        let model = agent.model.as_ref().unwrap_or(&self.model);
        let prompt = agent.prompt.as_deref().unwrap_or(COMPACTION_AGENT);
        let system = vec![SystemBlock {
            text: prompt.to_string(),
            cache: true,
        }];
        if let Some(usable) = self.usable_for(model) {
            let fixed = tally.text(prompt) + tally.text(&ask);
            clip(&mut messages, usable.saturating_sub(fixed), tally);
        }
        messages.push(Wire::User {
            content: vec![UserPart::Text { text: ask }],
        });
        let call = ChatRequest {
            model: model.model.clone(),
            system,
            messages,
            tools: Vec::new(),
            temperature: agent.temperature.filter(|_| model.temperature),
            top_p: agent.top_p,
            max_tokens: model.max_tokens,
            ..ChatRequest::default()
        };

        let mut summary = AssistantMessage::new(request);
        summary.agent = "compaction".to_string();
        summary.model = ModelRef::new(&model.provider, &model.model);
        summary.summary = true;
        self.store
            .put_message(&MessageInfo::Assistant(summary.clone()))?;
        self.store
            .put_part(&Part::new(&session.id, &summary.id, PartKind::StepStart))?;
        let output = match self
            .stream_with_retries(session, &summary, &call, model, None)
            .await
        {
            Ok(o) => o,
            Err(e) => {
                summary.error = Some(MessageError::new("ProviderError", e.to_string()));
                summary.time.completed = Some(now());
                self.store.put_message(&MessageInfo::Assistant(summary))?;
                return Err(e.into());
            }
        };
        self.finish_step(session, &mut summary, &output)?;
        self.store.set_compaction(&session.id, &summary.id, &from)?;
        if auto {
            let model = ModelRef::new(&self.model.provider, &self.model.model);
            let next = UserMessage::new(&session.id, &self.agent, model);
            self.store.put_message(&MessageInfo::User(next.clone()))?;
            self.store.put_part(&Part::new(
                &session.id,
                &next.id,
                PartKind::Text(TextPart {
                    text: CONTINUE.to_string(),
                    synthetic: true,
                    ..TextPart::default()
                }),
            ))?;
        }
        Ok(summary)
    }

    /// Where the verbatim tail of `messages` (send order) starts: the last two user
    /// turns, but no more than a quarter of the usable window, and never before
    /// `floor` (the previous question and summary, which the new summary replaces).
    fn tail_start(&self, messages: &[&Message], floor: usize, tally: &mut Tally) -> usize {
        let budget = self.usable().map_or(u64::MAX, |u| u / 4);
        let mut start = messages.len();
        let mut turns = 0;
        let mut used = 0u64;
        for (i, m) in messages.iter().enumerate().rev() {
            if i < floor {
                break;
            }
            used += tally.message(m, true);
            if used > budget {
                break;
            }
            start = i;
            if matches!(m.info, MessageInfo::User(_)) {
                turns += 1;
                if turns == 2 {
                    break;
                }
            }
        }
        start
    }
}

/// Clips `messages` to about `budget` tokens: tool results cut to [`CLIP_OUTPUT`]
/// characters oldest first, then the oldest messages dropped (keeping a tool result
/// with its call).
fn clip(messages: &mut Vec<Wire>, budget: u64, tally: &Tally) {
    let mut sizes: Vec<u64> = messages.iter().map(|m| wire_tokens(m, tally)).collect();
    let mut total: u64 = sizes.iter().sum();
    for (i, m) in messages.iter_mut().enumerate() {
        if total <= budget {
            return;
        }
        if let Wire::Tool(result) = m
            && result.output.chars().count() > CLIP_OUTPUT
        {
            let cut: String = result.output.chars().take(CLIP_OUTPUT).collect();
            result.output = format!("{cut}\n[… clipped for the summary]");
            let now = wire_tokens(m, tally);
            total = total - sizes[i] + now;
            sizes[i] = now;
        }
    }
    let mut drop = 0;
    while total > budget && drop < messages.len() {
        total -= sizes[drop];
        drop += 1;
        // A tool result without its call is refused by every provider.
        while drop < messages.len() && matches!(messages[drop], Wire::Tool(_)) {
            total -= sizes[drop];
            drop += 1;
        }
    }
    messages.drain(..drop);
}

fn wire_tokens(message: &Wire, tally: &Tally) -> u64 {
    4 + match message {
        Wire::User { content } => content
            .iter()
            .map(|p| match p {
                UserPart::Text { text } => tally.text(text),
                _ => 0,
            })
            .sum(),
        Wire::Assistant { content } => content
            .iter()
            .map(|p| match p {
                ward_provider::AssistantPart::Text { text }
                | ward_provider::AssistantPart::Reasoning { text, .. } => tally.text(text),
                ward_provider::AssistantPart::ToolCall(call) => 8 + tally.text(&call.arguments),
            })
            .sum(),
        Wire::Tool(result) => tally.text(&result.output),
    }
}
