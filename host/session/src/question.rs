//! The `question` tool (OpenCode's `question`, Claude Code's AskUserQuestion): the
//! model asks the user questions with options and reads the answers.
//!
//! Owns [`Questions`], where questions wait for a frontend's answer — published as
//! `question.asked`, answered with [`Questions::reply`] or dismissed with
//! [`Questions::reject`] — and [`QuestionTool`]. A question is not a permission ask:
//! it travels on its own event, is answered through its own call, and its answer is
//! text for the model, so no answer to a question can ever approve a tool.
//!
//! Frontends that can answer say so by holding an [`Answerer`]; while none does
//! (`ward run` without a terminal, an editor whose protocol has no questions), the
//! tool fails at once with a message telling the model to decide for itself — it
//! never waits for an answer nobody can give.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use ward_plugin::CallScope;
use ward_provider::ToolSpec;
use ward_store::{Bus, Event, IdKind, QuestionCall, QuestionInfo, QuestionRequest, new_id};

use crate::tool_error::ToolCallError;
use crate::tools::{HostTool, ToolSuccess};

/// Why a question got no answer, or a reply was not taken.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum QuestionError {
    /// No frontend that can answer questions is attached.
    #[error(
        "no one can answer questions here (no terminal or client is attached to answer \
         them): decide for yourself, and say what you assumed"
    )]
    NoOneToAnswer,
    /// The user dismissed the questions.
    #[error("the user dismissed these questions")]
    Dismissed,
    /// No question is waiting under this id.
    #[error("no question {id} is waiting for an answer")]
    UnknownRequest {
        /// The id given.
        id: String,
    },
    /// A reply must answer each question once.
    #[error("{got} answers for {expected} questions")]
    WrongCount {
        /// Questions asked.
        expected: usize,
        /// Answers given.
        got: usize,
    },
}

/// Questions waiting for answers. Cheap to share behind an [`Arc`].
#[derive(Debug)]
pub struct Questions {
    bus: Bus,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    waiting: HashMap<String, Waiting>,
    answerers: usize,
}

#[derive(Debug)]
struct Waiting {
    request: QuestionRequest,
    answer: oneshot::Sender<Option<Answered>>,
}

/// Answers as the asker receives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    /// One list of labels (or typed text) per question, in order.
    pub answers: Vec<Vec<String>>,
    /// What the frontend that answered wants the model to know about how it could
    /// answer (e.g. an editor that offers only the listed options), if anything.
    pub note: Option<String>,
}

/// A frontend able to answer questions; while one is held, questions wait for an
/// answer. Dropping the last dismisses every waiting question.
#[derive(Debug)]
pub struct Answerer(Arc<Questions>);

impl Drop for Answerer {
    fn drop(&mut self) {
        let orphaned = {
            let mut state = self.0.lock();
            state.answerers = state.answerers.saturating_sub(1);
            if state.answerers == 0 {
                state.waiting.drain().map(|(_, w)| w).collect()
            } else {
                Vec::new()
            }
        };
        for waiting in orphaned {
            self.0.dismissed(waiting);
        }
    }
}

impl Questions {
    /// Questions published on `bus`.
    pub fn new(bus: Bus) -> Arc<Questions> {
        Arc::new(Questions {
            bus,
            state: Mutex::new(State::default()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // Every critical section leaves the map consistent: poisoning tells nothing.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a frontend that answers questions, for as long as it holds the
    /// result.
    pub fn answerer(self: &Arc<Self>) -> Answerer {
        self.lock().answerers += 1;
        Answerer(self.clone())
    }

    /// Asks `questions` in `session_id` and waits for the answers: one list per
    /// question. Fails at once if no frontend can answer.
    pub async fn ask(
        &self,
        session_id: &str,
        questions: Vec<QuestionInfo>,
        tool: Option<QuestionCall>,
    ) -> Result<Vec<Vec<String>>, QuestionError> {
        self.ask_noted(session_id, questions, tool)
            .await
            .map(|a| a.answers)
    }

    /// [`Questions::ask`], with the answering frontend's note.
    pub async fn ask_noted(
        &self,
        session_id: &str,
        questions: Vec<QuestionInfo>,
        tool: Option<QuestionCall>,
    ) -> Result<Answered, QuestionError> {
        let request = QuestionRequest {
            id: new_id(IdKind::Question),
            session_id: session_id.to_string(),
            questions,
            tool,
        };
        let (answer, answered) = oneshot::channel();
        {
            let mut state = self.lock();
            if state.answerers == 0 {
                return Err(QuestionError::NoOneToAnswer);
            }
            state.waiting.insert(
                request.id.clone(),
                Waiting {
                    request: request.clone(),
                    answer,
                },
            );
        }
        // An aborted call drops this future: its question must not stay listed.
        let forget = Forget {
            questions: self,
            id: request.id.clone(),
        };
        self.bus.publish(Event::QuestionAsked { request });
        let outcome = answered.await;
        drop(forget);
        match outcome {
            Ok(Some(answered)) => Ok(answered),
            Ok(None) | Err(_) => Err(QuestionError::Dismissed),
        }
    }

    /// Answers request `id`: one list of labels (or typed text) per question.
    pub fn reply(&self, id: &str, answers: Vec<Vec<String>>) -> Result<(), QuestionError> {
        self.reply_noted(id, answers, None)
    }

    /// [`Questions::reply`] with a note for the model on how the answers could be
    /// given (appended to the tool's answer).
    pub fn reply_noted(
        &self,
        id: &str,
        answers: Vec<Vec<String>>,
        note: Option<String>,
    ) -> Result<(), QuestionError> {
        let waiting = {
            let mut state = self.lock();
            let expected = state
                .waiting
                .get(id)
                .map(|w| w.request.questions.len())
                .ok_or_else(|| QuestionError::UnknownRequest { id: id.to_string() })?;
            if answers.len() != expected {
                return Err(QuestionError::WrongCount {
                    expected,
                    got: answers.len(),
                });
            }
            state.waiting.remove(id)
        };
        let Some(waiting) = waiting else {
            return Err(QuestionError::UnknownRequest { id: id.to_string() });
        };
        self.bus.publish(Event::QuestionReplied {
            session_id: waiting.request.session_id.clone(),
            id: id.to_string(),
            answers: answers.clone(),
        });
        let _ = waiting.answer.send(Some(Answered { answers, note }));
        Ok(())
    }

    /// Dismisses request `id`: the model is told the user did not answer.
    pub fn reject(&self, id: &str) -> Result<(), QuestionError> {
        let waiting = self
            .lock()
            .waiting
            .remove(id)
            .ok_or_else(|| QuestionError::UnknownRequest { id: id.to_string() })?;
        self.dismissed(waiting);
        Ok(())
    }

    /// The questions waiting, oldest first.
    pub fn pending(&self) -> Vec<QuestionRequest> {
        let mut all: Vec<_> = self
            .lock()
            .waiting
            .values()
            .map(|w| w.request.clone())
            .collect();
        all.sort_by(|a, b| a.id.cmp(&b.id));
        all
    }

    fn dismissed(&self, waiting: Waiting) {
        self.bus.publish(Event::QuestionRejected {
            session_id: waiting.request.session_id.clone(),
            id: waiting.request.id.clone(),
        });
        let _ = waiting.answer.send(None);
    }
}

/// Removes a question whose asker stopped waiting.
struct Forget<'a> {
    questions: &'a Questions,
    id: String,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        let left = self.questions.lock().waiting.remove(&self.id);
        if let Some(waiting) = left {
            self.questions.dismissed(waiting);
        }
    }
}

/// The `question` tool over a [`Questions`].
pub struct QuestionTool {
    questions: Arc<Questions>,
}

impl QuestionTool {
    /// The tool, asking through `questions`.
    pub fn new(questions: Arc<Questions>) -> Self {
        QuestionTool { questions }
    }
}

/// What the model is told (OpenCode's wording, shortened).
const DESCRIPTION: &str = "Use this tool when you need to ask the user questions during \
execution. This allows you to gather user preferences or requirements, clarify ambiguous \
instructions, get decisions on implementation choices as you work, and offer choices about \
what direction to take.\n\nUsage notes:\n- The user can always type an answer of their own \
instead of picking an option\n- Answers are returned as arrays of labels; set `multiple: true` \
to allow selecting more than one\n- If you recommend a specific option, make it the first \
option and add \"(Recommended)\" at the end of its label\n- This tool cannot ask for \
permission to run tools: permissions are asked by the host itself";

impl HostTool for QuestionTool {
    fn name(&self) -> &str {
        "question"
    }

    /// It only asks the user: it never writes files.
    fn may_write_files(&self) -> bool {
        false
    }
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: DESCRIPTION.to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "questions": {
                        "type": "array",
                        "description": "Questions to ask",
                        "items": {
                            "type": "object",
                            "properties": {
                                "question": { "type": "string", "description": "Complete question" },
                                "header": { "type": "string", "description": "Very short label (max 30 chars)" },
                                "options": {
                                    "type": "array",
                                    "description": "Available choices",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "label": { "type": "string", "description": "Display text (1-5 words, concise)" },
                                            "description": { "type": "string", "description": "Explanation of choice" }
                                        },
                                        "required": ["label", "description"]
                                    }
                                },
                                "multiple": { "type": "boolean", "description": "Allow selecting multiple choices" }
                            },
                            "required": ["question", "header", "options"]
                        }
                    }
                },
                "required": ["questions"]
            }),
        }
    }

    fn run<'a>(
        &'a self,
        args: Value,
        scope: &'a CallScope,
    ) -> BoxFuture<'a, Result<ToolSuccess, ToolCallError>> {
        Box::pin(async move {
            let questions: Vec<QuestionInfo> = args
                .get("questions")
                .cloned()
                .ok_or_else(|| "`questions` is required".to_string())
                .and_then(|q| serde_json::from_value(q).map_err(|e| e.to_string()))
                .map_err(|e| {
                    ToolCallError::respond(format!("invalid arguments for `question`: {e}"))
                })?;
            if questions.is_empty() {
                return Err(ToolCallError::respond(
                    "invalid arguments for `question`: ask at least one question",
                ));
            }
            let tool = (!scope.call_id.is_empty()).then(|| QuestionCall {
                message_id: scope.message_id.clone(),
                call_id: scope.call_id.clone(),
            });
            let Answered { answers, note } = self
                .questions
                .ask_noted(&scope.session_id, questions.clone(), tool)
                .await
                .map_err(|e| ToolCallError::respond(e.to_string()))?;
            let note = note.map(|n| format!(" ({n})")).unwrap_or_default();
            let pairs: Vec<String> = questions
                .iter()
                .zip(&answers)
                .map(|(q, a)| {
                    let answer = if a.is_empty() {
                        "Unanswered".to_string()
                    } else {
                        a.join(", ")
                    };
                    format!("\"{}\"=\"{answer}\"", q.question)
                })
                .collect();
            Ok(ToolSuccess::text(
                format!(
                    "Asked {} question{}",
                    questions.len(),
                    if questions.len() == 1 { "" } else { "s" }
                ),
                format!(
                    "User has answered your questions: {}.{note} You can now continue with \
                     the user's answers in mind.",
                    pairs.join(", ")
                ),
                json!({ "answers": answers }),
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one() -> Vec<QuestionInfo> {
        vec![QuestionInfo {
            question: "Which?".into(),
            header: "Pick".into(),
            options: Vec::new(),
            multiple: false,
        }]
    }

    #[tokio::test]
    async fn without_an_answerer_a_question_fails_at_once() {
        let questions = Questions::new(Bus::default());
        let asked = questions.ask("ses_1", one(), None).await;
        assert_eq!(asked, Err(QuestionError::NoOneToAnswer));
        assert!(questions.pending().is_empty());
    }

    #[tokio::test]
    async fn an_answer_reaches_the_asker_and_dropping_the_answerer_dismisses() {
        let questions = Questions::new(Bus::default());
        let answerer = questions.answerer();
        let asker = {
            let questions = questions.clone();
            tokio::spawn(async move { questions.ask("ses_1", one(), None).await })
        };
        while questions.pending().is_empty() {
            tokio::task::yield_now().await;
        }
        let id = questions.pending()[0].id.clone();
        assert_eq!(
            questions.reply(&id, vec![]),
            Err(QuestionError::WrongCount {
                expected: 1,
                got: 0
            })
        );
        questions.reply(&id, vec![vec!["A".into()]]).expect("taken");
        assert_eq!(asker.await.expect("joins"), Ok(vec![vec!["A".to_string()]]));

        let asker = {
            let questions = questions.clone();
            tokio::spawn(async move { questions.ask("ses_1", one(), None).await })
        };
        while questions.pending().is_empty() {
            tokio::task::yield_now().await;
        }
        drop(answerer);
        assert_eq!(asker.await.expect("joins"), Err(QuestionError::Dismissed));
        assert!(questions.pending().is_empty());
    }
}
