//! Frames drawn on ratatui's test backend: every size from nothing up draws without
//! a panic, and no cell holds a control character, whatever the model and the tools
//! sent.

use std::cell::Cell;
use std::collections::VecDeque;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ward_protocol::Session;

use crate::app::State;
use crate::conversation::{Conversation, Entry, ToolBlock, ToolStatus};
use crate::input::Input;
use crate::slash::Catalog;

const HOSTILE: &str = "a\x1b]0;pwned\x07\x1b[2J\x1b[5;5H\r\u{9b}2J\u{202e}\tb\n日本語 ✅";

fn state() -> State {
    let mut conv = Conversation::new("ses_1");
    conv.entries = vec![
        Entry::User(format!("prompt {HOSTILE}")),
        Entry::Reasoning(HOSTILE.repeat(3)),
        Entry::Tool(ToolBlock {
            tool: "bash\x1b[2J".into(),
            status: ToolStatus::Running,
            title: HOSTILE.into(),
            output: (0..30).map(|i| format!("{i} {HOSTILE}\n")).collect(),
            diff: None,
            expanded: true,
        }),
        Entry::Text(HOSTILE.repeat(20)),
        Entry::Notice("note".into()),
    ];
    let mut input = Input::default();
    input.paste("a long prompt being typed 日本語 that does not fit");
    State {
        session: Session::new("/p", "build"),
        catalog: Catalog::of(&[("new", "start")]),
        conv,
        input,
        answer: Input::default(),
        picker: None,
        subagents: vec!["general".into()],
        files: vec!["src/a.rs".into()],
        mentioning: false,
        deferred: VecDeque::new(),
        open: VecDeque::new(),
        agent: "build".into(),
        agents: vec!["build".into(), "plan".into()],
        model: "p/m".into(),
        model_choice: None,
        window: Some(1000),
        markdown: crate::markdown::Cache::default(),
        thinking: true,
        scroll: Cell::new(0),
        page: Cell::new(0),
        frame: 3,
        running: 1,
        quit: false,
        made: None,
    }
}

#[test]
fn every_size_draws_and_no_cell_holds_a_control() {
    let state = state();
    for (width, height) in [
        (0, 0),
        (1, 1),
        (10, 3),
        (3, 10),
        (40, 12),
        (2, 50),
        (120, 40),
    ] {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal
            .draw(|f| crate::view::draw(f, &state))
            .unwrap_or_else(|e| panic!("{width}x{height}: {e}"));
        for cell in terminal.backend().buffer().content() {
            let symbol = cell.symbol();
            assert!(
                !symbol.chars().any(|c| c.is_control() || c == '\u{202e}'),
                "{width}x{height}: {symbol:?}"
            );
        }
    }
}

#[test]
fn scrolling_back_is_clamped_to_the_conversation() {
    let state = state();
    state.scroll.set(usize::MAX);
    let mut terminal = Terminal::new(TestBackend::new(40, 12)).unwrap();
    terminal.draw(|f| crate::view::draw(f, &state)).unwrap();
    let top: String = (0..40)
        .map(|x| terminal.backend().buffer()[(x, 0)].symbol().to_string())
        .collect();
    assert!(top.starts_with("> prompt"), "{top:?}");
    assert!(state.scroll.get() < usize::MAX);
}
