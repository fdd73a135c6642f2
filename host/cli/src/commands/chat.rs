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
//!
//! The model's questions (the `question` tool) are answered the same way, one line per
//! question. Permission asks and questions wait in ONE queue and only its head is on
//! screen: a line answers what the user sees, so an answer typed for a question can
//! never land on a permission ask that arrived meanwhile (and a question's answer
//! goes to the model as text only).

use std::collections::VecDeque;
use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinSet;
use ward_engine::{AskRequest, Engine, Event, QuestionRequest, Reply};

use ward_term::{eout, eoutln, outln};

use super::run::{LoopArgs, print_warnings};
use crate::printer::{Format, Printer};
use crate::prompt::{parse_answer, question};

/// Interactive mode arguments (the top-level flags of `ward`).
#[derive(Args, Clone)]
pub struct ChatArgs {
    #[command(flatten)]
    pub common: LoopArgs,
    /// Keep to the line mode on a terminal too (the full-screen UI opens when both
    /// standard input and output are terminals).
    #[arg(long)]
    pub no_tui: bool,
}

/// Runs the interactive mode until `/exit` or end of input.
pub async fn run(args: ChatArgs) -> Result<ExitCode> {
    // A person is here: a project nobody decided about is asked about once, first.
    super::trust::ask_on_open(&std::env::current_dir()?)?;
    if !args.no_tui
        && std::io::stdin().is_terminal()
        && ward_term::is_terminal(ward_term::Stream::Stdout)
    {
        return super::tui::run(args).await;
    }
    let engine = Engine::open(args.common.engine_options()?).await?;
    print_warnings(&engine);
    let given = args.common.session_id()?;
    let session = match &given {
        Some(id) => engine.session(id)?,
        None => engine.create_session(args.common.agent.as_deref())?,
    };
    let mut asks = engine.subscribe();
    let interactive = std::io::stdin().is_terminal();
    // Lines answer the model's questions while input lasts; dropping this when it
    // ends dismisses what is still asked.
    let mut questions = Some(engine.question_answerer());
    let printer = Printer::start(engine.subscribe(), &session.id, Format::Text);
    eoutln!(
        "session {} — /exit to quit, /undo and /redo the files, Ctrl-C to stop the agent",
        session.id
    );
    let mut lines = read_lines();
    let mut open_asks: VecDeque<Open> = VecDeque::new();
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
                if let Some(undo) = super::undo::Undo::parse(&text) {
                    prompts.spawn(async move { undo.run(&engine, &session.id).await });
                    continue;
                }
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
                    questions = None;
                    reject_all(&engine, &mut open_asks);
                    continue;
                };
                if let Some(head) = open_asks.front_mut() {
                    if answer(&engine, head, &line) {
                        open_asks.pop_front();
                    }
                    if let Some(next) = open_asks.front() {
                        show(next);
                    }
                    continue;
                }
                let text = line.trim();
                if text == "/exit" {
                    input_open = false;
                    questions = None;
                    reject_all(&engine, &mut open_asks);
                    continue;
                }
                if text.is_empty() {
                    show_prompt(interactive && prompts.is_empty());
                    continue;
                }
                if interactive && !prompts.is_empty() && super::undo::Undo::parse(text).is_none() {
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
                    if args.common.yes && !Engine::needs_a_person(&request) {
                        let _ = engine.reply(&id, Reply::Once);
                    } else if !input_open {
                        // Nobody is left to answer.
                        eoutln!("\n{}(no answer: rejected)", question(&request));
                        let _ = engine.reply(&id, Reply::Reject { feedback: None });
                    } else {
                        let open = Open::Ask(id, request);
                        if open_asks.is_empty() {
                            show(&open);
                        }
                        open_asks.push_back(open);
                    }
                }
                Ok(Event::QuestionAsked { request }) if questions.is_some() => {
                    let open = Open::Question { request, answers: Vec::new() };
                    if open_asks.is_empty() {
                        show(&open);
                    }
                    open_asks.push_back(open);
                }
                Ok(Event::PermissionReplied { id, .. }
                    | Event::QuestionReplied { id, .. }
                    | Event::QuestionRejected { id, .. }) => {
                    open_asks.retain(|open| open.id() != id)
                }
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
    drop(questions);
    while prompts.join_next().await.is_some() {}
    printer.finish().await;
    engine.close(super::run::HOOK_GRACE).await;
    // A session this run made and nothing was sent in is not kept.
    if given.is_some() || !engine.discard_if_empty(&session.id)? {
        eoutln!("session {}", session.id);
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// What waits for the user's next line.
enum Open {
    /// A permission ask.
    Ask(String, AskRequest),
    /// The model's questions, with the answers typed so far (one per question).
    Question {
        request: QuestionRequest,
        answers: Vec<Vec<String>>,
    },
}

impl Open {
    fn id(&self) -> &str {
        match self {
            Open::Ask(id, _) => id,
            Open::Question { request, .. } => &request.id,
        }
    }
}

/// Answers `open` with `line`; whether it is settled (a question request with more
/// questions to go is not).
fn answer(engine: &Engine, open: &mut Open, line: &str) -> bool {
    match open {
        Open::Ask(id, _) => {
            let _ = engine.reply(id, parse_answer(line));
            true
        }
        Open::Question { request, answers } => {
            // Text for the model, whatever it says: never a permission reply.
            let parsed = request
                .questions
                .get(answers.len())
                .and_then(|q| q.answer_typed(line));
            let Some(parsed) = parsed else {
                let _ = engine.reject_question(&request.id);
                return true;
            };
            answers.push(parsed);
            if answers.len() < request.questions.len() {
                return false;
            }
            let _ = engine.answer_question(&request.id, std::mem::take(answers));
            true
        }
    }
}

/// Puts `open` on screen.
fn show(open: &Open) {
    match open {
        Open::Ask(_, request) => show_question(request),
        Open::Question { request, answers } => {
            eout!("{}", crate::question::menu(request, answers.len()))
        }
    }
}

/// Rejects the asks nobody will answer now, so their loops can end (questions are
/// dismissed when the answerer is dropped).
fn reject_all(engine: &Engine, open_asks: &mut VecDeque<Open>) {
    for open in open_asks.drain(..) {
        match open {
            Open::Ask(id, _) => {
                let _ = engine.reply(&id, Reply::Reject { feedback: None });
            }
            Open::Question { request, .. } => {
                let _ = engine.reject_question(&request.id);
            }
        }
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
