//! What a typed prompt becomes. `@file` mentions attach the file, `@SERVER:URI` an MCP
//! server's resource, and `@agent` mentions of a subagent ask for it (SPEC §7). `/name arguments` runs a command: the
//! `command.before` hooks may change the arguments, then its template is expanded — arguments
//! substituted, `` !`cmd` `` replaced by the command's output (run through the tool
//! that declares it runs commands, `bash`, so the permission rules and hooks apply as
//! for the model's own calls) — and each `@file` it references read through the tool
//! that declares it reads files (`read`) and attached to the message. A subtask command (`subtask: true`, or one whose agent is a subagent) runs
//! in a child session through the `task` tool, as OpenCode does; the session then gets
//! the child's report and carries on.
//!
//! What the user typed is stored before any of that (the expansion runs tools, which
//! take time): a command's message holds `/name args` until the template is expanded,
//! then the expansion — what the model reads, as OpenCode stores it. A subtask keeps
//! the typed line; the child's report is attached to it.

use serde_json::json;
use ward_command::{BoxFuture, CommandRegistry};
use ward_session::{RecordedPrompt, Runner, ToolCallError};
use ward_store::Session;

/// A prompt after command expansion.
pub struct Expansion {
    /// What is sent as the user's text.
    pub text: String,
    /// The referenced files' contents, attached as synthetic parts.
    pub context: Vec<String>,
    /// Set when the command runs as a subtask.
    pub subtask: Option<Subtask>,
}

/// A command to run in a child session.
pub struct Subtask {
    /// The subagent that runs it.
    pub agent: String,
    /// The task's short description.
    pub description: String,
}

/// The subagent a subtask runs in when its command names none that exists.
const FALLBACK_SUBAGENT: &str = "general";

/// The commands a session can run, and the agent names an `@` may mean instead of
/// a file.
pub struct Commands {
    /// The commands.
    pub registry: CommandRegistry,
    /// Agent names (`@explore` is not a file).
    pub agents: Vec<String>,
    /// The subagents an `@name` in a prompt may ask for.
    pub subagents: Vec<String>,
    /// The MCP servers, whose prompts are commands too (`/SERVER:PROMPT args`).
    pub mcp: Option<std::sync::Arc<ward_mcp_client::McpClients>>,
}

/// Expands `input` if it invokes a known command; `None` leaves it as typed.
pub async fn expand(
    runner: &Runner,
    commands: &Commands,
    session: &Session,
    input: &str,
) -> Option<Expansion> {
    let Some((command, invocation)) = commands.registry.resolve(input) else {
        return mcp_prompt(commands, input).await;
    };
    let name = command.name.clone();
    let subagent = command
        .agent
        .as_ref()
        .filter(|a| commands.subagents.contains(a));
    let subtask = (command.subtask || subagent.is_some()).then(|| Subtask {
        agent: subagent
            .map_or(FALLBACK_SUBAGENT, String::as_str)
            .to_string(),
        description: format!("/{name}"),
    });
    let shell = |cmd: String| -> BoxFuture<'_, Result<String, ToolCallError>> {
        Box::pin(async move { runner.run_command(session, &cmd).await.map(|o| o.output) })
    };
    let agents: Vec<&str> = commands.agents.iter().map(String::as_str).collect();
    let arguments = runner
        .command_arguments(session, &name, invocation.arguments)
        .await;
    let expanded = ward_command::expand(command, &arguments, &shell, &agents).await;
    let mut context = Vec::new();
    for file in expanded.files {
        context.push(match runner.read_file(session, &file).await {
            Ok((out, how)) => format!("Called {how}:\n{}", out.output),
            Err(e) => format!("@{file} could not be read: {e}"),
        });
    }
    Some(Expansion {
        text: expanded.text,
        context,
        subtask,
    })
}

/// `input` expanded by an MCP server's prompt, when it names one; if the server could
/// not give it, the typed line goes to the model with the reason.
async fn mcp_prompt(commands: &Commands, input: &str) -> Option<Expansion> {
    let expanded = commands.mcp.as_ref()?.expand_prompt(input).await?;
    Some(match expanded {
        Ok(text) => Expansion {
            text,
            context: Vec::new(),
            subtask: None,
        },
        Err(e) => Expansion {
            text: input.to_string(),
            context: vec![format!("The MCP prompt could not be fetched: {e}")],
            subtask: None,
        },
    })
}

/// Stores `input` in `session`, then runs it ([`prompt_recorded`]).
pub async fn prompt(
    runner: &Runner,
    commands: &Commands,
    session: &Session,
    input: &str,
) -> Result<ward_store::AssistantMessage, ward_session::LoopError> {
    let recorded = runner.record(session, input)?;
    prompt_recorded(runner, commands, session, recorded).await
}

/// Runs a prompt already stored in `session`: expanded first when it is a command;
/// otherwise its mentions are resolved: `@path` of a file attaches it, `@agent` of a
/// subagent asks for that subagent.
pub async fn prompt_recorded(
    runner: &Runner,
    commands: &Commands,
    session: &Session,
    mut recorded: RecordedPrompt,
) -> Result<ward_store::AssistantMessage, ward_session::LoopError> {
    let input = recorded.text().to_string();
    match expand(runner, commands, session, &input).await {
        Some(Expansion {
            text,
            context,
            subtask: Some(task),
        }) => run_subtask(runner, session, recorded, task, text, context).await,
        Some(e) => {
            recorded.replace_text(runner.store().as_ref(), &e.text)?;
            runner.run_recorded(session, recorded, e.context).await
        }
        None => {
            let (mut context, files) = mentioned(runner, commands, session, &input).await;
            let message = &recorded.message().id;
            let notes = runner.attach_to_prompt(&session.id, message, &files)?;
            if !notes.is_empty() {
                context.push(notes);
            }
            runner.run_recorded(session, recorded, context).await
        }
    }
}

/// Runs an expanded subtask command in a child session through the `task` tool (so
/// the session's rules for `task` apply), then runs the session on what the user
/// typed with the child's report.
async fn run_subtask(
    runner: &Runner,
    session: &Session,
    recorded: RecordedPrompt,
    task: Subtask,
    text: String,
    context: Vec<String>,
) -> Result<ward_store::AssistantMessage, ward_session::LoopError> {
    let mut prompt = text;
    for attached in &context {
        prompt.push_str("\n\n");
        prompt.push_str(attached);
    }
    let args = json!({
        "description": task.description,
        "prompt": prompt,
        "subagent_type": task.agent,
    });
    let report = match runner
        .run_tool(session, ward_session::task::TASK, &args)
        .await
    {
        Ok(out) => out.output,
        Err(e) => format!("The subtask could not run: {e}"),
    };
    let note = format!(
        "The `{}` subagent ran {} as a subtask:\n{report}\n\n\
         Summarize the task tool output above and continue with your task.",
        task.agent, task.description
    );
    runner.run_recorded(session, recorded, vec![note]).await
}

/// What the `@` mentions of a typed prompt add to it: text, and the files `read`
/// returned (an `@image.png` is attached as the image itself).
async fn mentioned(
    runner: &Runner,
    commands: &Commands,
    session: &Session,
    input: &str,
) -> (Vec<String>, Vec<ward_provider::Attachment>) {
    let mut context = Vec::new();
    let mut files = Vec::new();
    for mention in ward_command::mentions(input) {
        if commands.subagents.contains(&mention) {
            context.push(format!(
                "Use the above message and context to write a prompt for the `{mention}` \
                 subagent and call the task tool with subagent_type `{mention}`."
            ));
        } else if let Some(read) = match &commands.mcp {
            Some(mcp) => mcp.read_mention(&mention).await,
            None => None,
        } {
            context.push(match read {
                Ok(text) => format!("Attached the MCP resource @{mention}:\n{text}"),
                Err(e) => format!("@{mention} could not be read: {e}"),
            });
        } else if runner.project().join(&mention).is_file()
            && let Ok((out, how)) = runner.read_file(session, &mention).await
        {
            context.push(format!("Called {how}:\n{}", out.output));
            files.extend(out.attachments);
        }
    }
    (context, files)
}
