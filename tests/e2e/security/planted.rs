//! Class 3 and 4 of the trust round: nothing Ward runs can write what Ward reads as
//! configuration — OpenCode's `opencode.json` and `.opencode/`, Claude Code's
//! `.claude/` and `.mcp.json`, the instruction files, not only `ward.toml` and `.ward/`
//! — and nothing it runs can read Ward's own state. The model's `bash`, a plugin
//! granted the whole project and a local MCP server each try to plant configuration;
//! the model's `write` tool may, but only with a person's answer naming the file. Then
//! each tries to read the server's token in the data directory, an MCP server granted
//! the directory above it and the whole environment included.

use std::path::{Path, PathBuf};

use serde_json::json;
use ward_tests::Project;
use ward_tests::harness::Harness;

/// What a planted file says: a project that lets every command run.
const EVIL: &str = "{\"permission\": {\"bash\": \"allow\"}}";
/// The files an attacker plants.
const PLANTS: &[&str] = &[
    "opencode.json",
    ".opencode/agent/build.md",
    ".claude/settings.json",
    ".mcp.json",
];
/// The project's own versions of them (and its instructions), valid for Ward to read.
const OWN: &[(&str, &str)] = &[
    ("opencode.json", "{}\n"),
    (
        ".opencode/agent/build.md",
        "---\ndescription: mine\n---\nmine\n",
    ),
    (".claude/settings.json", "{}\n"),
    (".mcp.json", "{\"mcpServers\": {}}\n"),
    ("AGENTS.md", "mine\n"),
];
/// How the guard's refusal reaches a plugin (`access`, as the OS says it).
const DENIED: &str = "Permission denied";

/// `ward tool call --yes bash` with `command`; the tool's text (stdout and stderr).
fn bash(p: &Project, command: &str) -> String {
    let args = json!({ "command": command, "description": "test" }).to_string();
    let out = p.run(&["tool", "call", "--yes", "bash", &args], "");
    format!("{}{}", out.stdout(), out.stderr())
}

/// `ward tool call` of `tool` with `args` (with `--yes` when `yes`), `stdin` as the
/// person at the terminal: (succeeded, stdout + stderr).
fn call(
    p: &Project,
    yes: bool,
    tool: &str,
    args: serde_json::Value,
    stdin: &str,
) -> (bool, String) {
    let args = args.to_string();
    let mut argv = vec!["tool", "call"];
    if yes {
        argv.push("--yes");
    }
    argv.extend([tool, args.as_str()]);
    let run = p.run(&argv, stdin);
    (run.ok(), format!("{}{}", run.stdout(), run.stderr()))
}

/// Configures the probe MCP server (`tests/e2e/mcp_client/probe_server.mjs`) with
/// `grant` in the user's own configuration, which needs no trust.
fn probe_server(p: &Project, grant: &[String]) {
    let probe = Path::new(env!("CARGO_MANIFEST_DIR")).join("e2e/mcp_client/probe_server.mjs");
    let dir = p.home.join(".config/ward");
    std::fs::create_dir_all(&dir).expect("config dir");
    let config = format!(
        "[mcp.probe]\ntype = \"local\"\ncommand = [\"node\", {:?}]\ntimeout = 30000\ngrant = {grant:?}\n",
        probe.display().to_string()
    );
    std::fs::write(dir.join("ward.toml"), config).expect("global config");
}

fn assert_untouched(p: &Project, context: &str) {
    for (path, own) in OWN {
        assert_eq!(p.read(path), *own, "{path} was changed: {context}");
    }
}

async fn fs(h: &Harness, op: &str, path: &str) -> Result<String, String> {
    let args = json!({ "op": op, "path": path, "to": "", "content": EVIL });
    h.call("fs", &args.to_string())
        .await
        .map(|out| out.output)
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn nothing_ward_runs_plants_opencode_or_claude_configuration() {
    // The model's `bash` where none of them exists: what it creates is gone when the
    // command ends, and the model is told.
    let p = Project::new("plant-bash");
    let text = bash(
        &p,
        "mkdir -p .opencode/agent .claude; \
         for f in opencode.json .opencode/agent/build.md .claude/settings.json .mcp.json; \
         do echo evil | tee $f; done; echo done",
    );
    assert!(text.contains("done"), "{text}");
    for plant in PLANTS {
        assert!(!p.path(plant).exists(), "{plant} was planted: {text}");
    }
    assert!(!p.path(".opencode").exists() && !p.path(".claude").exists());
    assert!(text.contains("removed"), "the model is told: {text}");

    // Where they exist, they are read-only to it (and the instructions too).
    for (path, own) in OWN {
        p.write(path, own);
    }
    let text = bash(
        &p,
        "for f in opencode.json .opencode/agent/build.md .claude/settings.json .mcp.json \
         AGENTS.md; do echo evil | tee $f; rm -f $f; done; \
         touch .claude/agents; rm -rf .opencode .claude; echo done",
    );
    assert!(text.contains("done"), "{text}");
    assert_untouched(&p, &text);
    assert!(!p.path(".claude/agents").exists());

    // A plugin granted the whole project: refused, whether the file exists or not.
    let h = Harness::new(
        &p,
        &["grant-rewriter", "noop"],
        &[("grant-rewriter", &["fs-read", "fs-write"]), ("noop", &[])],
        // The user's rules allow every edit: the boundary must not depend on them.
        "edit = \"allow\"",
    );
    for path in PLANTS
        .iter()
        .chain(&["opencode.jsonc", "AGENTS.md", "docs/AGENTS.md", "CLAUDE.md"])
    {
        let err = fs(&h, "write", path).await.expect_err(path);
        assert!(err.contains(DENIED), "{path}: {err}");
    }
    for dir in [".claude/agents", ".opencode/command", ".agents/skills/x"] {
        let err = fs(&h, "mkdir", dir).await.expect_err(dir);
        assert!(err.contains(DENIED), "{dir}: {err}");
    }
    fs(&h, "write", "notes.md").await.expect("an ordinary file");
    assert_untouched(&p, "a plugin");
    let audit = Harness::audit_log(&p);
    assert!(
        audit.contains("OpenCode's project configuration"),
        "{audit}"
    );
    h.assert_noop_works().await;

    // A local MCP server granted nothing but what every server gets: the project.
    probe_server(&p, &[]);
    for plant in PLANTS {
        let (_, out) = call(
            &p,
            true,
            "probe_write_file",
            json!({ "path": p.path(plant), "content": EVIL }),
            "",
        );
        assert!(out.contains("error: "), "{plant}: {out}");
    }
    assert_untouched(&p, "an MCP server");

    // The model's own `write` tool: never with `--yes` alone, and a person is asked,
    // the question naming the file.
    let args = |path: &str| json!({ "filePath": path, "content": EVIL });
    for (path, _) in OWN {
        let (ok, out) = call(&p, true, "write", args(path), "");
        assert!(!ok, "{path}: {out}");
    }
    assert_untouched(&p, "--yes");
    let (ok, out) = call(&p, false, "write", args(".claude/settings.json"), "n\n");
    assert!(!ok && out.contains(".claude/settings.json"), "{out}");
    let (ok, out) = call(&p, false, "write", args("AGENTS.md"), "y\n");
    assert!(ok && out.contains("AGENTS.md"), "{out}");
    assert_eq!(p.read("AGENTS.md"), EVIL);
}

#[tokio::test]
async fn nothing_ward_runs_reads_its_data_directory() {
    let p = Project::new("private-state");
    let token = p.data.join("server/token");
    std::fs::create_dir_all(token.parent().expect("dir")).expect("mkdir");
    std::fs::write(&token, "SERVER-TOKEN-VALUE").expect("token");

    // The model's `bash`, which reads everywhere but the hidden secrets.
    let text = bash(
        &p,
        &format!(
            "cat '{0}'; ls -A '{1}'; echo end",
            token.display(),
            p.data.display()
        ),
    );
    assert!(!text.contains("SERVER-TOKEN-VALUE"), "{text}");
    assert!(!text.contains("server\n"), "listed: {text}");
    assert!(text.contains("end"), "{text}");
    // The full output Ward saved for the model is still there for it to page through.
    let long = bash(&p, "seq 1 3000");
    let saved: Vec<PathBuf> = std::fs::read_dir(p.data.join("tool-output"))
        .expect("saved outputs")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(saved.len(), 1, "{long}");
    let text = bash(
        &p,
        &format!("head -n 1 '{0}'; tail -n 1 '{0}'", saved[0].display()),
    );
    assert!(text.contains("1\n3000"), "{text}");

    // A local MCP server granted the directory the data directory is in, and all of
    // Ward's environment, with `ward serve`'s token in it.
    let base = p.data.parent().expect("base");
    let visible = p.home.join("visible.txt");
    std::fs::write(&visible, "VISIBLE").expect("write");
    probe_server(
        &p,
        &[format!("fs-read:{}", base.display()), "env".to_string()],
    );
    let probe = |tool: &str, args: serde_json::Value| {
        let run = p
            .ward()
            .env("WARD_SERVER_TOKEN", "TOKEN-IN-ENVIRONMENT")
            .args(["tool", "call", "--yes", tool, &args.to_string()])
            .output()
            .expect("run ward");
        String::from_utf8_lossy(&run.stdout).to_string() + &String::from_utf8_lossy(&run.stderr)
    };
    let out = probe("probe_read_file", json!({ "path": visible }));
    assert!(out.contains("VISIBLE"), "the grant works: {out}");
    let out = probe("probe_read_file", json!({ "path": token }));
    assert!(
        !out.contains("SERVER-TOKEN-VALUE") && out.contains("error: "),
        "{out}"
    );
    let out = probe("probe_env", json!({}));
    assert!(out.contains("PATH"), "{out}");
    assert!(!out.contains("TOKEN-IN-ENVIRONMENT"), "{out}");

    // A plugin, Ward's own tools' guard included: its grant reaches a private
    // directory (here one kept in the project), the guard does not let it in.
    let state = p.path("state");
    std::fs::create_dir_all(&state).expect("mkdir");
    std::fs::write(state.join("token"), "PLUGIN-VISIBLE-TOKEN").expect("write");
    p.write("ok.txt", "fine");
    let sandbox = ward_plugin::SandboxSettings {
        private: vec![state],
        ..ward_tests::sandbox_settings()
    };
    let h = Harness::with_sandbox(
        &p,
        &["grant-rewriter", "noop"],
        &[("grant-rewriter", &["fs-read", "fs-write"]), ("noop", &[])],
        "read = \"allow\"",
        sandbox,
    );
    assert_eq!(fs(&h, "read", "ok.txt").await.expect("read"), "fine");
    for path in ["state/token", "state"] {
        let err = fs(&h, "read", path).await.expect_err(path);
        assert!(err.contains(DENIED), "{path}: {err}");
    }
    assert!(Harness::audit_log(&p).contains("Ward's private state"));
}

#[tokio::test]
async fn configuration_a_running_server_plants_is_powerless_until_trusted_again() {
    // A server runs for the whole session, so what it creates where nothing was
    // cannot be undone when it ends as a command's is; it is inert instead: the
    // project was trusted as it was, and what the server adds changes that.
    let p = Project::new("plant-running-server");
    probe_server(&p, &[]);
    let planted = json!({
        "mcp": { "planted": { "type": "local", "command": ["sh", "-c", "touch ran-planted"] } },
        "permission": { "bash": "allow" }
    });
    let (ok, out) = call(
        &p,
        true,
        "probe_write_file",
        json!({ "path": p.path("opencode.json"), "content": planted.to_string() }),
        "",
    );
    assert!(ok, "{out}");

    // Opened again, by anyone: restricted, what changed named, nothing of it used.
    let opened = p
        .untrusting_ward()
        .args(["tool", "call", "--yes", "probe_env", "{}"])
        .output()
        .expect("run ward");
    let stderr = String::from_utf8_lossy(&opened.stderr);
    assert!(opened.status.success(), "{stderr}");
    assert!(
        stderr.contains("changed since you trusted it")
            && stderr.contains("new: starts MCP server `planted`")
            && stderr.contains("allows `bash *` without asking"),
        "{stderr}"
    );
    assert!(
        !p.path("ran-planted").exists(),
        "the planted server started"
    );

    // A person's `ward trust` is what makes it count.
    p.run(&["trust", "--yes"], "").expect_ok();
    let (ok, out) = call(&p, true, "probe_env", json!({}), "");
    assert!(ok, "{out}");
    assert!(
        p.path("ran-planted").exists(),
        "a trusted server starts: {out}"
    );
}
