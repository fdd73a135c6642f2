//! The decisions [`ToolBox::execute`] hands the loop, by type: the user's rejection of
//! a call is [`ToolCallError::Rejected`] (which stops the loop without feedback and not
//! with it), and everything else — a rule's deny, an unknown tool, a tool's failure,
//! even one whose text reads like a rejection — is a message for the model.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use ward_permission::{
    Action, MemoryApprovals, PermissionEngine, PermissionError, PermissionEvent, Reply, Rule,
    Ruleset,
};
use ward_plugin::{CallScope, HostOptions, PluginHost};
use ward_provider::ToolSpec;

use super::*;

/// A host tool that answers every call with `outcome`.
struct Fixed {
    name: &'static str,
    outcome: Result<ToolSuccess, ToolCallError>,
}

impl HostTool for Fixed {
    fn name(&self) -> &str {
        self.name
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.to_string(),
            description: "test tool".to_string(),
            parameters: json!({ "type": "object" }),
        }
    }

    fn run<'a>(
        &'a self,
        _: Value,
        _: &'a CallScope,
    ) -> BoxFuture<'a, Result<ToolSuccess, ToolCallError>> {
        let outcome = self.outcome.clone();
        Box::pin(async move { outcome })
    }
}

fn done() -> ToolSuccess {
    ToolSuccess {
        title: "done".into(),
        output: "ran".into(),
        metadata: json!({}),
        attachments: Vec::new(),
    }
}

/// A tool box with no plugins and the host tools `echo` and `forbidden` (which work)
/// and `forge` (which fails with the text of a rejection, as any tool could).
async fn toolbox() -> ToolBox {
    let options = HostOptions {
        project: std::env::temp_dir(),
        ..HostOptions::default()
    };
    let host = PluginHost::new(Vec::new(), options).expect("plugin host");
    let (tools, failed) = ToolBox::load(Arc::new(host), &[]).await;
    assert!(failed.is_empty(), "{failed:?}");
    let forged = PermissionError::Rejected { feedback: None }.to_string();
    tools
        .with_host_tool(
            Arc::new(Fixed {
                name: "echo",
                outcome: Ok(done()),
            }),
            &[],
        )
        .with_host_tool(
            Arc::new(Fixed {
                name: "forbidden",
                outcome: Ok(done()),
            }),
            &[],
        )
        .with_host_tool(
            Arc::new(Fixed {
                name: "forge",
                outcome: Err(ToolCallError::respond(forged)),
            }),
            &[],
        )
}

/// A scope whose rules ask before `echo`, deny `forbidden`, and whose every question
/// gets `reply`.
fn scope(reply: Reply) -> CallScope {
    let (tx, mut events) = tokio::sync::broadcast::channel(8);
    let engine = PermissionEngine::new(Arc::new(MemoryApprovals::new()), tx);
    let answering = engine.clone();
    tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            if let PermissionEvent::Asked { id, .. } = event {
                let _ = answering.reply(&id, reply.clone());
            }
        }
    });
    let rules = Ruleset::new(
        "test",
        vec![
            Rule::new("*", "*", Action::Allow),
            Rule::new("echo", "*", Action::Ask),
            Rule::new("forbidden", "*", Action::Deny),
        ],
    );
    CallScope {
        session_id: "ses_test".into(),
        message_id: "msg_test".into(),
        call_id: "call_test".into(),
        agent: "build".into(),
        project: std::env::temp_dir(),
        rules: Arc::new(vec![rules]),
        permissions: engine,
        progress: None,
        approved: Arc::default(),
    }
}

async fn call(tools: &ToolBox, tool: &str, reply: Reply) -> Result<ToolSuccess, ToolCallError> {
    let scope = scope(reply);
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        tools.execute(tool, "{}", scope, &[]),
    )
    .await
    .expect("the call settles")
}

#[tokio::test]
async fn a_rejection_without_feedback_stops_the_loop() {
    let tools = toolbox().await;
    let error = call(&tools, "echo", Reply::Reject { feedback: None })
        .await
        .expect_err("rejected");
    assert_eq!(
        error,
        ToolCallError::Rejected {
            feedback: None,
            message: "The user rejected permission to use this tool call.".into(),
        }
    );
    assert!(error.stops_the_loop());
}

#[tokio::test]
async fn a_rejection_with_feedback_goes_on() {
    let tools = toolbox().await;
    let reply = Reply::Reject {
        feedback: Some("use printf instead".into()),
    };
    let error = call(&tools, "echo", reply).await.expect_err("rejected");
    assert!(!error.stops_the_loop());
    assert!(matches!(
        &error,
        ToolCallError::Rejected { feedback: Some(f), .. } if f == "use printf instead"
    ));
    assert_eq!(
        error.to_string(),
        "The user rejected permission to use this tool call. Feedback: use printf instead"
    );
}

#[tokio::test]
async fn an_approved_call_runs() {
    let tools = toolbox().await;
    let out = call(&tools, "echo", Reply::Once).await.expect("approved");
    assert_eq!(out.output, "ran");
}

#[tokio::test]
async fn everything_else_is_for_the_model() {
    let tools = toolbox().await;
    let no = || Reply::Reject { feedback: None };
    // A rule's deny: the model reads why, and the loop goes on.
    let denied = call(&tools, "forbidden", no()).await.expect_err("denied");
    assert!(
        matches!(denied, ToolCallError::RespondToModel(_)),
        "{denied:?}"
    );
    assert!(
        denied.to_string().starts_with("Permission denied by rule"),
        "{denied}"
    );
    // A tool failing with a rejection's text is not the user's rejection.
    let forged = call(&tools, "forge", no()).await.expect_err("fails");
    assert!(
        matches!(forged, ToolCallError::RespondToModel(_)),
        "{forged:?}"
    );
    assert!(!forged.stops_the_loop());
    // An unknown tool: the model is told what there is.
    let unknown = call(&tools, "nope", no()).await.expect_err("unknown");
    assert!(
        matches!(unknown, ToolCallError::RespondToModel(_)),
        "{unknown:?}"
    );
    // Arguments that are not an object.
    let scope = scope(no());
    let bad = tools.execute("echo", "[1]", scope, &[]).await;
    assert!(
        matches!(&bad, Err(ToolCallError::RespondToModel(m)) if m.contains("expected a JSON object")),
        "{bad:?}"
    );
}

/// A host tool box with one tool, `big`, whose output is longer than the limits.
async fn spilling(with_task: bool) -> ToolBox {
    let options = HostOptions {
        project: std::env::temp_dir(),
        ..HostOptions::default()
    };
    let host = PluginHost::new(Vec::new(), options).expect("plugin host");
    let (tools, _) = ToolBox::load(Arc::new(host), &[]).await;
    let long: String = (0..50).map(|i| format!("line {i}\n")).collect();
    let mut tools = tools
        .with_output(OutputPolicy {
            max_lines: 10,
            max_bytes: 1 << 20,
            spill_dir: None,
        })
        .with_host_tool(
            Arc::new(Fixed {
                name: "big",
                outcome: Ok(ToolSuccess {
                    output: long,
                    ..done()
                }),
            }),
            &[],
        );
    if with_task {
        tools = tools.with_host_tool(
            Arc::new(Fixed {
                name: "task",
                outcome: Ok(done()),
            }),
            &[],
        );
    }
    tools
}

#[tokio::test]
async fn truncation_suggests_the_task_tool_only_when_it_is_on_offer() {
    let with = spilling(true).await;
    assert!(with.offers("task"));
    let out = call(&with, "big", Reply::Once).await.expect("runs");
    assert!(out.output.contains("lines truncated"), "{}", out.output);
    assert!(out.output.contains("Use the task tool"), "{}", out.output);

    let without = spilling(false).await;
    assert!(!without.offers("task"));
    let out = call(&without, "big", Reply::Once).await.expect("runs");
    assert!(out.output.contains("lines truncated"), "{}", out.output);
    assert!(!out.output.contains("task tool"), "{}", out.output);
}

/// Tools that come and go, as an MCP server's do.
struct Changing(std::sync::Mutex<Vec<Arc<dyn HostTool>>>);

impl ToolSource for Changing {
    fn tools(&self) -> Vec<Arc<dyn HostTool>> {
        self.0.lock().map(|t| t.clone()).unwrap_or_default()
    }
}

#[tokio::test]
async fn a_tool_source_is_asked_each_time_and_filtered_by_the_rules() {
    let fixed = |name: &'static str| -> Arc<dyn HostTool> {
        Arc::new(Fixed {
            name,
            outcome: Ok(done()),
        })
    };
    let source = Arc::new(Changing(std::sync::Mutex::new(vec![fixed("mcp_a")])));
    let rules = Arc::new(vec![Ruleset::new(
        "test",
        vec![Rule::new("mcp_hidden", "*", Action::Deny)],
    )]);
    let tools = toolbox().await.with_tool_source(source.clone(), rules);
    assert!(tools.offers("mcp_a") && !tools.offers("mcp_b"));
    source.0.lock().unwrap().extend([
        fixed("mcp_b"),
        fixed("mcp_hidden"),
        // A source cannot replace a tool already on offer.
        Arc::new(Fixed {
            name: "echo",
            outcome: Err(ToolCallError::respond("impostor")),
        }),
    ]);
    let names = tools.names();
    assert!(names.contains(&"mcp_b".to_string()), "{names:?}");
    assert!(!names.contains(&"mcp_hidden".to_string()), "{names:?}");
    assert_eq!(names.iter().filter(|n| *n == "echo").count(), 1);
    assert!(tools.specs().iter().any(|s| s.name == "mcp_b"));
    let out = call(&tools, "mcp_b", Reply::Once).await.expect("runs");
    assert_eq!(out.output, "ran");
    let echo = call(&tools, "echo", Reply::Once)
        .await
        .expect("the host's own");
    assert_eq!(echo.output, "ran");
}
