//! The model's questions (the `question` tool) put to the editor.
//!
//! ACP has no question method, so — as Zed's Claude Code adapter does with
//! AskUserQuestion — each question goes out as a `session/request_permission` about
//! the `question` tool call, with one option per choice (kind `allow_once`) and one to
//! dismiss (`reject_once`). A request holding several questions asks them one at a
//! time, in order; dismissing (or cancelling) any of them dismisses the request, and
//! the model is told the user did not answer. A permission request can only pick one
//! option and carries no typed text, so a question allowing several choices gets one,
//! a question with no options is left unanswered without asking, and the answer the
//! model reads says so ([`NOTE`]).
//!
//! The question, its header and its labels are the model's text: the request is
//! titled as a question from the model, every option is named as an answer, and line
//! breaks and control characters are made inert, so a question cannot pass for a
//! tool's permission request (whose answers are Ward's own three).

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use ward_engine::{Engine, QuestionRequest};
use ward_protocol::QuestionInfo;
use ward_term::inert_line;

/// The option that dismisses the question.
pub const DISMISS: &str = "dismiss";

/// What the model is told about answers given through ACP.
pub const NOTE: &str = "answered in an editor over ACP, which offers only the listed \
options: one option could be picked per question and typed answers were not possible";

/// The id of the option picking choice `index`.
fn option_id(index: usize) -> String {
    format!("answer-{index}")
}

/// The permission request asking question `index` of `request` in `session` (the
/// session the client knows); `None` when the question offers nothing to pick.
pub fn permission_request(
    session: &str,
    request: &QuestionRequest,
    index: usize,
) -> Option<RequestPermissionRequest> {
    let question = request.questions.get(index)?;
    if question.options.is_empty() {
        return None;
    }
    let count = request.questions.len();
    let of = if count > 1 {
        format!(" ({} of {count})", index + 1)
    } else {
        String::new()
    };
    let header = if question.header.trim().is_empty() {
        String::new()
    } else {
        format!("[{}] ", inert_line(&question.header))
    };
    let title = format!(
        "Question from the model{of}: {header}{}",
        inert_line(&question.question)
    );
    // The `question` call the client was shown; a question asked outside a tool call
    // is named by its request id.
    let call = request
        .tool
        .as_ref()
        .map_or_else(|| request.id.clone(), |t| t.call_id.clone());
    let fields = ToolCallUpdateFields::new()
        .title(title)
        .kind(ToolKind::Other)
        .status(ToolCallStatus::Pending)
        .raw_input(serde_json::json!({
            "questionRequest": request.id,
            "question": question.question,
            "header": question.header,
            "options": question.options,
            "multiple": question.multiple,
        }));
    let mut options: Vec<PermissionOption> = question
        .options
        .iter()
        .enumerate()
        .map(|(i, o)| {
            PermissionOption::new(
                option_id(i),
                format!("Answer: {}", inert_line(&o.label)),
                PermissionOptionKind::AllowOnce,
            )
        })
        .collect();
    options.push(PermissionOption::new(
        DISMISS,
        "Dismiss the question",
        PermissionOptionKind::RejectOnce,
    ));
    Some(RequestPermissionRequest::new(
        session.to_string(),
        ToolCallUpdate::new(call, fields),
        options,
    ))
}

/// The answer the client's choice gives `question`: the picked label, or `None`
/// (dismissed) for the dismiss option, an unknown option, a cancelled request or an
/// error.
pub fn picked(
    question: &QuestionInfo,
    answer: Result<RequestPermissionResponse, agent_client_protocol::Error>,
) -> Option<Vec<String>> {
    let Ok(RequestPermissionResponse {
        outcome: RequestPermissionOutcome::Selected(selected),
        ..
    }) = answer
    else {
        return None;
    };
    let index: usize = selected.option_id.0.strip_prefix("answer-")?.parse().ok()?;
    // Only the exact id this module made (no leading zeros, no sign) names a choice.
    if option_id(index) != *selected.option_id.0 {
        return None;
    }
    question.options.get(index).map(|o| vec![o.label.clone()])
}

/// Puts `request` to the client one question at a time and answers it in `engine`.
pub async fn ask(
    cx: ConnectionTo<Client>,
    engine: Engine,
    session: String,
    request: QuestionRequest,
) {
    let mut answers = Vec::with_capacity(request.questions.len());
    for (index, question) in request.questions.iter().enumerate() {
        let Some(permission) = permission_request(&session, &request, index) else {
            answers.push(Vec::new());
            continue;
        };
        let answer = cx.send_request(permission).block_task().await;
        match picked(question, answer) {
            Some(answer) => answers.push(answer),
            None => {
                // Settled meanwhile (an abort): nothing left to dismiss.
                let _ = engine.reject_question(&request.id);
                return;
            }
        }
    }
    let _ = engine.answer_question_noted(&request.id, answers, NOTE);
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::SelectedPermissionOutcome;
    use ward_protocol::{QuestionCall, QuestionOption};

    use super::*;

    fn request() -> QuestionRequest {
        let option = |label: &str| QuestionOption {
            label: label.into(),
            description: String::new(),
        };
        QuestionRequest {
            id: "que_1".into(),
            session_id: "ses_1".into(),
            questions: vec![
                QuestionInfo {
                    question: "Allow bash?\nAllow once".into(),
                    header: "Permission".into(),
                    options: vec![option("Allow once"), option("Always allow")],
                    multiple: false,
                },
                QuestionInfo {
                    question: "Anything else?".into(),
                    header: String::new(),
                    options: Vec::new(),
                    multiple: false,
                },
            ],
            tool: Some(QuestionCall {
                message_id: "msg_1".into(),
                call_id: "call_q".into(),
            }),
        }
    }

    fn selected(id: &str) -> Result<RequestPermissionResponse, agent_client_protocol::Error> {
        Ok(RequestPermissionResponse::new(
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id.to_string())),
        ))
    }

    #[test]
    fn a_question_is_labelled_as_the_model_s_and_its_options_as_answers() {
        let asked = permission_request("ses_1", &request(), 0).expect("options to pick");
        assert_eq!(&*asked.tool_call.tool_call_id.0, "call_q");
        assert_eq!(
            asked.tool_call.fields.title.as_deref(),
            Some("Question from the model (1 of 2): [Permission] Allow bash?\\nAllow once")
        );
        let names: Vec<(&str, &str)> = asked
            .options
            .iter()
            .map(|o| (&*o.option_id.0, o.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("answer-0", "Answer: Allow once"),
                ("answer-1", "Answer: Always allow"),
                (DISMISS, "Dismiss the question"),
            ]
        );
        // Nothing to pick: not asked.
        assert!(permission_request("ses_1", &request(), 1).is_none());
    }

    #[test]
    fn the_picked_option_is_the_label_and_anything_else_dismisses() {
        let q = &request().questions[0];
        assert_eq!(
            picked(q, selected("answer-1")),
            Some(vec!["Always allow".into()])
        );
        assert_eq!(picked(q, selected(DISMISS)), None);
        assert_eq!(picked(q, selected("answer-2")), None);
        assert_eq!(picked(q, selected("answer-01")), None);
        assert_eq!(picked(q, selected("allow_once")), None);
        let cancelled = Ok(RequestPermissionResponse::new(
            RequestPermissionOutcome::Cancelled,
        ));
        assert_eq!(picked(q, cancelled), None);
    }
}
