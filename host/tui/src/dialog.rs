//! What waits for the user's answer: permission asks and the model's questions, in
//! one queue of which only the head is on screen (so a key pressed for a question
//! can never answer a permission ask that arrived meanwhile — the line mode's rule).
//!
//! A permission ask shows exactly what it is about: the permission, every pattern
//! checked (each bash sub-command, each file), the file and diff its tool reported,
//! and who asks when a plugin does; `y` allows once, `a` always, `n` rejects with
//! the feedback typed next. A question shows its options, numbered; what is typed
//! goes to the model as text only, whatever it says — never as an approval.
//!
//! Every piece comes from the model, a tool or a plugin: it is laid out inert.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use ward_engine::{AskRequest, Engine, QuestionRequest, Reply};

use crate::input::Input;
use crate::safe;

/// The most lines of a diff an ask shows.
const DIFF_LINES: usize = 12;

/// One thing waiting for an answer.
pub enum Open {
    /// A permission ask; `feedback` once `n` was pressed and the reason is typed.
    Ask {
        /// The ask's id.
        id: String,
        /// What it asks.
        request: Box<AskRequest>,
        /// Whether the reason for a rejection is being typed.
        feedback: bool,
    },
    /// The model's questions, with the answers given so far (one per question).
    Question {
        /// The questions.
        request: QuestionRequest,
        /// The answers so far.
        answers: Vec<Vec<String>>,
    },
}

/// What a key did to the head of the queue.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// It is answered: take it off the queue.
    Settled,
    /// It waits on (the key was taken, or ignored).
    Waiting,
}

/// A key, as the dialog reads it.
pub enum Key {
    /// A character typed.
    Char(char),
    /// Enter.
    Enter,
    /// Escape.
    Esc,
}

impl Open {
    /// The ask's or question request's id.
    pub fn id(&self) -> &str {
        match self {
            Open::Ask { id, .. } => id,
            Open::Question { request, .. } => &request.id,
        }
    }

    /// Whether typed text goes to this dialog's own line (a rejection's reason, an
    /// answer) rather than being a choice key.
    pub fn takes_text(&self) -> bool {
        match self {
            Open::Ask { feedback, .. } => *feedback,
            Open::Question { .. } => true,
        }
    }

    /// Handles `key`, with `line` the dialog's own input line.
    pub fn key(&mut self, engine: &Engine, key: Key, line: &mut Input) -> Step {
        match self {
            Open::Ask { id, feedback, .. } => {
                let reply = match (key, *feedback) {
                    (Key::Enter, true) => {
                        let text = line.take().trim().to_string();
                        Reply::Reject {
                            feedback: Some(text).filter(|t| !t.is_empty()),
                        }
                    }
                    (Key::Esc, true) => {
                        *feedback = false;
                        line.take();
                        return Step::Waiting;
                    }
                    (Key::Char(c), true) => {
                        line.insert(c);
                        return Step::Waiting;
                    }
                    (Key::Char('y' | 'Y' | '1'), false) => Reply::Once,
                    (Key::Char('a' | 'A' | '2'), false) => Reply::Always,
                    (Key::Char('n' | 'N' | '3'), false) => {
                        *feedback = true;
                        return Step::Waiting;
                    }
                    (Key::Esc, false) => Reply::Reject { feedback: None },
                    _ => return Step::Waiting,
                };
                // An ask already settled (a cascade) needs nothing more.
                let _ = engine.reply(id, reply);
                Step::Settled
            }
            Open::Question { request, answers } => match key {
                Key::Char(c) => {
                    line.insert(c);
                    Step::Waiting
                }
                Key::Esc => {
                    line.take();
                    let _ = engine.reject_question(&request.id);
                    Step::Settled
                }
                Key::Enter => {
                    let typed = line.take();
                    let parsed = request
                        .questions
                        .get(answers.len())
                        .and_then(|q| q.answer_typed(&typed));
                    let Some(parsed) = parsed else {
                        let _ = engine.reject_question(&request.id);
                        return Step::Settled;
                    };
                    answers.push(parsed);
                    if answers.len() < request.questions.len() {
                        return Step::Waiting;
                    }
                    let _ = engine.answer_question(&request.id, std::mem::take(answers));
                    Step::Settled
                }
            },
        }
    }

    /// Settles it unanswered (nobody is left to answer).
    pub fn dismiss(&self, engine: &Engine) {
        match self {
            Open::Ask { id, .. } => {
                let _ = engine.reply(id, Reply::Reject { feedback: None });
            }
            Open::Question { request, .. } => {
                let _ = engine.reject_question(&request.id);
            }
        }
    }

    /// The dialog's title and lines.
    pub fn render(&self) -> (String, Vec<Line<'static>>) {
        match self {
            Open::Ask {
                request, feedback, ..
            } => ask_lines(request, *feedback),
            Open::Question { request, answers } => question_lines(request, answers.len()),
        }
    }
}

/// A permission ask laid out.
fn ask_lines(request: &AskRequest, feedback: bool) -> (String, Vec<Line<'static>>) {
    let title = match &request.plugin {
        Some(plugin) => format!(" Plugin `{}` asks permission ", safe::line(plugin)),
        None => " Permission ".to_string(),
    };
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::from(vec![
        Span::raw("Allow "),
        Span::styled(safe::line(&request.permission), bold),
        Span::raw(" for:"),
    ])];
    for pattern in &request.patterns {
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(safe::line(pattern), Style::default().fg(Color::Yellow)),
        ]));
    }
    let meta = &request.metadata;
    // The engine names the file a question is about as OpenCode does, whatever the
    // tool calls its argument.
    if let Some(file) = meta.get("filepath").and_then(Value::as_str) {
        lines.push(Line::from(format!("  file: {}", safe::line(file))));
    }
    if let Some(diff) = meta.get("diff").and_then(Value::as_str) {
        let all = safe::lines(diff);
        let shown = all.len().min(DIFF_LINES);
        lines.extend(all.iter().take(shown).map(|l| diff_line(l)));
        if all.len() > shown {
            lines.push(Line::from(format!("  … {} more lines", all.len() - shown)));
        }
    }
    lines.push(Line::from(""));
    lines.push(if feedback {
        Line::from("Why not? Type it below, Enter rejects with it (Esc: back)")
    } else {
        Line::from(vec![
            Span::styled("[y]", bold),
            Span::raw(" once  "),
            Span::styled("[a]", bold),
            Span::raw(" always  "),
            Span::styled("[n]", bold),
            Span::raw(" reject with feedback  (Esc: reject)"),
        ])
    });
    (title, lines)
}

/// One line of a unified diff, coloured by what it does.
pub fn diff_line(line: &str) -> Line<'static> {
    let style = if line.starts_with("+++") || line.starts_with("---") {
        Style::default().add_modifier(Modifier::BOLD)
    } else if line.starts_with('+') {
        Style::default().fg(Color::Green)
    } else if line.starts_with('-') {
        Style::default().fg(Color::Red)
    } else if line.starts_with("@@") {
        Style::default().fg(Color::Cyan)
    } else {
        Style::default()
    };
    Line::from(Span::styled(line.to_string(), style))
}

/// Question `index` of `request` laid out.
fn question_lines(request: &QuestionRequest, index: usize) -> (String, Vec<Line<'static>>) {
    let mut title = " Question from the model ".to_string();
    if request.questions.len() > 1 {
        title = format!(
            " Question from the model ({} of {}) ",
            index + 1,
            request.questions.len()
        );
    }
    let Some(q) = request.questions.get(index) else {
        return (title, Vec::new());
    };
    let dim = Style::default().add_modifier(Modifier::DIM);
    let mut lines = vec![Line::styled(
        "Your answer is sent to the model as text and approves nothing.",
        dim,
    )];
    let header = if q.header.is_empty() {
        String::new()
    } else {
        format!("[{}] ", safe::line(&q.header))
    };
    lines.push(Line::styled(
        format!("{header}{}", safe::line(&q.question)),
        Style::default().add_modifier(Modifier::BOLD),
    ));
    for (i, option) in q.options.iter().enumerate() {
        let mut spans = vec![Span::raw(format!(
            "  {}) {}",
            i + 1,
            safe::line(&option.label)
        ))];
        if !option.description.is_empty() {
            spans.push(Span::styled(
                format!(" — {}", safe::line(&option.description)),
                dim,
            ));
        }
        lines.push(Line::from(spans));
    }
    let how = match (q.options.is_empty(), q.multiple) {
        (true, _) => "Type your answer",
        (false, false) => "Type a number, or your own answer",
        (false, true) => "Type numbers (e.g. 1,3), or your own answer",
    };
    lines.push(Line::styled(
        format!("{how}; Enter sends, an empty answer or Esc dismisses."),
        dim,
    ));
    (title, lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ward_protocol::{QuestionInfo, QuestionOption};

    fn question(multiple: bool) -> QuestionInfo {
        QuestionInfo {
            question: "Which?\x1b]0;pwned\x07".into(),
            header: "\x1b[2J".into(),
            options: vec![
                QuestionOption {
                    label: "yes".into(),
                    description: String::new(),
                },
                QuestionOption {
                    label: "no".into(),
                    description: "keep\nit".into(),
                },
            ],
            multiple,
        }
    }

    fn text(lines: &[Line<'_>]) -> String {
        lines
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn numbers_pick_labels_and_anything_else_is_the_users_own_answer() {
        assert_eq!(question(false).answer_typed("2"), Some(vec!["no".into()]));
        assert_eq!(
            question(true).answer_typed("1,2"),
            Some(vec!["yes".into(), "no".into()])
        );
        assert_eq!(
            question(false).answer_typed("1,2"),
            Some(vec!["1,2".into()])
        );
        assert_eq!(question(false).answer_typed("y"), Some(vec!["y".into()]));
        assert_eq!(question(false).answer_typed(" "), None);
    }

    #[test]
    fn a_question_is_framed_inert_and_unlike_an_ask() {
        let request = QuestionRequest {
            id: "que_1".into(),
            session_id: "ses_1".into(),
            questions: vec![question(false)],
            tool: None,
        };
        let (title, lines) = question_lines(&request, 0);
        let shown = text(&lines);
        assert!(title.contains("Question from the model"), "{title}");
        assert!(
            !shown.chars().any(|c| c.is_control() && c != '\n'),
            "{shown:?}"
        );
        assert!(shown.contains("2) no — keep\\nit"), "{shown}");
        assert!(!shown.contains("[y]"), "{shown}");
    }

    #[test]
    fn an_ask_shows_every_pattern_and_the_diff_inert() {
        let request = AskRequest {
            session_id: "ses_1".into(),
            project: "/p".into(),
            agent: "build".into(),
            permission: "edit".into(),
            patterns: vec!["a.txt".into(), "b\x1b[2J.txt".into()],
            always: vec![],
            metadata: serde_json::json!({"filepath": "a.txt", "diff": "--- a\n+++ b\n-old\n+new"}),
            call_id: None,
            message_id: None,
            plugin: Some("evil\nplugin".into()),
        };
        let (title, lines) = ask_lines(&request, false);
        let shown = text(&lines);
        assert!(title.contains("evil\\nplugin"), "{title}");
        for expected in [
            "Allow edit for:",
            "  a.txt",
            "b\\x1b[2J.txt",
            "file: a.txt",
            "+new",
            "[y] once",
        ] {
            assert!(shown.contains(expected), "{expected} in {shown}");
        }
        assert!(
            !shown.chars().any(|c| c.is_control() && c != '\n'),
            "{shown:?}"
        );
    }
}
