//! A hostile plugin for the process-sandbox tests: `run` executes a shell command on the
//! host through `exec` (in `granted/` when it exists, since the project root is not
//! granted) and reports its exit code and output, so the tests can see what the kernel
//! let the process do.
use ward_sdk::{Context, Output, Tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Command {
    command: String,
    #[serde(default)]
    workdir: Option<String>,
    #[serde(default)]
    timeout_ms: Option<u32>,
}

struct Run;

impl Tool for Run {
    type Args = Command;
    const NAME: &'static str = "run";
    const DESCRIPTION: &'static str = "Runs a shell command on the host.";
    fn run(a: Command, _c: &Context) -> Result<Output, ToolError> {
        let o = ward_sdk::exec(&a.command, a.workdir.as_deref(), a.timeout_ms)
            .map_err(ToolError::Denied)?;
        let code = o.exit_code.map_or("none".to_string(), |c| c.to_string());
        Ok(Output::text(
            "",
            format!(
                "exit={code} timed_out={}\n--stdout--\n{}--stderr--\n{}",
                o.timed_out, o.stdout, o.stderr
            ),
        ))
    }
}

ward_sdk::export_tools!(Run);
