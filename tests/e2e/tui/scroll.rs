//! Scrolling back with the mouse wheel: the UI asks the terminal for button and
//! wheel reports only (never every motion, which would wake it for nothing and is
//! what takes Shift-drag selection from some terminals), and a notch moves the
//! conversation three lines.

use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use super::Tui;

/// The wheel turned one notch at column 10, row 5 (SGR encoding: 64 up, 65 down).
const WHEEL_UP: &str = "\x1b[<64;10;5M";
const WHEEL_DOWN: &str = "\x1b[<65;10;5M";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mouse_wheel_scrolls_the_conversation() {
    let p = Project::new("tui-wheel");
    let long: Vec<String> = (1..=60).map(|i| format!("row {i:02}")).collect();
    let llm = ScriptedLlm::start(vec![Turn::text(&long.join("\n"))]).await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &[], 20, 60);
    tui.wait_for(" build ").await;
    {
        let parser = tui.parser.lock().unwrap();
        let screen = parser.screen();
        assert_eq!(
            screen.mouse_protocol_mode(),
            vt100::MouseProtocolMode::PressRelease
        );
        assert_eq!(
            screen.mouse_protocol_encoding(),
            vt100::MouseProtocolEncoding::Sgr
        );
    }
    tui.keys("many rows\r");
    let screen = tui.wait_for("row 60").await;
    assert!(!screen.contains("row 44"), "{screen}");
    tui.keys(WHEEL_UP);
    let screen = tui
        .wait_until("three rows back", |s| !s.contains("row 60"))
        .await;
    assert!(screen.contains("row 57"), "{screen}");
    assert!(!screen.contains("row 58"), "{screen}");
    tui.keys(&WHEEL_UP.repeat(4));
    let screen = tui
        .wait_until("fifteen rows back", |s| !s.contains("row 48"))
        .await;
    assert!(screen.contains("row 45"), "{screen}");
    tui.keys(&WHEEL_DOWN.repeat(5));
    tui.wait_for("row 60").await;
    // A click does nothing (and leaves the prompt as typed).
    tui.keys("\x1b[<0;10;5M\x1b[<0;10;5m");
    tui.keys("\x04");
    assert!(tui.exit_status().await);
    // Leaving gives the mouse back to the terminal (the last bytes may still be
    // on their way through the pty when the process has ended).
    let mode = || tui.parser.lock().unwrap().screen().mouse_protocol_mode();
    for _ in 0..40 {
        if mode() == vt100::MouseProtocolMode::None {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(mode(), vt100::MouseProtocolMode::None);
}
