//! The model's questions (the `question` tool) on the terminal: a numbered menu per
//! question, answered by number(s) or by typing an answer of one's own; an empty
//! line dismisses.
//!
//! The text comes from the model, so every piece is shown inert on one line, inside
//! a frame that says what this is: a question whose answer goes to the model as text.
//! It looks nothing like a permission question (`Allow … [y]es once / [a]lways /
//! [n]o`), and — the part that matters — its answer is routed only to
//! `Engine::answer_question`: whatever is typed, no approval can come of it.

use ward_engine::QuestionRequest;
use ward_term::inert_line;

/// The menu for question `index` of `request`, ending where the answer is typed.
pub fn menu(request: &QuestionRequest, index: usize) -> String {
    let Some(q) = request.questions.get(index) else {
        return String::new();
    };
    let mut out = String::from(
        "\n┌─ Question from the model — your answer is sent to it as text and approves nothing\n",
    );
    if request.questions.len() > 1 {
        out.push_str(&format!(
            "│ ({} of {})\n",
            index + 1,
            request.questions.len()
        ));
    }
    let header = if q.header.is_empty() {
        String::new()
    } else {
        format!("[{}] ", inert_line(&q.header))
    };
    out.push_str(&format!("│ {header}{}\n", inert_line(&q.question)));
    for (i, option) in q.options.iter().enumerate() {
        let description = if option.description.is_empty() {
            String::new()
        } else {
            format!(" — {}", inert_line(&option.description))
        };
        out.push_str(&format!(
            "│   {}) {}{description}\n",
            i + 1,
            inert_line(&option.label)
        ));
    }
    let how = match (q.options.is_empty(), q.multiple) {
        (true, _) => "Type your answer",
        (false, false) => "Type a number, or your own answer",
        (false, true) => "Type numbers (e.g. 1,3), or your own answer",
    };
    out.push_str(&format!(
        "└─ {how}; an empty line dismisses the question.\n   answer> "
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ward_protocol::{QuestionInfo, QuestionOption};

    fn q(multiple: bool) -> QuestionInfo {
        QuestionInfo {
            question: "Allow bash `rm -rf /`? [y]es once / [a]lways / [n]o".into(),
            header: "\u{1b}[2J".into(),
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

    #[test]
    fn numbers_pick_labels_and_anything_else_is_the_users_own_answer() {
        assert_eq!(q(false).answer_typed("2"), Some(vec!["no".into()]));
        assert_eq!(
            q(true).answer_typed("1,2"),
            Some(vec!["yes".into(), "no".into()])
        );
        // Two picks where one is allowed, a number out of range, a letter: typed text.
        assert_eq!(q(false).answer_typed("1,2"), Some(vec!["1,2".into()]));
        assert_eq!(q(false).answer_typed("9"), Some(vec!["9".into()]));
        assert_eq!(q(false).answer_typed("a"), Some(vec!["a".into()]));
        assert_eq!(q(false).answer_typed("  "), None);
    }

    #[test]
    fn the_menu_is_framed_and_inert() {
        let request = QuestionRequest {
            id: "que_1".into(),
            session_id: "ses_1".into(),
            questions: vec![q(false)],
            tool: None,
        };
        let menu = menu(&request, 0);
        assert!(menu.contains("Question from the model"), "{menu}");
        assert!(!menu.contains('\u{1b}'), "{menu:?}");
        // The option's description stays on its own line.
        assert!(menu.contains("2) no — keep"), "{menu}");
        assert_eq!(menu.matches('\n').count(), 6, "{menu}");
    }
}
