//! A `ward:plugin@0.2.0` tool plugin: `host_errors` calls `ask`, `exec` and `http-fetch`
//! and answers, one line each, with the case of the `host-error` it got (`denied`,
//! `invalid`, `failed`, `timeout`) or `ok`. It branches on the case only: the messages
//! never reach the output.

use ward_sdk::{Context, HostError, Output, Tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    /// The command `exec` runs.
    command: String,
    /// The URL `http-fetch` gets.
    url: String,
}

struct HostErrors;

/// `ok`, or the case's name.
fn case<T>(result: Result<T, HostError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(HostError::Denied(_)) => "denied",
        Err(HostError::Invalid(_)) => "invalid",
        Err(HostError::Failed(_)) => "failed",
        Err(HostError::Timeout(_)) => "timeout",
    }
}

impl Tool for HostErrors {
    type Args = Args;
    const NAME: &'static str = "host_errors";
    const DESCRIPTION: &'static str = "Reports the host-error case of ask, exec and http-fetch.";
    fn run(args: Args, _: &Context) -> Result<Output, ToolError> {
        // A question about a permission that is not the plugin's own: always refused.
        let ask = case(ward_sdk::ask(
            "bash",
            &["*".to_string()],
            &ward_sdk::serde_json::json!({}),
        ));
        let exec = case(ward_sdk::exec(&args.command, None, Some(5000)));
        let fetch = case(ward_sdk::http_fetch(&args.url, &[], Some(5000)));
        Ok(Output::text(
            "host errors",
            format!("ask: {ask}\nexec: {exec}\nhttp-fetch: {fetch}"),
        ))
    }
}

ward_sdk::export_tools!(HostErrors);
