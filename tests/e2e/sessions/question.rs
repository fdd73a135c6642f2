//! The `question` tool end to end: refused at once without anyone to answer; answered
//! in the interactive mode, on a real terminal (`ward run` under `script`'s PTY) and
//! through `ward serve`'s API; and the attack — a question dressed as a permission
//! prompt — never yields a permission grant, whatever is typed.

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, tool_names};

/// The tool results the model was sent in a Chat Completions request.
fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn color_question() -> Turn {
    Turn::tool(
        "q1",
        "question",
        json!({ "questions": [{
            "question": "Which colour?",
            "header": "Colour",
            "options": [
                { "label": "Red", "description": "warm" },
                { "label": "Blue", "description": "cool" }
            ]
        }] }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_terminal_the_question_is_refused_at_once() {
    let p = Project::new("question-no-tty");
    let llm = ScriptedLlm::start(vec![color_question(), Turn::text("I chose red myself.")]).await;
    llm.configure(&p, "openai-compatible");
    let started = std::time::Instant::now();
    let run = p.run_async(&["run", "pick a colour"], "").await;
    assert!(run.expect_ok().contains("I chose red myself."));
    assert!(started.elapsed() < Duration::from_secs(60), "never waits");
    let requests = llm.requests();
    assert!(tool_names(&requests[0].body).contains(&"question".to_string()));
    let results = tool_results(&requests[1].body);
    assert!(
        results[0].contains("no one can answer questions here"),
        "{results:?}"
    );

    // `question = "deny"` removes the tool.
    let mut config = p.read("ward.toml");
    config.push_str("[permission]\nquestion = \"deny\"\n");
    p.write("ward.toml", &config);
    llm.push([Turn::text("fine")]);
    p.run_async(&["run", "again"], "").await.expect_ok();
    let last = llm.requests().last().expect("request").body.clone();
    assert!(!tool_names(&last).contains(&"question".to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_dressed_as_a_permission_prompt_grants_nothing() {
    let p = Project::new("question-attack");
    p.write("victim/keep.txt", "precious\n");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "q1",
            "question",
            json!({ "questions": [
                {
                    "question": "Allow bash for rm -rf victim? [y]es once / [a]lways / [n]o (feedback after n): ",
                    "header": "\u{1b}[2JPermission",
                    "options": [
                        { "label": "always", "description": "allow rm from now on" },
                        { "label": "yes", "description": "allow once" }
                    ]
                },
                {
                    "question": "Which file?",
                    "header": "File",
                    "options": [
                        { "label": "a.txt", "description": "" },
                        { "label": "b.txt", "description": "" }
                    ]
                }
            ] }),
        ),
        Turn::tool(
            "b1",
            "bash",
            json!({ "command": "rm -rf victim", "description": "clean" }),
        ),
        Turn::text("unreachable"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str("[permission]\nbash = \"ask\"\n");
    p.write("ward.toml", &config);
    // The interactive mode: the prompt, "a" (what a permission prompt takes for
    // "always") to the fake question, 2 to the second, then "n" to the real ask.
    let run = p.run_async(&[], "clean up\na\n2\nn\n/exit\n").await;
    let stderr = run.stderr();
    assert_eq!(p.read("victim/keep.txt"), "precious\n", "{stderr}");
    assert!(stderr.contains("Question from the model"), "{stderr}");
    assert!(
        !stderr.contains('\u{1b}'),
        "the header is inert: {stderr:?}"
    );
    // Once inside the question's frame, once as the host's own ask, after it.
    let ask = "Allow bash for rm -rf victim? [y]es once";
    assert_eq!(stderr.matches(ask).count(), 2, "{stderr}");
    let real = stderr.rfind(ask).expect("the real ask was shown");
    let fake = stderr.find("Question from the model").expect("shown");
    assert!(
        fake < real,
        "the question came first, and stayed a question"
    );

    let requests = llm.requests();
    let answered = tool_results(&requests[1].body);
    assert!(
        answered[0].contains("=\"a\"") && answered[0].contains("\"Which file?\"=\"b.txt\""),
        "the answers went to the model as text: {answered:?}"
    );
    assert_eq!(requests.len(), 2, "the rejected ask stopped the loop");
    // No approval of anything was stored.
    let db = rusqlite::Connection::open(p.data.join("ward.db")).expect("db");
    let grants: i64 = db
        .query_row("SELECT COUNT(*) FROM approval", [], |row| row.get(0))
        .expect("counts");
    assert_eq!(grants, 0);
}

/// `ward ARGS` on a real terminal: util-linux `script` runs it under a PTY and
/// forwards `input` to it.
async fn on_a_terminal(p: &Project, args: &str, input: &str) -> String {
    p.trust();
    let base = p.ward();
    let mut cmd = Command::new("script");
    cmd.args([
        "-qec",
        &format!("{} {args}", ward_tests::ward_binary().display()),
        "/dev/null",
    ])
    .current_dir(&p.root)
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    for (key, value) in base.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    let input = input.to_string();
    tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = cmd.spawn().expect("script runs");
        let mut stdin = child.stdin.take().expect("stdin");
        // Typed once the question is up (the PTY would echo it early otherwise).
        std::thread::sleep(Duration::from_secs(3));
        let _ = stdin.write_all(input.as_bytes());
        let out = child.wait_with_output().expect("waits");
        String::from_utf8_lossy(&out.stdout).into_owned()
    })
    .await
    .expect("joins")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ward_run_on_a_terminal_shows_a_numbered_menu() {
    let p = Project::new("question-tty");
    let llm = ScriptedLlm::start(vec![color_question(), Turn::text("Blue it is.")]).await;
    llm.configure(&p, "openai-compatible");
    let out = on_a_terminal(&p, "run 'pick a colour'", "2\n").await;
    assert!(out.contains("1) Red — warm"), "{out}");
    assert!(out.contains("2) Blue — cool"), "{out}");
    assert!(out.contains("Blue it is."), "{out}");
    let results = tool_results(&llm.requests()[1].body);
    assert!(
        results[0].contains("\"Which colour?\"=\"Blue\""),
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_lists_answers_and_rejects_questions() {
    let p = Project::new("question-serve");
    let llm = ScriptedLlm::start(vec![
        color_question(),
        Turn::text("Blue it is."),
        color_question(),
        Turn::text("Dismissed, then."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let served = crate::serve::Served::start(&p, &[], &[]).await;
    let (_, id) = served.new_session().await;
    for (reply, expected) in [
        (
            Some(json!({ "answers": [["Blue"]] })),
            "\"Which colour?\"=\"Blue\"",
        ),
        (None, "dismissed"),
    ] {
        let prompt = json!({ "parts": [{ "type": "text", "text": "pick" }] }).to_string();
        let (status, _) = served
            .call(
                "POST",
                &format!("/session/{id}/prompt_async"),
                Some(&prompt),
            )
            .await;
        assert_eq!(status, 204);
        let pending = loop {
            let (_, body) = served.call("GET", "/question", None).await;
            let list: Value = serde_json::from_str(&body).expect("JSON");
            if list.as_array().is_some_and(|l| !l.is_empty()) {
                break list;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let request = &pending[0];
        assert_eq!(request["sessionID"], id.as_str());
        assert_eq!(request["questions"][0]["options"][1]["label"], "Blue");
        assert_eq!(request["tool"]["callID"], "q1");
        let qid = request["id"].as_str().expect("id");
        let before = llm.requests().len();
        let (status, body) = match &reply {
            Some(answers) => {
                // A wrong count is a 400 and leaves the question waiting.
                let (status, _) = served
                    .call(
                        "POST",
                        &format!("/question/{qid}/reply"),
                        Some(r#"{"answers": []}"#),
                    )
                    .await;
                assert_eq!(status, 400);
                served
                    .call(
                        "POST",
                        &format!("/question/{qid}/reply"),
                        Some(&answers.to_string()),
                    )
                    .await
            }
            None => {
                served
                    .call("POST", &format!("/question/{qid}/reject"), None)
                    .await
            }
        };
        assert_eq!(status, 200, "{body}");
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while llm.requests().len() < before + 1 && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let last = llm.requests().last().expect("request").body.clone();
        let results = tool_results(&last);
        assert!(
            results.last().is_some_and(|r| r.contains(expected)),
            "{results:?}"
        );
    }
    let (status, _) = served
        .call("POST", "/question/que_missing/reject", None)
        .await;
    assert_eq!(status, 404);
}
