//! The steps of one loop: load the history, call the model with retries, run the tool
//! calls it made, record the step — until the model is done.

use std::time::{Duration, Instant};

use serde_json::Value;
use ward_plugin::SamplingParams;
use ward_provider::{
    ChatRequest, FinishReason, Message as Wire, ProviderError, Retries, SystemBlock, UserPart,
};
use ward_store::{
    AssistantMessage, CacheTokens, MessageError, MessageInfo, Part, PartKind, RetryTime, Session,
    SessionStatus, Tokens, UserMessage,
};

use crate::history::to_wire;
use crate::reminders::MAX_STEPS;
use crate::runner::{LoopError, LoopState, ModelSetup, Runner, now};
use crate::step::{self, StepTarget};
use ward_context::budget::Tally;

/// The longest wait before a retry, whatever the provider asked for.
const MAX_WAIT: Duration = Duration::from_secs(60);

impl Runner {
    /// Steps until the model is done (or the step limit, a plain rejection or an error
    /// ends it). `loop_state` survives a hand-over to a prompt that joined at the end.
    pub(crate) async fn steps_until_done(
        &self,
        session: &Session,
        user: &UserMessage,
        loop_state: &mut LoopState,
    ) -> Result<AssistantMessage, LoopError> {
        let overhead = self.overhead(&loop_state.tally);
        let mut overflowed = false;
        loop {
            self.keep_within_budget(session, loop_state, overhead)
                .await?;
            if loop_state.steps == 0 {
                // Prompts that join later come from the same runner, so the same agent.
                self.remind_agent_switch(session, &mut loop_state.history)?;
            }
            loop_state.steps += 1;
            let step_no = loop_state.steps;
            let last = self.steps.is_some_and(|max| step_no >= max);
            let mut messages = to_wire(&loop_state.history.ordered(), step_no > 1);
            self.prepare_files(&mut messages);
            if last {
                messages.push(Wire::User {
                    content: vec![UserPart::Text {
                        text: MAX_STEPS.to_string(),
                    }],
                });
            }
            let mut request = ChatRequest {
                model: self.model.model.clone(),
                system: self.system.blocks(user.system.as_deref()),
                messages,
                tools: if last { Vec::new() } else { self.tools.specs() },
                max_tokens: self.model.max_tokens,
                temperature: self.temperature.filter(|_| self.model.temperature),
                top_p: self.top_p,
                options: Value::Null,
            };
            self.apply_hooks(session, &mut request).await;
            let mut assistant = AssistantMessage::new(user);
            self.store
                .put_message(&MessageInfo::Assistant(assistant.clone()))?;
            loop_state.current = Some(assistant.clone());
            self.store
                .put_part(&Part::new(&session.id, &assistant.id, PartKind::StepStart))?;

            let snapshot = self.step_snapshot();
            let starting = |tool: &str| {
                if self.tools.may_write_files(tool) {
                    snapshot.start();
                }
            };
            let output = match self
                .stream_with_retries(session, &assistant, &request, &self.model, Some(&starting))
                .await
            {
                Ok(o) => o,
                Err(e) => {
                    assistant.error = Some(MessageError::new("ProviderError", e.to_string()));
                    assistant.time.completed = Some(now());
                    self.store.put_message(&MessageInfo::Assistant(assistant))?;
                    loop_state.current = None;
                    // The provider counts differently from our estimate: compact once
                    // and try again; a second overflow in a row is a real failure.
                    let overflow = matches!(e, ProviderError::ContextOverflow { .. });
                    if overflow && self.context.auto && !overflowed {
                        overflowed = true;
                        loop_state.steps -= 1;
                        let request = self.request_compaction(session, true, true)?;
                        self.compact(
                            session,
                            &request,
                            true,
                            &mut loop_state.history,
                            &mut loop_state.tally,
                        )
                        .await?;
                        continue;
                    }
                    return Err(e.into());
                }
            };
            overflowed = false;

            // The calls of one step run concurrently, as the model asked for them
            // together; each one's doom-loop check sees the calls before it.
            let previous: Vec<(String, Value)> = output
                .calls
                .iter()
                .map(|call| {
                    let input = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
                    (call.name.clone(), input)
                })
                .collect();
            let names = output.calls.iter().map(|call| call.name.as_str());
            let before = self.before_tools(snapshot, names, loop_state).await;
            let outcomes = futures_util::future::join_all(
                output
                    .calls
                    .iter()
                    .enumerate()
                    .map(|(i, call)| self.run_call(session, &assistant, call, &previous[..i])),
            )
            .await;
            if let Some(before) = before {
                self.patch_in_background(&session.id, &assistant.id, before, loop_state);
            }
            let mut rejected = false;
            for outcome in outcomes {
                rejected |= outcome?;
            }

            self.finish_step(session, &mut assistant, &output)?;
            loop_state.current = None;

            // A plain rejection (no feedback) means "stop"; with feedback the model goes
            // on. A prompt that joined during the step is answered before stopping.
            let more = output.finish == FinishReason::ToolCalls && !output.calls.is_empty();
            let joined = loop_state.lease.take_joined();
            if last || !(joined || more && !rejected) {
                if output.calls.is_empty() && !output.text {
                    return Err(self.empty_turn(&mut assistant, output.finish)?);
                }
                return Ok(assistant);
            }
        }
    }

    /// Ends a loop whose last step had no text and no tool call: the assistant message
    /// records why, and the prompt fails with [`LoopError::EmptyTurn`] (an empty reply,
    /// such as a turn whose only call was of a kind the loop could not see, is never
    /// reported as an answer).
    fn empty_turn(
        &self,
        assistant: &mut AssistantMessage,
        finish: FinishReason,
    ) -> Result<LoopError, LoopError> {
        let error = LoopError::EmptyTurn { finish };
        assistant.error = Some(MessageError::new("EmptyTurn", error.to_string()));
        self.store
            .put_message(&MessageInfo::Assistant(assistant.clone()))?;
        Ok(error)
    }

    /// Records a finished model call: the step-finish part with its usage and cost,
    /// the assistant message completed, the session's totals.
    pub(crate) fn finish_step(
        &self,
        session: &Session,
        assistant: &mut AssistantMessage,
        output: &step::StepOutput,
    ) -> Result<(), LoopError> {
        let tokens = Tokens {
            input: output.usage.input,
            output: output.usage.output,
            reasoning: output.usage.reasoning,
            cache: CacheTokens {
                read: output.usage.cache_read,
                write: output.usage.cache_write,
            },
        };
        let cost = self.cost(&output.usage);
        let finish = output.finish;
        self.store.put_part(&Part::new(
            &session.id,
            &assistant.id,
            PartKind::StepFinish {
                reason: finish,
                tokens,
                cost,
            },
        ))?;
        assistant.finish = Some(finish);
        assistant.tokens = tokens;
        assistant.cost = cost;
        assistant.time.completed = Some(now());
        self.store
            .put_message(&MessageInfo::Assistant(assistant.clone()))?;
        self.store.add_usage(&session.id, tokens, cost)?;
        Ok(())
    }

    /// Tokens of the system prompt and the tool definitions, for projecting a
    /// request that has no measured usage to start from.
    fn overhead(&self, tally: &Tally) -> u64 {
        let blocks = self.system.blocks(None);
        let system: u64 = blocks.iter().map(|b| tally.text(&b.text)).sum();
        let tools = serde_json::to_string(&self.tools.specs()).unwrap_or_default();
        system + tally.text(&tools)
    }

    /// `system.transform` and `chat.params` hooks, before every model call.
    async fn apply_hooks(&self, session: &Session, request: &mut ChatRequest) {
        let host = self.tools.host();
        let scope = self.session_scope(session);
        let texts: Vec<String> = request.system.iter().map(|b| b.text.clone()).collect();
        let transformed = host.system_transform(texts.clone(), &scope).await;
        if transformed != texts {
            // Blocks a hook left in place keep their cache marks; new ones are dynamic.
            request.system = transformed
                .into_iter()
                .enumerate()
                .map(|(i, text)| SystemBlock {
                    cache: request
                        .system
                        .get(i)
                        .is_some_and(|b| b.cache && b.text == text),
                    text,
                })
                .collect();
        }
        let before = SamplingParams {
            temperature: request.temperature.map(|t| t as f32),
            top_p: request.top_p.map(|t| t as f32),
            max_tokens: request.max_tokens,
            options: "{}".to_string(),
        };
        let model = format!("{}/{}", self.model.provider, self.model.model);
        let params = host.chat_params(&model, before.clone(), &scope).await;
        // The WIT carries f32: keep the exact configured value unless a hook changed it.
        if params.temperature != before.temperature {
            request.temperature = params.temperature.map(f64::from);
        }
        if params.top_p != before.top_p {
            request.top_p = params.top_p.map(f64::from);
        }
        request.max_tokens = params.max_tokens;
        let hooked = serde_json::from_str::<Value>(&params.options)
            .ok()
            .filter(|o| o.as_object().is_some_and(|o| !o.is_empty()));
        request.options = crate::variant::options(&self.model, hooked);
    }

    /// Where the context budget reads attached images from: the blob store when the
    /// model takes images (they are sent, and cost their pixels), else `None`.
    pub(crate) fn image_blobs(&self) -> Option<ward_store::Blobs> {
        self.blobs.clone().filter(|_| self.model.attachment)
    }

    /// Inlines the stored files of `messages`, or notes in their place where the
    /// model takes none.
    pub(crate) fn prepare_files(&self, messages: &mut [Wire]) {
        let name = format!("{}/{}", self.model.provider, self.model.model);
        let target = crate::attach::Target {
            name: &name,
            accepts: self.model.attachment,
        };
        crate::attach::prepare(messages, self.blobs.as_ref(), &target);
    }

    pub(crate) async fn stream_with_retries(
        &self,
        session: &Session,
        assistant: &AssistantMessage,
        request: &ChatRequest,
        model: &ModelSetup,
        on_call_start: Option<&(dyn Fn(&str) + Sync)>,
    ) -> Result<step::StepOutput, ward_provider::ProviderError> {
        let target = StepTarget {
            store: self.store.as_ref(),
            session_id: &session.id,
            message_id: &assistant.id,
            on_call_start,
        };
        let mut retries = Retries::new(self.retry);
        loop {
            retries.begin(Instant::now());
            match step::run(
                &self.client,
                model.protocol,
                &model.endpoint,
                request,
                &target,
            )
            .await
            {
                Ok(out) => return Ok(out),
                Err((error, written)) => {
                    // Whatever the failed attempt streamed goes; the retry streams it again.
                    for part in written {
                        let _ = self.store.remove_part(&session.id, &assistant.id, &part);
                    }
                    let Some(delay) = retries.failed(&error, Instant::now()) else {
                        return Err(error);
                    };
                    // A provider's hint beyond a minute is not waited out in full.
                    let delay = delay.min(MAX_WAIT);
                    let _ = self.store.put_part(&Part::new(
                        &session.id,
                        &assistant.id,
                        PartKind::Retry {
                            attempt: retries.attempt(),
                            error: MessageError::new("ProviderError", error.to_string()),
                            time: RetryTime { created: now() },
                        },
                    ));
                    // Every frontend shows this, so a person can tell a retry from a hang.
                    let delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
                    self.status(
                        session,
                        SessionStatus::Retry {
                            attempt: retries.attempt() + 1,
                            max: retries.max_attempts(),
                            delay_ms,
                            next: now().saturating_add(i64::try_from(delay_ms).unwrap_or(i64::MAX)),
                            message: error.to_string(),
                        },
                    );
                    tokio::time::sleep(delay).await;
                    self.status(session, SessionStatus::Busy);
                }
            }
        }
    }
}

/// How a finish reason reads in a message.
pub(crate) fn reason_text(finish: FinishReason) -> &'static str {
    match finish {
        FinishReason::Stop => "stop",
        FinishReason::ToolCalls => "tool calls",
        FinishReason::Length => "output token limit",
        FinishReason::ContentFilter => "content filter",
        FinishReason::Unknown => "unknown",
    }
}
