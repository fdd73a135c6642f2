//! The model's reasoning: collapsed to one dimmed row by default, shown in full
//! (still dimmed) with Ctrl-T, hidden again with Ctrl-T.

use ward_tests::Project;
use ward_tests::llm::{Item, ScriptedLlm, Turn, Usage};

use super::Tui;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reasoning_is_dimmed_and_toggles_with_ctrl_t() {
    let p = Project::new("tui-reasoning");
    let llm = ScriptedLlm::start(vec![Turn::Reply {
        items: vec![
            Item::Reasoning("weigh option one\nweigh option two\npick two".into()),
            Item::Text("went with two".into()),
        ],
        usage: Usage::default(),
    }])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &[], 30, 100);
    tui.wait_for(" build ").await;
    tui.keys("decide\r");
    let screen = tui.wait_for("went with two").await;
    assert!(
        screen.contains("▸ thinking · 3 line(s) · Ctrl-T shows"),
        "{screen}"
    );
    assert!(!screen.contains("weigh option one"), "{screen}");
    tui.keys("\x14");
    let screen = tui.wait_for("weigh option one").await;
    assert!(screen.contains("pick two"), "{screen}");
    assert!(screen.contains("▾ thinking · Ctrl-T hides"), "{screen}");
    {
        let parser = tui.parser.lock().unwrap();
        let s = parser.screen();
        let (row, col) = super::find(&s.contents(), "weigh option two");
        let cell = s.cell(row, col).unwrap();
        assert!(cell.dim() && cell.italic(), "reasoning is not dimmed");
        let (row, col) = super::find(&s.contents(), "went with two");
        assert!(!s.cell(row, col).unwrap().dim(), "the answer is dimmed");
    }
    tui.keys("\x14");
    tui.wait_until("hidden again", |s| !s.contains("weigh option one"))
        .await;
    tui.keys("\x04");
    assert!(tui.exit_status().await);
}
