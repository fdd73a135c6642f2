//! The `bash` tool: runs a shell command on the host through the `exec` host import
//! (which checks the `bash` permission rules), returning stdout and stderr with the exit
//! code. Long output is returned whole (up to the host's per-call output cap): the host
//! keeps its tail for the model and saves the rest (SPEC §5.2).

use serde_json::json;
use ward_sdk::{Context, ExecOutput, Output, Tool, ToolError};
use ward_tool_common::path::resolve;
use ward_tool_common::permission::host_error;

/// Timeout when none is given, in milliseconds.
pub const DEFAULT_TIMEOUT_MS: u32 = 120_000;
/// Longest timeout allowed, in milliseconds.
pub const MAX_TIMEOUT_MS: u32 = 600_000;

/// Arguments of `bash`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// The command to execute (run by `sh -c`).
    pub command: String,
    /// Optional timeout in milliseconds (default 120000, at most 600000).
    #[schemars(range(min = 1, max = 600000))]
    pub timeout: Option<u32>,
    /// The working directory to run the command in (absolute, or relative to the project
    /// directory). Defaults to the project directory. Use this instead of `cd`.
    pub workdir: Option<String>,
    /// Clear, concise description of what this command does in 5-10 words, e.g.
    /// "Lists files in current directory" or "Installs package dependencies".
    pub description: Option<String>,
    /// Run this command outside the sandbox (full file and network access). The user is
    /// asked first unless the `unsandboxed` rules decide. Only when the sandbox blocked
    /// something the task needs, e.g. network access or writing outside the project.
    pub unsandboxed: Option<bool>,
}

/// The `bash` tool.
pub struct Bash;

impl Tool for Bash {
    type Args = Args;
    const NAME: &'static str = "bash";
    const DESCRIPTION: &'static str = "\
Executes a shell command on the host, with an optional timeout.

Usage:
- The command runs with `sh -c` in the project directory, or in workdir if given: use \
workdir rather than `cd dir && …`.
- Quote paths that contain spaces: `cd \"path with spaces/file.txt\"`.
- timeout is in milliseconds: default 120000 (2 minutes), at most 600000 (10 minutes).
- Give a short description (5-10 words) of what the command does; the user sees it.
- The result holds stdout followed by stderr, and the exit code when it is not 0. Output \
longer than 2000 lines or 50 KB keeps only its end (the full output is saved to a file \
whose path is given); inspect it with grep or read.
- Run independent commands as parallel tool calls; chain dependent ones with `&&`, or `;` \
when a failure should not stop the rest. Do not use newlines to separate commands.
- Prefer the dedicated tools for files: read (not cat/head/tail), edit (not sed/awk), \
write (not echo >), glob (not find/ls), grep (not grep/rg).
- Commands are checked against the permission rules; a refused command returns an error.
- Commands run in a sandbox: by default they may write only in the project and the temp \
directory, Ward's configuration and .git are read-only, secrets such as ~/.ssh are hidden, \
and there is no network. When the sandbox blocks something the task needs, retry with \
unsandboxed: true (the user is asked) and say why in the description.
- Avoid interactive commands (editors, pagers, prompts): there is no terminal.
- Git: never change the git config, never force-push or skip hooks, and commit only when \
the user asks.";

    fn run(args: Args, ctx: &Context) -> Result<Output, ToolError> {
        let request = prepare(&ctx.directory, &args)?;
        let outcome = ward_sdk::exec(
            &args.command,
            Some(&request.workdir),
            Some(request.timeout_ms),
        )
        .map_err(|e| host_error("the command could not run", e))?;
        Ok(format_result(&args, request.timeout_ms, &outcome))
    }
}

// The component exports only exist in the wasm build: natively the linker rejects the
// WIT export names, and unit tests call the plain functions.
#[cfg(target_arch = "wasm32")]
ward_sdk::export_tools!(Bash);

/// The checked request.
#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    /// Absolute working directory.
    pub workdir: String,
    /// Timeout in milliseconds.
    pub timeout_ms: u32,
}

/// Validates the arguments and resolves the working directory.
pub fn prepare(directory: &str, args: &Args) -> Result<Request, ToolError> {
    if args.command.trim().is_empty() {
        return Err(ToolError::InvalidArguments(
            "command must not be empty".into(),
        ));
    }
    if args.timeout == Some(0) {
        return Err(ToolError::InvalidArguments(
            "timeout must be a positive number of milliseconds".into(),
        ));
    }
    let timeout_ms = args
        .timeout
        .unwrap_or(DEFAULT_TIMEOUT_MS)
        .min(MAX_TIMEOUT_MS);
    let workdir = resolve(directory, args.workdir.as_deref().unwrap_or(""));
    Ok(Request {
        workdir: workdir.to_string_lossy().into_owned(),
        timeout_ms,
    })
}

/// Turns the process's outcome into the tool's output.
pub fn format_result(args: &Args, timeout_ms: u32, outcome: &ExecOutput) -> Output {
    let mut text = outcome.stdout.clone();
    if !outcome.stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&outcome.stderr);
    }
    let text = text.trim_end_matches('\n');
    let mut output = String::new();
    if outcome.truncated {
        output.push_str("(The beginning of the output was dropped by the host's output limit.)\n");
    }
    if text.is_empty() {
        output.push_str("(no output)");
    } else {
        output.push_str(text);
    }
    if outcome.timed_out {
        output.push_str(&format!(
            "\n\n<bash_metadata>\nbash tool terminated command after exceeding timeout {timeout_ms} ms\n</bash_metadata>"
        ));
    }
    match outcome.exit_code {
        Some(0) => {}
        Some(code) => output.push_str(&format!("\n\nExit code: {code}")),
        None if !outcome.timed_out => {
            output.push_str("\n\n(The process ended without an exit code: killed by a signal.)")
        }
        None => {}
    }
    let title = args
        .description
        .as_deref()
        .filter(|d| !d.trim().is_empty())
        .unwrap_or(&args.command);
    Output::text(title, output).with_metadata(json!({
        "exit": outcome.exit_code,
        "description": args.description,
        "timedOut": outcome.timed_out,
        "unsandboxed": args.unsandboxed.unwrap_or(false),
        // Not `truncated`: that key tells the host the tool bounded its own output.
        "outputCapped": outcome.truncated,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(command: &str, timeout: Option<u32>, workdir: Option<&str>) -> Args {
        Args {
            command: command.into(),
            timeout,
            workdir: workdir.map(str::to_string),
            description: Some("Runs a test command".into()),
            unsandboxed: None,
        }
    }

    fn outcome(stdout: &str, stderr: &str, exit: Option<i32>, timed_out: bool) -> ExecOutput {
        ExecOutput {
            exit_code: exit,
            stdout: stdout.into(),
            stderr: stderr.into(),
            timed_out,
            truncated: false,
        }
    }

    #[test]
    fn prepare_resolves_workdir_and_clamps_timeout() {
        let r = prepare("/p", &args("ls", None, Some("sub/../x")));
        assert_eq!(
            r.ok(),
            Some(Request {
                workdir: "/p/x".into(),
                timeout_ms: 120_000
            })
        );
        let r = prepare("/p", &args("ls", Some(9_999_999), None));
        assert_eq!(
            r.map(|r| (r.workdir, r.timeout_ms)).ok(),
            Some(("/p".into(), 600_000))
        );
        assert!(prepare("/p", &args("  ", None, None)).is_err());
        assert!(prepare("/p", &args("ls", Some(0), None)).is_err());
    }

    #[test]
    fn combines_streams_and_reports_exit_code() {
        let out = format_result(
            &args("x", None, None),
            1000,
            &outcome("out\n", "err\n", Some(2), false),
        );
        assert_eq!(out.output, "out\nerr\n\nExit code: 2");
        assert_eq!(out.title, "Runs a test command");
        assert_eq!(out.metadata["exit"], 2);
        let ok = format_result(
            &args("x", None, None),
            1000,
            &outcome("fine\n", "", Some(0), false),
        );
        assert_eq!(ok.output, "fine");
        let empty = format_result(
            &args("x", None, None),
            1000,
            &outcome("", "", Some(0), false),
        );
        assert_eq!(empty.output, "(no output)");
    }

    #[test]
    fn timeout_is_noted() {
        let out = format_result(
            &args("sleep 9", None, None),
            5000,
            &outcome("partial", "", None, true),
        );
        assert!(out.output.starts_with("partial\n\n<bash_metadata>"));
        assert!(out.output.contains("exceeding timeout 5000 ms"));
        assert_eq!(out.metadata["timedOut"], true);
    }

    #[test]
    fn long_output_is_returned_whole_for_the_host_to_bound() {
        let long: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
        let out = format_result(
            &args("x", None, None),
            1000,
            &outcome(&long, "", Some(1), false),
        );
        assert!(out.output.starts_with("line 1\nline 2\n"));
        assert!(out.output.ends_with("line 3000\n\nExit code: 1"));
        assert_eq!(out.metadata["outputCapped"], false);
        assert!(
            out.metadata.get("truncated").is_none(),
            "the host bounds it"
        );
    }
}
