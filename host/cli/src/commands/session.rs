//! `ward session list` and `ward session show ID`: what is stored; `ward session
//! compact ID`: summarise a session's history now; `fork`, `export`, `import`,
//! `delete` and `rename` (see `ward_engine::manage`) — these open the store only,
//! not the plugins.

use std::process::ExitCode;

use std::io::Read;

use anyhow::Result;
use clap::Subcommand;
use ward_engine::manage;
use ward_store::{MessageInfo, PartKind, Store, ToolState};
use ward_term::{eoutln, inert_line, outln};

/// `ward session …`
#[derive(Subcommand)]
pub enum SessionCommand {
    /// List this project's sessions, newest first.
    List {
        /// Every project's sessions in the data directory.
        #[arg(long)]
        all: bool,
    },
    /// Show a session's messages, parts, tokens and cost.
    Show {
        /// The session id.
        id: String,
    },
    /// Compact a session now: the model summarises its history, and later prompts
    /// start from the summary and the last turns.
    Compact {
        /// The session id.
        id: String,
        /// `provider/model` to summarise with; default: `model` from ward.toml.
        #[arg(long)]
        model: Option<String>,
    },
    /// Copy a session (its messages before a message) as a new session with new ids,
    /// titled "TITLE (fork #n)"; prints the new session's id.
    Fork {
        /// The session id.
        id: String,
        /// The fork point: the messages before it are copied (default: all of them).
        #[arg(long)]
        message: Option<String>,
    },
    /// Print a session as JSON — messages, every part, todos, compactions, and its
    /// subagents' sessions — for `ward session import`.
    Export {
        /// The session id.
        id: String,
    },
    /// Store the sessions of an export file (checked first; all or nothing). Ids are
    /// kept: a session already stored here is refused.
    Import {
        /// The file `ward session export` wrote (`-` for standard input).
        file: std::path::PathBuf,
    },
    /// Delete a session with its messages and its subagents' sessions.
    Delete {
        /// The session id.
        id: String,
    },
    /// Change a session's title.
    Rename {
        /// The session id.
        id: String,
        /// The new title.
        title: String,
    },
    /// Undo: put the project's files back as they were before a message (default:
    /// the last prompt) and hide it and what followed from the model.
    Revert {
        /// The session id.
        id: String,
        /// The first message to undo (a prompt or an answer); default: the last prompt.
        #[arg(long)]
        message: Option<String>,
    },
    /// Redo: put back the files and messages the last revert took away.
    Unrevert {
        /// The session id.
        id: String,
    },
}

/// Runs the subcommand.
pub async fn run(command: SessionCommand) -> Result<ExitCode> {
    match command {
        SessionCommand::Compact { id, model } => return compact(id, model).await,
        SessionCommand::Revert { id, message } => {
            return super::revert::revert(&id, message.as_deref()).await;
        }
        SessionCommand::Unrevert { id } => return super::revert::unrevert(&id).await,
        _ => {}
    }
    let store = super::run::open_store(false)?;
    match command {
        SessionCommand::Compact { .. } => {}
        SessionCommand::Fork { id, message } => {
            let forked = manage::fork(&store, &id, message.as_deref())?;
            outln!("{}", forked.id);
        }
        SessionCommand::Export { id } => {
            let export = manage::export(&store, &id)?;
            // Stored text is untrusted: C1 and bidi controls are written as `\uXXXX`
            // escapes, which every JSON reader decodes to the same string.
            outln!("{}", ward_term::json_line(&export)?);
        }
        SessionCommand::Import { file } => {
            let session = if file.as_os_str() == "-" {
                let mut bytes = Vec::new();
                std::io::stdin()
                    .lock()
                    .take(manage::MAX_IMPORT_BYTES + 1)
                    .read_to_end(&mut bytes)?;
                manage::import_bytes(&store, &bytes)?
            } else {
                manage::import_file(&store, &file)?
            };
            outln!("{}", session.id);
        }
        SessionCommand::Delete { id } => {
            let blobs = ward_store::Blobs::new(ward_engine::paths::data_dir()?.join("blobs"));
            manage::delete(&store, &blobs, &id)?;
            eoutln!("deleted session {}", inert_line(&id));
        }
        SessionCommand::Rename { id, title } => {
            let session = manage::rename(&store, &id, &title)?;
            eoutln!("session {}: {}", session.id, inert_line(&session.title));
        }
        SessionCommand::Revert { .. } | SessionCommand::Unrevert { .. } => {}
        SessionCommand::List { all } => {
            // This project's: those working in its root.
            let root = match all {
                true => None,
                false => Some(super::load_config_here()?.project_root),
            };
            let mine = |s: &ward_store::Session| {
                root.as_deref()
                    .is_none_or(|root| std::path::Path::new(&s.directory) == root)
            };
            for s in store.list_sessions()?.into_iter().filter(mine) {
                // Titles are written by a model: one line each, inert.
                outln!(
                    "{}  {}  {}  tokens in {} out {}  ${:.4}",
                    inert_line(&s.id),
                    inert_line(&s.agent),
                    if s.title.is_empty() {
                        "(untitled)".into()
                    } else {
                        inert_line(&s.title)
                    },
                    s.tokens.input,
                    s.tokens.output,
                    s.cost
                );
            }
        }
        SessionCommand::Show { id } => {
            let s = store.get_session(&id)?;
            outln!(
                "session {} ({}) in {}",
                inert_line(&s.id),
                inert_line(&s.agent),
                inert_line(&s.directory)
            );
            outln!(
                "tokens: input {} output {} reasoning {} cache read {} write {}; cost ${:.4}",
                s.tokens.input,
                s.tokens.output,
                s.tokens.reasoning,
                s.tokens.cache.read,
                s.tokens.cache.write,
                s.cost
            );
            for m in store.messages(&id, None)? {
                match &m.info {
                    MessageInfo::User(u) => outln!("\n[user {}]", u.id),
                    MessageInfo::Assistant(a) => {
                        let finish = a
                            .finish
                            .map(|f| format!("{f:?}").to_lowercase())
                            .unwrap_or_else(|| "open".into());
                        let error = a
                            .error
                            .as_ref()
                            .map(|e| format!(" error: {}", inert_line(&e.message)))
                            .unwrap_or_default();
                        // What the request held: the context the model saw.
                        let t = &a.tokens;
                        let context = t.input + t.cache.read + t.cache.write;
                        let kind = if a.summary { "summary" } else { "assistant" };
                        outln!(
                            "\n[{kind} {} finish {finish}{error}; context {context} tokens, output {}]",
                            a.id,
                            t.output
                        );
                    }
                }
                for p in &m.parts {
                    match &p.kind {
                        // Message text is multi-line (`outln!` renders it inert); the
                        // rest are one line each, so none can forge a line of ours.
                        PartKind::Text(t) => outln!("  text: {}", t.text),
                        PartKind::Reasoning { text, .. } => outln!("  reasoning: {text}"),
                        PartKind::Tool(t) => {
                            let tool = inert_line(&t.tool);
                            match &t.state {
                                ToolState::Completed { title, .. } => {
                                    outln!("  tool {tool} completed: {}", inert_line(title))
                                }
                                ToolState::Error { error, .. } => {
                                    outln!("  tool {tool} error: {}", inert_line(error))
                                }
                                ToolState::Pending { .. } => outln!("  tool {tool} pending"),
                                ToolState::Running { .. } => outln!("  tool {tool} running"),
                            }
                        }
                        PartKind::StepFinish {
                            reason,
                            tokens,
                            cost,
                        } => outln!(
                            "  step finish {reason:?}: in {} out {} ${cost:.4}",
                            tokens.input,
                            tokens.output
                        ),
                        PartKind::Patch { hash, files } => outln!(
                            "  patch {}: {}",
                            inert_line(hash),
                            inert_line(&files.join(", "))
                        ),
                        PartKind::Retry { attempt, error, .. } => {
                            outln!("  retry {attempt}: {}", inert_line(&error.message))
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn compact(id: String, model: Option<String>) -> Result<ExitCode> {
    let options = crate::builtins::engine_options(std::env::current_dir()?);
    let engine = ward_engine::Engine::open(options).await?;
    super::run::print_warnings(&engine);
    let session = engine.session(&id)?;
    let summary = engine.compact(&session, model.as_deref()).await?;
    let messages = engine.store().messages(&session.id, Some(&summary.id))?;
    let text: String = messages
        .iter()
        .filter(|m| m.info.id() == summary.id)
        .flat_map(|m| &m.parts)
        .filter_map(|p| match &p.kind {
            PartKind::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    outln!("{text}");
    eoutln!(
        "compacted session {}: summary {} ({} tokens in, {} out)",
        session.id,
        summary.id,
        summary.tokens.input,
        summary.tokens.output
    );
    Ok(ExitCode::SUCCESS)
}
