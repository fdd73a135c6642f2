//! Ward's permission asks as `session/request_permission`: the three answers Ward
//! takes — allow once, always allow, reject — are the options, and the option the
//! client selects is the reply. A cancelled request (the client sent `session/cancel`,
//! or could not answer) rejects.

use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};
use ward_engine::{AskRequest, Reply};

use crate::tools::ToolTable;

/// The option that allows this call only.
pub const ALLOW_ONCE: &str = "allow_once";
/// The option that allows this call and, from now on, what it asked for.
pub const ALLOW_ALWAYS: &str = "allow_always";
/// The option that refuses the call.
pub const REJECT_ONCE: &str = "reject_once";

/// The request put to the client for `ask` in `session` (the session the client knows:
/// a subagent's ask is put in the session that started it).
pub fn request(
    session: &str,
    ask_id: &str,
    ask: &AskRequest,
    tools: &ToolTable,
) -> RequestPermissionRequest {
    let patterns = ask.patterns.join(", ");
    let mut title = match &ask.plugin {
        Some(plugin) => format!("{plugin} asks for {}", ask.permission),
        None => ask.permission.clone(),
    };
    if !patterns.is_empty() {
        title = format!("{title}: {patterns}");
    }
    // The call the ask is about, when there is one: the client has seen it as a
    // `tool_call` with this id.
    let id = ask.call_id.clone().unwrap_or_else(|| ask_id.to_string());
    let fields = ToolCallUpdateFields::new()
        .title(title)
        .kind(tools.get(&ask.permission).kind)
        .status(ToolCallStatus::Pending)
        .raw_input(serde_json::json!({
            "permission": ask.permission,
            "patterns": ask.patterns,
            "always": ask.always,
            "metadata": ask.metadata,
            "plugin": ask.plugin,
            "agent": ask.agent,
        }));
    let options = vec![
        PermissionOption::new(ALLOW_ONCE, "Allow once", PermissionOptionKind::AllowOnce),
        PermissionOption::new(
            ALLOW_ALWAYS,
            "Always allow",
            PermissionOptionKind::AllowAlways,
        ),
        PermissionOption::new(REJECT_ONCE, "Reject", PermissionOptionKind::RejectOnce),
    ];
    RequestPermissionRequest::new(
        session.to_string(),
        ToolCallUpdate::new(id, fields),
        options,
    )
}

/// Ward's reply for the client's answer (an error or a cancelled request rejects).
pub fn reply(answer: Result<RequestPermissionResponse, agent_client_protocol::Error>) -> Reply {
    let Ok(RequestPermissionResponse {
        outcome: RequestPermissionOutcome::Selected(selected),
        ..
    }) = answer
    else {
        return Reply::Reject { feedback: None };
    };
    match &*selected.option_id.0 {
        ALLOW_ONCE => Reply::Once,
        ALLOW_ALWAYS => Reply::Always,
        _ => Reply::Reject { feedback: None },
    }
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::SelectedPermissionOutcome;

    use super::*;

    fn ask() -> AskRequest {
        AskRequest {
            session_id: "ses_1".into(),
            project: "/p".into(),
            agent: "build".into(),
            permission: "read".into(),
            patterns: vec!["a.txt".into()],
            always: vec!["*".into()],
            metadata: serde_json::Value::Null,
            call_id: Some("call_1".into()),
            message_id: None,
            plugin: None,
        }
    }

    #[test]
    fn an_ask_offers_ward_s_three_answers_about_its_call() {
        let request = request("ses_1", "per_1", &ask(), &ToolTable::default());
        let ids: Vec<_> = request
            .options
            .iter()
            .map(|o| o.option_id.0.to_string())
            .collect();
        assert_eq!(ids, [ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE]);
        assert_eq!(&*request.tool_call.tool_call_id.0, "call_1");
        assert_eq!(
            request.tool_call.fields.title.as_deref(),
            Some("read: a.txt")
        );
    }

    #[test]
    fn the_selected_option_is_the_reply_and_anything_else_rejects() {
        let selected = |id: &str| {
            Ok(RequestPermissionResponse::new(
                RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id.to_string())),
            ))
        };
        assert_eq!(reply(selected(ALLOW_ONCE)), Reply::Once);
        assert_eq!(reply(selected(ALLOW_ALWAYS)), Reply::Always);
        assert_eq!(
            reply(selected(REJECT_ONCE)),
            Reply::Reject { feedback: None }
        );
        assert_eq!(reply(selected("bogus")), Reply::Reject { feedback: None });
        let cancelled = Ok(RequestPermissionResponse::new(
            RequestPermissionOutcome::Cancelled,
        ));
        assert_eq!(reply(cancelled), Reply::Reject { feedback: None });
        assert_eq!(
            reply(Err(agent_client_protocol::Error::internal_error())),
            Reply::Reject { feedback: None }
        );
    }
}
