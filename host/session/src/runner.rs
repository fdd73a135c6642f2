//! The loop for one prompt: persist the user's message, then step — call the model,
//! stream its reply into parts, run the tool calls it made, record the step — until the
//! model finishes for a reason other than tool calls, the step limit is reached, or an
//! error ends it. Retryable provider errors are retried with the policy's delays;
//! whatever a failed attempt wrote is removed first, so nothing is duplicated.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use ward_permission::{PermissionEngine, PermissionError, Ruleset};
use ward_plugin::CallScope;
use ward_provider::{
    ChatRequest, Client, Endpoint, FinishReason, Message as Wire, Protocol, RetryPolicy,
    SystemBlock, UserPart,
};
use ward_store::{
    AssistantMessage, CacheTokens, CompletedTime, ErrorTime, MessageError, MessageInfo, ModelRef,
    Part, PartKind, RetryTime, RunningTime, Session, SessionStatus, Store, TextPart, Tokens,
    ToolPart, ToolState, UserMessage,
};

use crate::history::to_wire;
use crate::reminders::MAX_STEPS;
use crate::step::{self, StepTarget};
use crate::tools::ToolBox;

/// The model a runner talks to.
#[derive(Clone, Debug)]
pub struct ModelSetup {
    /// The provider's name in config (`local`, `anthropic`, …).
    pub provider: String,
    /// The model id sent on the wire.
    pub model: String,
    /// The wire protocol.
    pub protocol: Protocol,
    /// Where and how to reach it.
    pub endpoint: Endpoint,
    /// USD per million tokens: input, output, cache read, cache write.
    pub prices: [f64; 4],
    /// Maximum output tokens to ask for.
    pub max_tokens: Option<u32>,
    /// The model's token limits (from the model registry), for overflow detection.
    pub limits: ward_provider::Limits,
}

/// Everything the loop needs.
pub struct Runner {
    /// The store.
    pub store: Arc<dyn Store>,
    /// The tools on offer.
    pub tools: ToolBox,
    /// The model.
    pub model: ModelSetup,
    /// The HTTP client.
    pub client: Client,
    /// Where asks go.
    pub permissions: PermissionEngine,
    /// Permission layers.
    pub rules: Arc<Vec<Ruleset>>,
    /// The project root.
    pub project: PathBuf,
    /// The agent.
    pub agent: String,
    /// The system prompt blocks.
    pub system: Vec<SystemBlock>,
    /// At most this many steps (`None`: unlimited).
    pub steps: Option<u32>,
    /// Retry policy for provider errors.
    pub retry: RetryPolicy,
}

/// Why a prompt ended badly.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// Storage failed.
    #[error("storage: {0}")]
    Store(#[from] ward_store::StoreError),
    /// The provider failed and retrying did not help (or could not).
    #[error("{0}")]
    Provider(#[from] ward_provider::ProviderError),
}

impl Runner {
    /// Runs `text` as a new user message in `session` to the end of the loop and returns
    /// the last assistant message.
    pub async fn prompt(
        &self,
        session: &Session,
        text: &str,
    ) -> Result<AssistantMessage, LoopError> {
        let model = ModelRef::new(&self.model.provider, &self.model.model);
        let user = UserMessage::new(&session.id, &self.agent, model);
        self.store.put_message(&MessageInfo::User(user.clone()))?;
        self.store.put_part(&Part::new(
            &session.id,
            &user.id,
            PartKind::Text(TextPart {
                text: text.to_string(),
                ..TextPart::default()
            }),
        ))?;
        self.status(session, SessionStatus::Busy);
        let outcome = self.steps_until_done(session, &user).await;
        self.status(session, SessionStatus::Idle);
        let _ = self.store.flush();
        outcome
    }

    async fn steps_until_done(
        &self,
        session: &Session,
        user: &UserMessage,
    ) -> Result<AssistantMessage, LoopError> {
        let mut step_no = 0u32;
        loop {
            step_no += 1;
            let last = self.steps.is_some_and(|max| step_no >= max);
            let mut messages = to_wire(&self.store.messages_since_compaction(&session.id)?);
            if last {
                messages.push(Wire::User {
                    content: vec![UserPart::Text {
                        text: MAX_STEPS.to_string(),
                    }],
                });
            }
            let request = ChatRequest {
                model: self.model.model.clone(),
                system: self.system.clone(),
                messages,
                tools: if last { Vec::new() } else { self.tools.specs() },
                max_tokens: self.model.max_tokens,
                options: Value::Null,
                ..ChatRequest::default()
            };
            let mut assistant = AssistantMessage::new(user);
            self.store
                .put_message(&MessageInfo::Assistant(assistant.clone()))?;
            self.store
                .put_part(&Part::new(&session.id, &assistant.id, PartKind::StepStart))?;

            let output = match self
                .stream_with_retries(session, &assistant, &request)
                .await
            {
                Ok(o) => o,
                Err(e) => {
                    assistant.error = Some(MessageError::new("ProviderError", e.to_string()));
                    assistant.time.completed = Some(now());
                    self.store.put_message(&MessageInfo::Assistant(assistant))?;
                    return Err(e.into());
                }
            };

            let mut previous: Vec<(String, Value)> = Vec::new();
            let mut rejected = false;
            for call in &output.calls {
                rejected |= self.run_call(session, &assistant, call, &previous).await?;
                previous.push((
                    call.name.clone(),
                    serde_json::from_str(&call.arguments).unwrap_or(Value::Null),
                ));
            }

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
            let finish = finish_reason(output.finish);
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

            // A plain rejection (no feedback) means "stop"; with feedback the model goes on.
            let more = output.finish == FinishReason::ToolCalls && !output.calls.is_empty();
            if !more || last || rejected {
                return Ok(assistant);
            }
        }
    }

    async fn stream_with_retries(
        &self,
        session: &Session,
        assistant: &AssistantMessage,
        request: &ChatRequest,
    ) -> Result<step::StepOutput, ward_provider::ProviderError> {
        let target = StepTarget {
            store: self.store.as_ref(),
            session_id: &session.id,
            message_id: &assistant.id,
        };
        let mut attempt = 1u32;
        loop {
            match step::run(
                &self.client,
                self.model.protocol,
                &self.model.endpoint,
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
                    let delay = match self.retry.delay(attempt, &error) {
                        Some(d) if attempt < self.retry.max_attempts => d,
                        _ => return Err(error),
                    };
                    let _ = self.store.put_part(&Part::new(
                        &session.id,
                        &assistant.id,
                        PartKind::Retry {
                            attempt,
                            error: MessageError::new("ProviderError", error.to_string()),
                            time: RetryTime { created: now() },
                        },
                    ));
                    self.status(
                        session,
                        SessionStatus::Retry {
                            attempt,
                            next: now() + delay.as_millis() as i64,
                            message: error.to_string(),
                        },
                    );
                    tokio::time::sleep(delay.min(Duration::from_secs(60))).await;
                    self.status(session, SessionStatus::Busy);
                    attempt += 1;
                }
            }
        }
    }

    async fn run_call(
        &self,
        session: &Session,
        assistant: &AssistantMessage,
        call: &step::Call,
        previous: &[(String, Value)],
    ) -> Result<bool, LoopError> {
        let input: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
        let start = now();
        let mut part = call.part.clone();
        part.kind = PartKind::Tool(ToolPart {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            state: ToolState::Running {
                input: input.clone(),
                title: None,
                metadata: None,
                time: RunningTime { start },
            },
        });
        self.store.put_part(&part)?;
        let scope = CallScope {
            session_id: session.id.clone(),
            message_id: assistant.id.clone(),
            call_id: call.id.clone(),
            agent: self.agent.clone(),
            project: self.project.clone(),
            rules: self.rules.clone(),
            permissions: self.permissions.clone(),
            progress: None,
            approved: Arc::new(Mutex::new(Vec::new())),
        };
        let mut rejected = false;
        let state = match self
            .tools
            .execute(&call.name, &call.arguments, scope, previous)
            .await
        {
            Ok(ok) => ToolState::Completed {
                input,
                output: ok.output,
                title: ok.title,
                metadata: ok.metadata,
                time: CompletedTime {
                    start,
                    end: now(),
                    compacted: None,
                },
            },
            Err(error) => {
                rejected = error
                    .contains(&PermissionError::Rejected { feedback: None }.to_string())
                    && !error.contains("Feedback:");
                ToolState::Error {
                    input,
                    error,
                    time: ErrorTime { start, end: now() },
                }
            }
        };
        part.kind = PartKind::Tool(ToolPart {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            state,
        });
        self.store.put_part(&part)?;
        Ok(rejected)
    }

    fn cost(&self, u: &ward_provider::Usage) -> f64 {
        let [input, output, read, write] = self.model.prices;
        (u.input as f64 * input
            + u.output as f64 * output
            + u.cache_read as f64 * read
            + u.cache_write as f64 * write)
            / 1_000_000.0
    }

    fn status(&self, session: &Session, status: SessionStatus) {
        self.store.bus().publish(ward_store::Event::SessionStatus {
            session_id: session.id.clone(),
            status,
        });
    }
}

fn finish_reason(f: FinishReason) -> ward_store::FinishReason {
    match f {
        FinishReason::Stop => ward_store::FinishReason::Stop,
        FinishReason::ToolCalls => ward_store::FinishReason::ToolCalls,
        FinishReason::Length => ward_store::FinishReason::Length,
        FinishReason::ContentFilter => ward_store::FinishReason::ContentFilter,
        FinishReason::Unknown => ward_store::FinishReason::Unknown,
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
