//! OpenCode's own command line against `ward serve`, unchanged: `opencode run --attach
//! URL -p TOKEN "prompt"` (1.18.33, installed by `scripts/setup.sh` in
//! `tests/clients/opencode-cli`) logs in with the token as its password, makes a session,
//! sends the prompt, follows the event stream and prints the model's answer and its tool
//! calls, as it does against `opencode serve`.

use std::path::PathBuf;
use std::process::Stdio;

use serde_json::json;
use ward_tests::llm::{Item, Turn, Usage};

use super::{Served, project_asking_for_reads};

/// OpenCode's command, as npm installed it.
fn opencode() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("clients/opencode-cli/node_modules/.bin/opencode");
    assert!(
        bin.exists(),
        "OpenCode's command line is not installed: run scripts/setup.sh"
    );
    bin
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_run_attached_to_ward_serve_prints_the_answer_and_its_tool_calls() {
    let (p, llm) = project_asking_for_reads(
        "serve-opencode-run",
        vec![
            Turn::tool("r1", "read", json!({ "filePath": "a.txt" })),
            Turn::Reply {
                items: vec![
                    Item::Reasoning("The file holds one word.".into()),
                    Item::Text("The file says alpha.".into()),
                ],
                usage: Usage::default(),
            },
        ],
    )
    .await;
    // No question for this run to answer: reads are allowed.
    let toml = p
        .read("ward.toml")
        .replace("read = \"ask\"", "read = \"allow\"");
    p.write("ward.toml", &toml);
    let served = Served::start(&p, &[], &[]).await;
    let out = tokio::process::Command::new(opencode())
        .args([
            "run",
            "--attach",
            &served.url,
            "-p",
            &served.token,
            "--thinking",
            "read a.txt",
        ])
        .current_dir(&p.root)
        // OpenCode's own state goes to a home of the test's.
        .env("HOME", &p.home)
        .env("XDG_CONFIG_HOME", p.home.join(".config"))
        .env("XDG_DATA_HOME", p.home.join(".local/share"))
        .env("XDG_CACHE_HOME", p.home.join(".cache"))
        .env("XDG_STATE_HOME", p.home.join(".local/state"))
        .env_remove("OPENCODE_SERVER_PASSWORD")
        .stdin(Stdio::null())
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), out)
        .await
        .expect("opencode run ends within 60 s")
        .expect("run opencode");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The reasoning (with --thinking: OpenCode prints a reasoning part once its time
    // has an end) and the answer on standard output; the tool call, as OpenCode draws
    // it, beside it.
    assert_eq!(
        stdout.trim(),
        "Thinking: The file holds one word.\nThe file says alpha.",
        "{stderr}"
    );
    assert!(stderr.contains("Read a.txt"), "{stderr}");
    // Both turns went to the model, the second with the file's contents.
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].body.to_string().contains("alpha"));

    // Without the token it is refused, and says so.
    let out = tokio::process::Command::new(opencode())
        .args(["run", "--attach", &served.url, "-p", "wrong", "hello"])
        .current_dir(&p.root)
        .env("HOME", &p.home)
        .env("XDG_DATA_HOME", p.home.join(".local/share"))
        .env_remove("OPENCODE_SERVER_PASSWORD")
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run opencode");
    assert!(!out.status.success(), "a wrong password fails");
    assert_eq!(llm.requests().len(), 2, "nothing reached the model");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_project_routes_opencodes_ui_opens_with_describe_the_served_project() {
    let (p, _llm) = project_asking_for_reads("serve-project-routes", vec![Turn::text("x")]).await;
    std::fs::write(p.path(".git/HEAD"), "ref: refs/heads/topic\n").expect("HEAD");
    // MCP servers: one that connects, one switched off, one that cannot start.
    let everything = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "clients/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(everything.is_file(), "run scripts/setup.sh");
    let toml = p.read("ward.toml");
    p.write(
        "ward.toml",
        &format!(
            "{toml}[mcp.everything]\ntype = \"local\"\ncommand = [\"node\", {:?}]\n\
             [mcp.off]\ntype = \"local\"\ncommand = [\"node\"]\nenabled = false\n\
             [mcp.gone]\ntype = \"local\"\ncommand = [\"ward-no-such-program\"]\n",
            everything.display().to_string()
        ),
    );
    p.trust();
    let served = Served::start(&p, &[], &[]).await;
    let get = |path: &'static str| {
        let served = &served;
        async move {
            let (status, body) = served.call("GET", path, None).await;
            assert_eq!(status, 200, "{path}: {body}");
            serde_json::from_str::<serde_json::Value>(&body).expect("JSON")
        }
    };
    let root = p.root.display().to_string();
    let paths = get("/path").await;
    assert_eq!(paths["worktree"], root.as_str(), "{paths}");
    assert_eq!(paths["directory"], root.as_str(), "{paths}");
    assert_eq!(paths["state"], p.data.display().to_string(), "{paths}");
    assert_eq!(get("/vcs").await["branch"], "topic");
    // The project, whose id is the one its sessions carry.
    let (_, body) = served.call("POST", "/session", Some("{}")).await;
    let session: serde_json::Value = serde_json::from_str(&body).expect("session");
    let project = get("/project/current").await;
    assert_eq!(project["id"], session["projectID"], "{project}");
    assert_eq!(project["worktree"], root.as_str());
    assert_eq!(project["vcs"], "git");
    assert_eq!(
        project["time"]["created"], session["time"]["created"],
        "{project}"
    );
    // What runs beside the sessions, as OpenCode's UI asks for it.
    let mcp = get("/mcp").await;
    assert_eq!(mcp["everything"]["status"], "connected", "{mcp}");
    assert_eq!(mcp["off"]["status"], "disabled", "{mcp}");
    assert_eq!(mcp["gone"]["status"], "failed", "{mcp}");
    assert!(
        mcp["gone"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("gone")),
        "the failure names the server: {mcp}"
    );
    assert_eq!(get("/lsp").await, serde_json::json!([]));
    assert_eq!(get("/formatter").await, serde_json::json!([]));
    assert_eq!(get("/provider/auth").await, serde_json::json!({}));
    // Adding a server through the API is OpenCode's, not served: a 501 naming it.
    let (status, body) = served.call("POST", "/mcp", Some("{}")).await;
    assert_eq!(status, 501, "{body}");
    assert!(body.contains("POST /mcp"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_diff_lists_the_files_it_changed() {
    let (p, _llm) = project_asking_for_reads(
        "serve-session-diff",
        vec![
            Turn::tool(
                "w1",
                "write",
                json!({ "filePath": "b.txt", "content": "one\ntwo\n" }),
            ),
            Turn::text("Wrote it."),
        ],
    )
    .await;
    // Nobody answers questions here: the file's write is allowed outright.
    let toml = p
        .read("ward.toml")
        .replace("read = \"ask\"", "read = \"allow\"\nedit = \"allow\"");
    p.write("ward.toml", &toml);
    let served = Served::start(&p, &[], &[]).await;
    let (_, id) = served.new_session().await;
    let (status, body) = served.send_text(&id, "message", "write b").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(p.read("b.txt"), "one\ntwo\n");
    // The summary is made after the answer, in the background.
    let started = std::time::Instant::now();
    let diff = loop {
        let (status, body) = served
            .call("GET", &format!("/session/{id}/diff"), None)
            .await;
        assert_eq!(status, 200, "{body}");
        let diff: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        if diff.as_array().is_some_and(|d| !d.is_empty()) {
            break diff;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "no diff: {body}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(
        diff,
        json!([{ "file": "b.txt", "additions": 2, "deletions": 0 }])
    );
    let (status, body) = served
        .call("GET", &format!("/session/{id}/diff?messageID=msg_x"), None)
        .await;
    assert_eq!(status, 400, "{body}");
    let (status, _) = served.call("GET", "/session/ses_none/diff", None).await;
    assert_eq!(status, 404);
}
