//! Answering permission asks on the terminal: `y` once, `a` always, `n` reject (with
//! optional feedback after the `n`, e.g. `n use the other file`). With `--yes` every ask
//! is answered "once" without a prompt. Answers are read from standard input line by
//! line, so they can be piped in; at end of input every ask is rejected.

use std::io::BufRead;

use tokio::sync::broadcast;
use ward_engine::Engine;
use ward_protocol::{AskRequest, Event, Reply};
use ward_term::{eout, eoutln, inert_line};

/// Answers `engine`'s permission asks and the model's questions until its bus closes.
pub fn spawn_answerer(engine: Engine, yes: bool) -> tokio::task::JoinHandle<()> {
    let mut events = engine.subscribe();
    tokio::spawn(async move {
        loop {
            let event = match events.recv().await {
                Ok(e) => e,
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            };
            let (id, request) = match event {
                Event::PermissionAsked { id, request } => (id, request),
                // Published only while the run holds a question answerer (a terminal).
                Event::QuestionAsked { request } => {
                    let id = request.id.clone();
                    let given = tokio::task::spawn_blocking(move || ask_questions(&request))
                        .await
                        .unwrap_or(None);
                    let _ = match given {
                        Some(answers) => engine.answer_question(&id, answers),
                        None => engine.reject_question(&id),
                    };
                    continue;
                }
                _ => continue,
            };
            // A change to Ward's configuration, or a command leaving the sandbox, needs
            // a person's answer: `--yes` does not give it, the terminal is asked (and no
            // answer rejects it).
            let reply = if yes && !Engine::needs_a_person(&request) {
                Reply::Once
            } else {
                let question = question(&request);
                tokio::task::spawn_blocking(move || ask_line(&question))
                    .await
                    .unwrap_or(Reply::Reject { feedback: None })
            };
            // An ask already settled (by a cascade) is no error worth reporting.
            let _ = engine.reply(&id, reply);
        }
    })
}

/// The question put to the user for one ask. The permission and the patterns come
/// from tools and the model: each is shown on one line, inert, so none can clear the
/// screen, hide a pattern or print a question of its own.
pub fn question(request: &AskRequest) -> String {
    let patterns: Vec<_> = request.patterns.iter().map(|p| inert_line(p)).collect();
    // Who asks: a plugin's own question says so, so its words cannot pass for the host's.
    let asker = match &request.plugin {
        Some(plugin) => format!("Plugin `{}` asks: ", inert_line(plugin)),
        None => String::new(),
    };
    format!(
        "{asker}Allow {} for {}? [y]es once / [a]lways / [n]o (feedback after n): ",
        inert_line(&request.permission),
        patterns.join(", ")
    )
}

/// Puts each question of `request` on the terminal in turn; `None` if one is
/// dismissed (an empty line, or end of input).
fn ask_questions(request: &ward_engine::QuestionRequest) -> Option<Vec<Vec<String>>> {
    let mut all = Vec::new();
    for (index, question) in request.questions.iter().enumerate() {
        eout!("{}", crate::question::menu(request, index));
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => {
                eoutln!("(no answer: dismissed)");
                return None;
            }
            Ok(_) => all.push(question.answer_typed(&line)?),
        }
    }
    Some(all)
}

fn ask_line(question: &str) -> Reply {
    eout!("{question}");
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => {
            eoutln!("(no answer: rejected)");
            Reply::Reject { feedback: None }
        }
        Ok(_) => parse_answer(&line),
    }
}

/// Parses one answer line.
pub fn parse_answer(line: &str) -> Reply {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    match word.to_ascii_lowercase().as_str() {
        "y" | "yes" | "once" => Reply::Once,
        "a" | "always" => Reply::Always,
        _ => Reply::Reject {
            feedback: Some(rest.trim().to_string()).filter(|f| !f.is_empty()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers() {
        assert_eq!(parse_answer("y\n"), Reply::Once);
        assert_eq!(parse_answer("A"), Reply::Always);
        assert_eq!(parse_answer("n"), Reply::Reject { feedback: None });
        assert_eq!(
            parse_answer("n  use b.txt instead\n"),
            Reply::Reject {
                feedback: Some("use b.txt instead".into())
            }
        );
        assert_eq!(parse_answer(""), Reply::Reject { feedback: None });
    }
}
