//! The model's answer as markdown: a heading and emphasis lose their marks, a list
//! gets bullets, a fenced code block is highlighted (its cells coloured by the
//! theme) — and an escape sequence inside the code block is drawn as text, never
//! acted on.

use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use super::Tui;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markdown_is_rendered_and_code_is_highlighted_inert() {
    let p = Project::new("tui-markdown");
    let answer = "## The plan\n\nDo **this** first, then `that`.\n\n- one item\n- another\n\n\
                  ```rust\nfn main() {\n    let title = \"\x1b]0;pwned\x07\x1b[2J\";\n}\n```\n\nafter the code";
    let llm = ScriptedLlm::start(vec![Turn::text(answer)]).await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &[], 30, 100);
    tui.wait_for(" build ").await;
    tui.keys("explain\r");
    let screen = tui.wait_for("after the code").await;
    assert!(screen.contains("The plan"), "{screen}");
    assert!(!screen.contains("## The plan"), "{screen}");
    assert!(screen.contains("Do this first, then that."), "{screen}");
    assert!(screen.contains("• one item"), "{screen}");
    assert!(!screen.contains("```"), "{screen}");
    assert!(
        screen.contains(r#"let title = "\x1b]0;pwned\x07\x1b[2J";"#),
        "{screen}"
    );
    assert!(!tui.retitled(), "the window title changed");
    // The heading is bold; the code block's keywords are coloured by the
    // highlighter (in 24-bit colour), once its worker has answered.
    {
        let parser = tui.parser.lock().unwrap();
        let s = parser.screen();
        let (row, col) = super::find(&s.contents(), "The plan");
        assert!(s.cell(row, col).unwrap().bold());
        let (row, col) = super::find(&s.contents(), "this first");
        assert!(s.cell(row, col).unwrap().bold());
        assert!(!s.cell(row, col + 5).unwrap().bold());
    }
    let started = std::time::Instant::now();
    loop {
        let coloured = {
            let parser = tui.parser.lock().unwrap();
            let s = parser.screen();
            let (row, col) = super::find(&s.contents(), "fn main");
            matches!(s.cell(row, col).unwrap().fgcolor(), vt100::Color::Rgb(..))
        };
        if coloured {
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "the code block was never highlighted:\n{}",
            tui.screen()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    tui.screenshot("markdown");
    tui.keys("\x04");
    assert!(tui.exit_status().await);
}
