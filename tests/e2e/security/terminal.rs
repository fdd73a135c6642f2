//! The terminal boundary: text from a model, a tool, a plugin, project files and a
//! package index reaches the user's terminal only inert. Each test feeds escape
//! sequences (screen clear, OSC 52 clipboard write, window title, hyperlink, hidden
//! text, 8-bit CSI, a bidi override, a bare carriage return printing a fake "ALL
//! TESTS PASSED") through the real `ward` binary and checks that nothing a terminal
//! acts on comes out on standard output or error, while the text is still shown.

use serde_json::{Value, json};
use ward_tests::llm::{Fault, ScriptedLlm, Turn};
use ward_tests::{Project, Run};

/// Every attack at once around the visible word `MARK` (the same string the
/// `term-hostile` plugin uses).
const EVIL: &str = "\x1b[2J\x1b[HMARK\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\
\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\\x1b[8mhidden\x1b[28m\
\u{9b}31m\u{202e}exe.txt\rALL TESTS PASSED";

/// What `EVIL` looks like once inert.
const SHOWN: &str = "\\x1b[2J\\x1b[HMARK\\x1b]52;c;cm0gLXJmIH4=\\x07";

/// Asserts nothing in `out` acts on a terminal: no ESC or other C0 control but `\t`
/// and `\n`, no bare `\r`, no DEL or C1 control, no bidi control or zero-width space.
fn assert_inert(what: &str, out: &str) {
    for (i, c) in out.char_indices() {
        let bad = match c {
            '\t' | '\n' => false,
            '\r' => !out[i + 1..].starts_with('\n'),
            c if c.is_control() => true,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200B}' | '\u{FEFF}' => true,
            _ => false,
        };
        assert!(!bad, "{what}: raw {c:?} at byte {i} in:\n{out}");
    }
}

/// Asserts both streams of `run` are inert.
fn assert_run_inert(what: &str, run: &Run) {
    assert_inert(&format!("{what} (stdout)"), &run.stdout());
    assert_inert(&format!("{what} (stderr)"), &run.stderr());
}

/// Whether any string in `value` contains `needle`.
fn has_string(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(s) => s.contains(needle),
        Value::Array(items) => items.iter().any(|v| has_string(v, needle)),
        Value::Object(map) => map.values().any(|v| has_string(v, needle)),
        _ => false,
    }
}

/// A provider error whose message is `EVIL` (`code` 5xx is retried, 4xx is not).
fn hostile_status(code: u16) -> Turn {
    let kind = if code >= 500 {
        "server_error"
    } else {
        "invalid_request_error"
    };
    Turn::Fault(Fault::Status {
        code,
        body: json!({"error": {"message": EVIL, "type": kind}}).to_string(),
    })
}

/// A retried provider error, a bash call titled with `EVIL`, a call of a tool named
/// `EVIL`, then an answer that is `EVIL`.
fn hostile_turns() -> Vec<Turn> {
    vec![
        hostile_status(503),
        Turn::tool(
            "call_1",
            "bash",
            json!({"command": "printf 'MARK\\033[2J\\n'", "description": EVIL}),
        ),
        Turn::tool("call_2", EVIL, json!({})),
        Turn::text(EVIL),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_text_and_tool_titles_reach_the_terminal_inert() {
    let p = Project::new("term-run");
    let llm = ScriptedLlm::start(hostile_turns()).await;
    llm.configure(&p, "openai-compatible");
    let run = p.run_async(&["run", "--yes", "go"], "").await;
    let out = run.expect_ok();
    assert_run_inert("ward run", &run);
    assert!(out.contains(SHOWN), "the answer is shown, escaped: {out}");
    assert!(out.contains("\\rALL TESTS PASSED"), "{out}");
    assert!(out.contains("\\u{9b}31m\\u{202e}exe.txt"), "{out}");
    let err = run.stderr();
    assert!(
        err.contains("[bash] \\x1b[2J\\x1b[HMARK"),
        "the title: {err}"
    );
    assert!(
        err.contains("retrying in ") && err.contains("(attempt 2 of 8): "),
        "the retry: {err}"
    );
    assert!(err.contains("] error: "), "the unknown tool's error: {err}");

    // What was stored is shown inert too.
    let session = err
        .lines()
        .find_map(|l| l.strip_prefix("session "))
        .expect("session id printed")
        .to_string();
    let list = p.run_async(&["session", "list"], "").await;
    list.expect_ok();
    assert_run_inert("ward session list", &list);
    let show = p.run_async(&["session", "show", &session], "").await;
    let shown = show.expect_ok();
    assert_run_inert("ward session show", &show);
    assert!(shown.contains(SHOWN), "{shown}");
    assert!(shown.contains("completed: \\x1b[2J"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_events_are_exact_data_and_inert() {
    let p = Project::new("term-json");
    let llm = ScriptedLlm::start(hostile_turns()).await;
    llm.configure(&p, "openai-compatible");
    let run = p
        .run_async(&["run", "--yes", "--format", "json", "go"], "")
        .await;
    let out = run.expect_ok();
    assert_run_inert("ward run --format json", &run);
    let events: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    // JSON's own escapes: a reader gets the exact strings back.
    assert!(
        events.iter().any(|e| has_string(e, EVIL)),
        "the answer and the title are exact data: {out}"
    );
    assert!(out.contains("\\u009b31m\\u202eexe.txt"), "{out}");
}

#[test]
fn a_hostile_plugin_cannot_reach_the_terminal() {
    let p = Project::new("term-plugin");
    p.install_test_plugin("term-hostile");

    let list = p.run(&["tool", "list"], "");
    let out = list.expect_ok();
    assert_run_inert("ward tool list", &list);
    assert!(out.contains("Shouts\\x1b]52;c;"), "{out}");

    let plugins = p.run(&["plugin", "list"], "");
    plugins.expect_ok();
    assert_run_inert("ward plugin list", &plugins);

    // Output on stdout; the plugin's log line on stderr.
    let call = p.run(&["tool", "call", "--yes", "shout", r#"{"mode":"ok"}"#], "");
    let out = call.expect_ok();
    assert_run_inert("ward tool call", &call);
    assert!(out.contains(SHOWN) && out.contains("\nline two\n"), "{out}");
    assert!(
        call.stderr().contains("MARK"),
        "the log line is shown: {}",
        call.stderr()
    );

    // --json: the title, output and metadata exactly, in JSON escapes.
    let call = p.run(
        &[
            "tool",
            "call",
            "--yes",
            "--json",
            "shout",
            r#"{"mode":"ok"}"#,
        ],
        "",
    );
    let out = call.expect_ok();
    assert_run_inert("ward tool call --json", &call);
    let result: Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(result["title"], EVIL);
    assert_eq!(result["output"], format!("{EVIL}\nline two\n"));
    assert_eq!(result["metadata"]["evil"], EVIL);

    let call = p.run(
        &["tool", "call", "--yes", "shout", r#"{"mode":"fail"}"#],
        "",
    );
    let err = call.expect_err();
    assert_run_inert("ward tool call (error)", &call);
    assert!(err.contains(SHOWN), "{err}");
}

#[test]
fn a_plugins_permission_question_is_inert() {
    let p = Project::new("term-ask");
    p.install_test_plugin("term-hostile");
    p.write("ward.toml", "[permission]\nshout = \"ask\"\n");
    // Two questions: the call itself (allowed), then the plugin's own (rejected).
    let call = p.run(&["tool", "call", "shout", r#"{"mode":"ask"}"#], "y\nn\n");
    assert_run_inert("a plugin's permission question", &call);
    let err = call.stderr();
    let question = err
        .lines()
        .find(|l| l.contains("Allow shout for \\x1b[2J\\x1b[HMARK"))
        .unwrap_or_else(|| panic!("the question shows the pattern, escaped: {err}"));
    // One line: the carriage return and the fake verdict after it are visible in it.
    assert!(
        question.contains("Allow shout for") && question.contains("\\rALL TESTS PASSED"),
        "{question}"
    );
}

#[test]
fn project_files_are_listed_inert() {
    let p = Project::new("term-files");
    // YAML escapes: ESC, BEL, RLO and CR in the parsed descriptions.
    let description = r#""\e[2J\e]52;c;eA==\aMARK\u202e\rALL TESTS PASSED""#;
    p.write(
        ".ward/agents/evil.md",
        &format!("---\ndescription: {description}\nmode: subagent\n---\nBe evil.\n"),
    );
    p.write(
        ".ward/skills/evil/SKILL.md",
        &format!("---\nname: evil\ndescription: {description}\n---\nBe evil.\n"),
    );
    p.write(
        ".ward/commands/evil.md",
        &format!("---\ndescription: {description}\n---\nBe evil.\n"),
    );
    for args in [
        &["agent", "list"][..],
        &["skill", "list"],
        &["command", "list"],
    ] {
        let run = p.run(args, "");
        let out = run.expect_ok();
        assert_run_inert(&args.join(" "), &run);
        assert!(
            out.contains("\\x1b[2J\\x1b]52;c;eA==\\x07MARK\\u{202e}"),
            "{}: {out}",
            args.join(" ")
        );
    }
}

#[test]
fn package_index_entries_are_inert() {
    let p = Project::new("term-index");
    let market = p.root.parent().expect("project base").join("market");
    std::fs::create_dir_all(&market).expect("market dir");
    let index = json!({
        "format": 1,
        "plugins": [{
            "name": "evil",
            "description": EVIL,
            "kinds": ["tool"],
            "versions": [{
                "version": "1.0.0",
                "url": "evil-1.0.0.wardpkg",
                "sha256": "0".repeat(64),
            }],
        }],
    });
    std::fs::write(market.join("index.json"), index.to_string()).expect("index");
    p.write(
        "ward.toml",
        &format!(
            "[[marketplace.sources]]\nname = \"test\"\nurl = \"{}\"\n",
            market.join("index.json").display()
        ),
    );
    let run = p.run(&["plugin", "search"], "");
    let out = run.expect_ok();
    assert_run_inert("ward plugin search", &run);
    assert!(out.contains("evil 1.0.0 (tool) from `test`"), "{out}");
    assert!(out.contains(&format!("  {SHOWN}")), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_interactive_mode_is_inert() {
    let p = Project::new("term-chat");
    let llm = ScriptedLlm::start(vec![hostile_status(400), Turn::text(EVIL)]).await;
    llm.configure(&p, "openai-compatible");
    // A prompt the provider refuses with a hostile error, then one it answers.
    let run = p.run_async(&["--yes"], "first\nsecond\n").await;
    assert_run_inert("ward (interactive)", &run);
    let (out, err) = (run.stdout(), run.stderr());
    assert!(err.contains("error: ") && err.contains("MARK"), "{err}");
    assert!(out.contains(SHOWN), "{out}");
}

#[test]
fn a_projects_config_is_listed_inert() {
    let p = Project::new("term-models");
    // A cloned repository's ward.toml is untrusted too (TOML escapes: ESC, BEL, RLO).
    p.write(
        "ward.toml",
        "[provider.evil]\nkind = \"openai-compatible\"\n\
         base_url = \"http://x/\\u001b[2JMARK\\u202e\"\n\
         [provider.evil.models.\"m\\u001b]0;pwned\\u0007\"]\ncontext = 10\n",
    );
    let run = p.run(&["models", "evil"], "");
    let out = run.expect_ok();
    assert_run_inert("ward models", &run);
    assert!(out.contains("http://x/\\x1b[2JMARK\\u{202e}"), "{out}");
    assert!(out.contains("m\\x1b]0;pwned\\x07"), "{out}");
}
