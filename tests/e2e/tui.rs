//! The full-screen terminal UI, driven as a person does: `ward` on a real
//! pseudo-terminal, keys written to it, the screen it draws parsed by `vt100` and
//! asserted on — against the scripted LLM.

mod markdown;
mod mention;
mod opencode;
mod picker;
mod reasoning;
mod screens;
mod scroll;
mod subagent;
mod trust;
mod undo;

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use serde_json::json;
use ward_tests::Project;
use ward_tests::llm::{Item, ScriptedLlm, Turn};

/// What the terminal was asked to do beyond its screen: the window title set (OSC
/// 0/2) and the icon name.
#[derive(Default)]
struct Requests {
    title: Option<Vec<u8>>,
    icon_name: Option<Vec<u8>>,
}

impl vt100::Callbacks for Requests {
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.title = Some(title.to_vec());
    }

    fn set_window_icon_name(&mut self, _: &mut vt100::Screen, name: &[u8]) {
        self.icon_name = Some(name.to_vec());
    }
}

/// `ward` running on a pseudo-terminal, its screen parsed as it draws.
struct Tui {
    parser: Arc<Mutex<vt100::Parser<Requests>>>,
    writer: Box<dyn Write + Send>,
    master: Box<dyn MasterPty + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Tui {
    fn start(p: &Project, args: &[&str], rows: u16, cols: u16) -> Tui {
        p.trust();
        let mut cmd = CommandBuilder::new(ward_tests::ward_binary());
        cmd.args(args);
        cmd.env("WARD_DATA_DIR", &p.data);
        cmd.env("WARD_CACHE_DIR", &p.cache);
        cmd.env_remove("WARD_CONFIG");
        cmd.env_remove("WARD_CONFIG_CONTENT");
        Self::spawn(p, cmd, rows, cols)
    }

    /// `cmd` (any program: Ward, or another's terminal UI) on a pseudo-terminal in
    /// `p`, with the project's home.
    fn spawn(p: &Project, mut cmd: CommandBuilder, rows: u16, cols: u16) -> Tui {
        let pty = native_pty_system()
            .openpty(size(rows, cols))
            .expect("open a pty");
        cmd.cwd(&p.root);
        cmd.env("HOME", &p.home);
        cmd.env("XDG_CONFIG_HOME", p.home.join(".config"));
        cmd.env("TERM", "xterm-256color");
        let child = pty.slave.spawn_command(cmd).expect("spawn on the pty");
        drop(pty.slave);
        let parser = Arc::new(Mutex::new(vt100::Parser::new_with_callbacks(
            rows,
            cols,
            0,
            Requests::default(),
        )));
        let mut reader = pty.master.try_clone_reader().expect("pty reader");
        let screen = parser.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                screen.lock().unwrap().process(&buf[..n]);
            }
        });
        let writer = pty.master.take_writer().expect("pty writer");
        Tui {
            parser,
            writer,
            master: pty.master,
            child,
        }
    }

    /// The screen's text now.
    fn screen(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// With `WARD_UPDATE_SCREENSHOT` set (`scripts/tui-screenshots.sh`), writes the
    /// screen now to `docs/tui-NAME.txt` for the book: each row's trailing blanks
    /// cut and runs of empty rows shortened to one — nothing else changed.
    fn screenshot(&self, name: &str) {
        if std::env::var_os("WARD_UPDATE_SCREENSHOT").is_none() {
            return;
        }
        let path = format!("{}/../docs/tui-{name}.txt", env!("CARGO_MANIFEST_DIR"));
        std::fs::write(path, screens::shortened(&self.screen())).unwrap();
    }

    /// Whether anything set the window title or icon name (OSC 0/1/2).
    fn retitled(&self) -> bool {
        let parser = self.parser.lock().unwrap();
        let asked = parser.callbacks();
        asked.title.is_some() || asked.icon_name.is_some()
    }

    /// Waits until the screen shows `what`; the screen then.
    async fn wait_for(&self, what: &str) -> String {
        self.wait_until(what, |s| s.contains(what)).await
    }

    async fn wait_until(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if started.elapsed() > Duration::from_secs(30) {
                panic!("the screen never showed {what:?}; it shows:\n{screen}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn keys(&mut self, bytes: &str) {
        self.writer.write_all(bytes.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// The terminal resized: the parser first, so that nothing `ward` draws for the
    /// new size (it may draw as soon as the pty is resized) lands on the old one.
    fn resize(&self, rows: u16, cols: u16) {
        self.parser
            .lock()
            .unwrap()
            .screen_mut()
            .set_size(rows, cols);
        self.master.resize(size(rows, cols)).unwrap();
    }

    /// Waits for `ward` to exit; whether it succeeded.
    async fn exit_status(&mut self) -> bool {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            if started.elapsed() > Duration::from_secs(20) {
                let _ = self.child.kill();
                panic!("ward did not exit; the screen:\n{}", self.screen());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

fn size(rows: u16, cols: u16) -> PtySize {
    PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

fn asking_for_bash(p: &Project, llm: &ScriptedLlm) {
    llm.configure(p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str("[permission]\nbash = \"ask\"\n");
    p.write("ward.toml", &config);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_is_allowed_in_the_permission_dialog() {
    let p = Project::new("tui-ask");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "call_1",
            "bash",
            json!({"command": "seq 1 9 > made.txt && cat made.txt", "description": "count to nine"}),
        ),
        Turn::text("all counted"),
    ])
    .await;
    asking_for_bash(&p, &llm);
    let mut tui = Tui::start(&p, &[], 30, 100);
    tui.wait_for(" build ").await;
    tui.keys("count please\r");
    // The dialog shows exactly what will run.
    let screen = tui.wait_for("Allow bash for:").await;
    assert!(screen.contains("seq 1 9 > made.txt"), "{screen}");
    assert!(screen.contains("[y] once"), "{screen}");
    tui.screenshot("ask");
    assert!(
        !p.path("made.txt").exists(),
        "nothing runs before the answer"
    );
    tui.keys("y");
    let screen = tui.wait_for("all counted").await;
    assert_eq!(p.read("made.txt"), "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    // The tool's block: done, titled, its output cut to a few lines.
    assert!(screen.contains("✓ bash"), "{screen}");
    assert!(screen.contains("│ 4"), "{screen}");
    assert!(!screen.contains("│ 5"), "{screen}");
    assert!(screen.contains("5 more lines"), "{screen}");
    assert!(!screen.contains("Allow bash for:"), "{screen}");
    // The status line: agent, model, tokens of the window, cost.
    assert!(screen.contains("scripted/test-model"), "{screen}");
    assert!(screen.contains("tokens"), "{screen}");
    tui.screenshot("tool");
    tui.keys("\x04");
    assert!(tui.exit_status().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejection_carries_the_feedback_typed_in_the_dialog() {
    let p = Project::new("tui-reject");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "call_1",
            "bash",
            json!({"command": "touch nope.txt", "description": "make a file"}),
        ),
        Turn::text("understood"),
    ])
    .await;
    asking_for_bash(&p, &llm);
    let mut tui = Tui::start(&p, &[], 30, 100);
    tui.wait_for(" build ").await;
    tui.keys("make it\r");
    tui.wait_for("Allow bash for:").await;
    tui.keys("n");
    tui.wait_for("Why not?").await;
    tui.keys("use b.txt instead\r");
    tui.wait_for("understood").await;
    assert!(!p.path("nope.txt").exists());
    let second = &llm.requests()[1].body.to_string();
    assert!(second.contains("use b.txt instead"), "{second}");
    tui.keys("\x03");
    assert!(tui.exit_status().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escape_sequences_from_the_model_and_a_tool_are_rendered_inert() {
    let p = Project::new("tui-inert");
    let hostile = "\x1b]0;pwned\x07\x1b[2J\x1b[1;1Hforged\x1b[31m";
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "call_1",
            "bash",
            json!({"command": "printf 'out\\033]0;pwned\\007\\033[2J\\033[H\\033[5Bmoved\\n'", "description": "print"}),
        ),
        Turn::text(&format!("answer {hostile} end")),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &["--yes"], 30, 100);
    tui.wait_for(" build ").await;
    tui.keys("the first line stays\r");
    let screen = tui.wait_for("m end").await;
    // Nothing was cleared, moved or retitled: the prompt is still on screen, the
    // escapes show as text where they were.
    assert!(screen.contains("> the first line stays"), "{screen}");
    assert!(
        screen.contains("answer \\x1b]0;pwned\\x07\\x1b[2J\\x1b[1;1Hforged\\x1b[31m end"),
        "{screen}"
    );
    assert!(
        screen.contains("out\\x1b]0;pwned\\x07\\x1b[2J\\x1b[H\\x1b[5Bmoved"),
        "{screen}"
    );
    assert!(!tui.retitled(), "the window title changed");
    tui.keys("\x04");
    assert!(tui.exit_status().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resize_mid_stream_and_a_tiny_terminal_lay_out_again() {
    let p = Project::new("tui-resize");
    let mut items: Vec<Item> = (0..40).map(|i| Item::Text(format!("word{i} "))).collect();
    items.push(Item::Text("finale".into()));
    let llm = ScriptedLlm::start(vec![Turn::Paced {
        items,
        pause: Duration::from_millis(40),
    }])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &[], 30, 100);
    tui.wait_for(" build ").await;
    tui.keys("stream\r");
    tui.wait_for("word3 ").await;
    tui.resize(12, 40);
    let screen = tui.wait_for("finale").await;
    let rows: Vec<&str> = screen.lines().collect();
    assert!(rows.len() <= 12, "{screen}");
    assert!(rows.iter().all(|r| r.chars().count() <= 40), "{screen}");
    // The status line is the last row, laid out for the new width.
    assert!(rows.last().is_some_and(|r| r.contains("build")), "{screen}");
    // Tiny: no panic, and back to a size that shows everything again. (Only the pty
    // shrinks: the parser is left at 40×12, `vt100` itself panicking on some tiny
    // sizes.)
    for (rows, cols) in [(3, 10), (1, 1), (2, 4)] {
        tui.master.resize(size(rows, cols)).unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            tui.child.try_wait().unwrap().is_none(),
            "ward ended at {rows}x{cols}"
        );
    }
    tui.resize(24, 80);
    tui.wait_for("finale").await;
    tui.keys("\x04");
    assert!(tui.exit_status().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_tui_keeps_the_line_mode_on_a_terminal() {
    let p = Project::new("tui-none");
    let llm = ScriptedLlm::start(vec![Turn::text("plain answer")]).await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &["--no-tui"], 24, 80);
    tui.wait_for("/exit to quit").await;
    tui.keys("hello\r");
    tui.wait_for("plain answer").await;
    tui.keys("/exit\r");
    assert!(tui.exit_status().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tab_switches_to_plan_and_back_with_the_reminders() {
    let p = Project::new("tui-tab");
    let llm = ScriptedLlm::start(vec![Turn::text("planned"), Turn::text("built")]).await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &[], 30, 100);
    tui.wait_for(" build ").await;
    tui.keys("\t");
    tui.wait_for(" plan ").await;
    tui.keys("think first\r");
    tui.wait_for("planned").await;
    tui.keys("\t");
    tui.wait_until("build again", |s| {
        s.contains(" build ") && !s.contains(" plan ")
    })
    .await;
    tui.keys("now do it\r");
    tui.wait_for("built").await;
    let requests = llm.requests();
    let first = requests[0].body.to_string();
    let second = requests[1].body.to_string();
    assert!(first.contains("Plan mode is active"), "{first}");
    assert!(second.contains("changed from plan to build"), "{second}");
    tui.keys("\x04");
    assert!(tui.exit_status().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_is_shown_as_a_diff_and_output_expands() {
    let p = Project::new("tui-diff");
    p.write("notes.txt", "alpha\nbeta\ngamma\n");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("call_r", "read", json!({"filePath": "notes.txt"})),
        Turn::tool(
            "call_e",
            "edit",
            json!({"filePath": "notes.txt", "oldString": "beta", "newString": "BETA"}),
        ),
        Turn::tool(
            "call_b",
            "bash",
            json!({"command": "seq 101 112", "description": "many lines"}),
        ),
        Turn::text("edited"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &["--yes"], 50, 100);
    tui.wait_for(" build ").await;
    tui.keys("change beta\r");
    let screen = tui.wait_for("edited").await;
    tui.screenshot("diff");
    assert_eq!(p.read("notes.txt"), "alpha\nBETA\ngamma\n");
    assert!(screen.contains("│ -beta"), "{screen}");
    assert!(screen.contains("│ +BETA"), "{screen}");
    // The diff's lines are coloured: removed red, added green.
    {
        let parser = tui.parser.lock().unwrap();
        let s = parser.screen();
        let (row, col) = find(&s.contents(), "+BETA");
        assert_eq!(s.cell(row, col).unwrap().fgcolor(), vt100::Color::Idx(2));
        let (row, col) = find(&s.contents(), "-beta");
        assert_eq!(s.cell(row, col).unwrap().fgcolor(), vt100::Color::Idx(1));
    }
    // The last tool's output is collapsed, then expanded with Ctrl-O.
    assert!(screen.contains("│ 104"), "{screen}");
    assert!(!screen.contains("│ 112"), "{screen}");
    assert!(screen.contains("8 more lines"), "{screen}");
    tui.keys("\x0f");
    let screen = tui.wait_for("│ 112").await;
    assert!(!screen.contains("8 more lines"), "{screen}");
    tui.keys("\x0f");
    tui.wait_until("collapsed again", |s| !s.contains("│ 112"))
        .await;
    tui.keys("\x04");
    assert!(tui.exit_status().await);
}

/// Where `what` starts on the screen `contents`: (row, column).
fn find(contents: &str, what: &str) -> (u16, u16) {
    for (row, line) in contents.lines().enumerate() {
        if let Some(at) = line.find(what) {
            let col = line[..at].chars().count();
            return (row as u16, col as u16);
        }
    }
    panic!("{what:?} is not on the screen:\n{contents}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_commands_complete_and_run() {
    let p = Project::new("tui-slash");
    p.write(
        ".ward/commands/review.md",
        "---\ndescription: review the diff\n---\nReview $ARGUMENTS\n",
    );
    let llm = ScriptedLlm::start(vec![Turn::text("reviewed it")]).await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &[], 40, 100);
    tui.wait_for(" build ").await;
    // The user's command is in the completion list with the UI's own.
    tui.keys("/");
    let screen = tui.wait_for("commands (Tab completes)").await;
    for name in [
        "/new",
        "/help",
        "/sessions",
        "/models",
        "/agents",
        "/compact",
        "/export",
        "/undo",
        "/redo",
    ] {
        assert!(screen.contains(name), "{name} in\n{screen}");
    }
    tui.keys("r");
    let screen = tui
        .wait_until("only the commands starting with r", |s| {
            !s.contains("/help")
        })
        .await;
    assert!(screen.contains("/review"), "{screen}");
    assert!(screen.contains("review the diff"), "{screen}");
    assert!(screen.contains("/redo"), "{screen}");
    tui.keys("\x15/he\t\r");
    tui.wait_for("Commands:").await;
    tui.keys("/agents\r");
    let screen = tui.wait_for("Primary agents").await;
    assert!(screen.contains("plan"), "{screen}");
    // A user command goes to the engine, which expands it.
    tui.keys("/review main.rs\r");
    tui.wait_for("reviewed it").await;
    let sent = llm.requests()[0].body.to_string();
    assert!(sent.contains("Review main.rs"), "{sent}");
    tui.keys("/new\r");
    tui.wait_until("a new session", |s| {
        !s.contains("reviewed it") && s.contains("session ses_")
    })
    .await;
    tui.keys("/exit\r");
    assert!(tui.exit_status().await);
}
