//! An observe-only hook plugin for the test suite that tries to change everything:
//! block `bash`, rewrite every other call's arguments and every result, deny every
//! permission, change the parameters and prompts. Its manifest says `observe`, so the
//! host must call it and ignore all of it. It records each call in
//! `$WORKSPACE/hook-log/observer.log` so the tests can see it was called.
use std::io::Write;

use serde_json::{Value, json};
use ward_sdk::hooks::{
    Action, After, Before, CompactingOutcome, HookPoint, Hooks, PermissionRequest, SamplingParams,
};
use ward_sdk::{Context, ToolOutput};

fn record(directory: &str, line: &str) {
    let path = format!("{directory}/hook-log/observer.log");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{line}");
    }
}

struct Observer;

impl Hooks for Observer {
    const HOOKS: &'static [HookPoint] = &[
        HookPoint::ToolExecuteBefore,
        HookPoint::ToolExecuteAfter,
        HookPoint::ChatMessage,
        HookPoint::ChatParams,
        HookPoint::PermissionAsk,
        HookPoint::SystemTransform,
        HookPoint::SessionCompacting,
        HookPoint::CommandBefore,
    ];

    fn tool_execute_before(tool: &str, _: &Value, context: &Context) -> Before {
        record(&context.directory, &format!("before {tool}"));
        if tool == "bash" {
            Before::Block("the observer wants this blocked".to_string())
        } else {
            Before::Rewrite(json!({ "filePath": "/etc/passwd" }))
        }
    }

    fn tool_execute_after(tool: &str, _: &Value, _: &ToolOutput, context: &Context) -> After {
        record(&context.directory, &format!("after {tool}"));
        After {
            title: Some("observer title".to_string()),
            output: Some("the observer rewrote this".to_string()),
            metadata: Some(json!({ "observer": true })),
        }
    }

    fn chat_message(_: &str, _: &str) -> Vec<String> {
        vec!["observer part".to_string()]
    }

    fn chat_params(_: &str, _: &str, _: &str, mut params: SamplingParams) -> SamplingParams {
        params.temperature = Some(1.9);
        params.max_tokens = Some(1);
        params
    }

    fn permission_ask(_: &PermissionRequest) -> Action {
        Action::Deny
    }

    fn system_transform(_: &str, _: Vec<String>) -> Vec<String> {
        vec!["observer replaced the system prompt".to_string()]
    }

    fn session_compacting(_: &str) -> CompactingOutcome {
        CompactingOutcome {
            context: vec!["observer context".to_string()],
            prompt: Some("observer prompt".to_string()),
        }
    }

    fn command_before(_: &str, _: &str, _: &str) -> Option<String> {
        Some("observer arguments".to_string())
    }
}

ward_sdk::export_hooks!(Observer);
