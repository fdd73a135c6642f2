//! `ward` with no command: a minimal interactive mode over the engine that keeps one
//! session across prompts. Each line is a prompt; `/exit` (or end of input) quits; Ctrl-C aborts the
//! running loop, or quits when nothing runs.
//!
//! Standard input is read by one thread and routed here, because two readers would
//! race for lines: while a permission question is open the next line answers it
//! (`y` / `a` / `n feedback`), otherwise it is a prompt. On a terminal a prompt typed
//! while the agent works joins the running loop (the model sees it as an interjection
//! on its next step); piped input is taken one prompt at a time, so a script of prompts
//! runs as a conversation.

use std::collections::VecDeque;
use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinSet;
use ward_engine::{AskRequest, Engine, Event, Reply};
use ward_plugin::sandbox::needs_a_person;
use ward_term::{eout, eoutln, outln};

use super::run::{LoopArgs, print_warnings};
use crate::printer::{Format, Printer};
use crate::prompt::{parse_answer, question};

/// Interactive mode arguments (the top-level flags of `ward`).
#[derive(Args, Clone)]
pub struct ChatArgs {
    #[command(flatten)]
    pub common: LoopArgs,
}

/// Runs the interactive mode until `/exit` or end of input.
pub async fn run(args: ChatArgs) -> Result<ExitCode> {
    let engine = Engine::open(args.common.engine_options()?).await?;
    print_warnings(&engine);
    let session = match &args.common.session {
        Some(id) => engine.session(id)?,
        None => engine.create_session(args.common.agent.as_deref())?,
    };
    let mut asks = engine.subscribe();
    let interactive = std::io::stdin().is_terminal();
    let printer = Printer::start(engine.subscribe(), &session.id, Format::Text);
    eoutln!(
        "session {} — /exit to quit, Ctrl-C to stop the agent",
        session.id
    );
    let mut lines = read_lines();
    let mut open_asks: VecDeque<(String, AskRequest)> = VecDeque::new();
    let mut waiting: VecDeque<String> = VecDeque::new();
    let mut prompts: JoinSet<bool> = JoinSet::new();
    let mut input_open = true;
    let mut failed = false;
    show_prompt(interactive);
    loop {
        // Piped prompts go one at a time; a finished one lets the next through.
        if prompts.is_empty() {
            if let Some(text) = waiting.pop_front() {
                let (engine, session) = (engine.clone(), session.clone());
                let request = args.common.request(&text);
                prompts.spawn(async move {
                    let outcome = engine.prompt(&session, request).await;
                    if let Err(e) = &outcome {
                        eoutln!("\nerror: {e}");
                    }
                    outcome.is_ok()
                });
            } else if !input_open {
                break;
            }
        }
        // Piped input is read only when a line can be used: at the next prompt or to
        // answer an open question (otherwise an answer would be taken for a prompt).
        let want_line = input_open && (interactive || prompts.is_empty() || !open_asks.is_empty());
        tokio::select! {
            line = lines.recv(), if want_line => {
                let Some(line) = line else {
                    input_open = false;
                    reject_all(&engine, &mut open_asks);
                    continue;
                };
                if let Some((id, _)) = open_asks.pop_front() {
                    let _ = engine.reply(&id, parse_answer(&line));
                    if let Some((_, next)) = open_asks.front() {
                        show_question(next);
                    }
                    continue;
                }
                let text = line.trim();
                if text == "/exit" {
                    input_open = false;
                    reject_all(&engine, &mut open_asks);
                    continue;
                }
                if text.is_empty() {
                    show_prompt(interactive && prompts.is_empty());
                    continue;
                }
                if interactive && !prompts.is_empty() {
                    // The agent is working: this joins its loop.
                    let (engine, session) = (engine.clone(), session.clone());
                    let request = args.common.request(text);
                    // Its outcome is the running loop's, reported by that loop's task.
                    prompts.spawn(async move {
                        let _ = engine.prompt(&session, request).await;
                        true
                    });
                } else {
                    waiting.push_back(text.to_string());
                }
            }
            event = asks.recv() => match event {
                Ok(Event::PermissionAsked { id, request }) => {
                    // `--yes` never approves a change to Ward's configuration or a
                    // command leaving the sandbox.
                    if args.common.yes && !needs_a_person(&request) {
                        let _ = engine.reply(&id, Reply::Once);
                    } else if !input_open {
                        // Nobody is left to answer.
                        eoutln!("\n{}(no answer: rejected)", question(&request));
                        let _ = engine.reply(&id, Reply::Reject { feedback: None });
                    } else {
                        if open_asks.is_empty() {
                            show_question(&request);
                        }
                        open_asks.push_back((id, request));
                    }
                }
                Ok(Event::PermissionReplied { id, .. }) => open_asks.retain(|(open, _)| *open != id),
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            },
            Some(done) = prompts.join_next() => {
                failed |= !matches!(done, Ok(true));
                if prompts.is_empty() {
                    outln!();
                    show_prompt(interactive);
                }
            }
            _ = tokio::signal::ctrl_c() => {
                if !engine.abort(&session.id) {
                    break;
                }
            }
        }
    }
    reject_all(&engine, &mut open_asks);
    while prompts.join_next().await.is_some() {}
    printer.finish().await;
    engine.close(super::run::HOOK_GRACE).await;
    eoutln!("session {}", session.id);
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Rejects the questions nobody will answer now, so their loops can end.
fn reject_all(engine: &Engine, open_asks: &mut VecDeque<(String, AskRequest)>) {
    for (id, _) in open_asks.drain(..) {
        let _ = engine.reply(&id, Reply::Reject { feedback: None });
    }
}

/// Standard input, line by line, from a thread of its own (the read blocks).
fn read_lines() -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn show_prompt(interactive: bool) {
    if interactive {
        eout!("> ");
    }
}

fn show_question(request: &AskRequest) {
    eout!("\n{}", question(request));
}
