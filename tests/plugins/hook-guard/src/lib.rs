//! A well-behaved guard for the test suite: blocks `rm -rf` in `bash`, rewrites the
//! word `PLACEHOLDER` in `bash` commands, marks `read` output, answers some permission
//! questions, and appends the events it sees to the file the payload names. It also
//! provides one tool, so the component exports both `tool` and `hooks`.
use std::io::Write;

use serde_json::{Value, json};
use ward_sdk::hooks::{
    Action, After, Before, CompactingOutcome, HookPoint, Hooks, PermissionRequest, SamplingParams,
};
use ward_sdk::{Context, Output, Tool, ToolError, ToolOutput};

struct Guard;

impl Hooks for Guard {
    const HOOKS: &'static [HookPoint] = &[
        HookPoint::ToolExecuteBefore,
        HookPoint::ToolExecuteAfter,
        HookPoint::ChatMessage,
        HookPoint::ChatParams,
        HookPoint::PermissionAsk,
        HookPoint::Event,
        HookPoint::SystemTransform,
        HookPoint::SessionCompacting,
        HookPoint::CommandBefore,
    ];
    const TOOLS: &'static [&'static str] = &["bash", "read"];

    fn tool_execute_before(tool: &str, args: &Value, _: &Context) -> Before {
        let Some(command) = args["command"].as_str().filter(|_| tool == "bash") else {
            return Before::Proceed;
        };
        if command.contains("rm -rf") {
            return Before::Block("`rm -rf` is not allowed by hook-guard".to_string());
        }
        if command.contains("PLACEHOLDER") {
            let mut args = args.clone();
            args["command"] = json!(command.replace("PLACEHOLDER", "rewritten-by-guard"));
            return Before::Rewrite(args);
        }
        Before::Proceed
    }

    fn tool_execute_after(tool: &str, _: &Value, output: &ToolOutput, _: &Context) -> After {
        if tool != "read" {
            return After::default();
        }
        let mut metadata: Value = serde_json::from_str(&output.metadata).unwrap_or(json!({}));
        metadata["guard"] = json!("checked");
        After {
            output: Some(format!("{}\n[checked by hook-guard]", output.output)),
            metadata: Some(metadata),
            ..After::default()
        }
    }

    fn chat_message(_: &str, _: &str) -> Vec<String> {
        vec!["[hook-guard] mind the rules".to_string()]
    }

    fn chat_params(_: &str, _: &str, _: &str, mut params: SamplingParams) -> SamplingParams {
        let mut options: Value = serde_json::from_str(&params.options).unwrap_or(json!({}));
        options["guarded"] = json!(true);
        params.options = options.to_string();
        params.temperature = Some(0.25);
        params
    }

    fn permission_ask(request: &PermissionRequest) -> Action {
        match request.permission.as_str() {
            "bash" if request.patterns.iter().any(|p| p.contains("git push")) => Action::Deny,
            "webfetch" => Action::Allow,
            _ => Action::Ask,
        }
    }

    fn event(name: &str, payload: &str) {
        let Ok(payload) = serde_json::from_str::<Value>(payload) else {
            return;
        };
        // Test payloads name the file; real session events carry the project directory,
        // permission events the project of the ask, and go to a file named after the
        // event (a write the audit log records, allowed or not).
        let properties = &payload["properties"];
        let project = properties["info"]["directory"]
            .as_str()
            .or(properties["request"]["project"].as_str());
        let log = match payload["log"].as_str() {
            Some(log) => log.to_string(),
            None => match project {
                Some(dir) => format!("{dir}/hook-log/{name}.log"),
                None => return,
            },
        };
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
        {
            let _ = writeln!(f, "hook-guard {name}");
        }
    }

    fn system_transform(_: &str, mut system: Vec<String>) -> Vec<String> {
        system.push("hook-guard system rules".to_string());
        system
    }

    fn session_compacting(_: &str) -> CompactingOutcome {
        CompactingOutcome {
            context: vec!["hook-guard context".to_string()],
            prompt: None,
        }
    }

    fn command_before(_: &str, command: &str, arguments: &str) -> Option<String> {
        (command == "deploy").then(|| format!("{arguments} --dry-run"))
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nothing {}

struct Status;

impl Tool for Status {
    type Args = Nothing;
    const NAME: &'static str = "guard_status";
    const DESCRIPTION: &'static str = "Says whether the guard is on.";
    fn run(_: Nothing, _: &Context) -> Result<Output, ToolError> {
        Ok(Output::text("guard", "guarding"))
    }
}

ward_sdk::export_hooks!(Guard);
ward_sdk::export_tools!(Status);
