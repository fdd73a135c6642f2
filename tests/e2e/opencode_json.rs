//! An OpenCode project's `opencode.json` works in Ward unchanged: a project
//! written the way OpenCode's documentation shows (provider, permission, agent,
//! command, mcp, plus `.opencode/agent` and `.opencode/command` files) runs
//! through `ward run` against the scripted LLM; a conflicting `ward.toml` wins,
//! and `ward permission explain` / `ward config show` name the file and line of
//! each deciding value; malformed JSONC is a located error and an unknown key a
//! located warning.

use std::path::PathBuf;

use serde_json::{Value, json};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, text_parts, tool_names};

/// `@modelcontextprotocol/server-everything`, installed by `scripts/setup.sh`.
fn everything_server() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "clients/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(
        path.is_file(),
        "{} is missing: run scripts/setup.sh",
        path.display()
    );
    path.display().to_string()
}

/// `opencode.json` as OpenCode's documentation writes one, pointing its
/// provider at the scripted LLM.
fn opencode_json(llm: &ScriptedLlm) -> String {
    format!(
        r#"{{
  "$schema": "https://opencode.ai/config.json",
  // The provider, as OpenCode's "custom provider" docs show it.
  "provider": {{
    "scripted": {{
      "npm": "@ai-sdk/openai-compatible",
      "name": "Scripted",
      "options": {{
        "baseURL": "{base}/v1",
        "apiKey": "{{file:secrets/key.txt}}"
      }},
      "models": {{
        "test-model": {{ "name": "Test", "limit": {{ "context": 32000, "output": 1024 }} }}
      }}
    }}
  }},
  "model": "scripted/test-model",
  "permission": {{
    "edit": "ask",
    "bash": {{
      "*": "ask",
      "rm *": "deny",
      "echo *": "allow"
    }}
  }},
  "agent": {{
    "auditor": {{
      "description": "Audits the code",
      "mode": "primary",
      "prompt": "You audit code. AUDITOR-PROMPT",
      "tools": {{ "edit": false }}
    }}
  }},
  "command": {{
    "audit": {{
      "template": "Audit $ARGUMENTS carefully.",
      "description": "Audit a path",
      "agent": "auditor"
    }}
  }},
  "mcp": {{
    "everything": {{
      "type": "local",
      "command": ["node", "{server}", "stdio"],
      "enabled": true,
      "timeout": 30000
    }}
  }},
  "share": "disabled",
}}
"#,
        base = llm.base_url,
        server = everything_server(),
    )
}

/// The project, its OpenCode files and its markdown agents and commands.
fn opencode_project(name: &str, llm: &ScriptedLlm) -> Project {
    let p = Project::new(name);
    p.write("opencode.json", &opencode_json(llm));
    p.write("secrets/key.txt", "test-key\n");
    p.write(
        ".opencode/agent/docs.md",
        "---\ndescription: Writes documentation\nmode: subagent\n---\nYou write docs.\n",
    );
    p.write(
        ".opencode/command/ship.md",
        "---\ndescription: Ship the release\nagent: auditor\n---\nPrepare release $ARGUMENTS.\n",
    );
    p
}

/// What the model was told about call `id`.
fn tool_result(body: &Value, id: &str) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .map(|m| m["content"].to_string())
        .unwrap_or_else(|| panic!("no result for {id}: {body}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opencode_project_runs_unchanged() {
    let llm = ScriptedLlm::start(vec![
        Turn::tool("c1", "everything_echo", json!({"message": "from opencode"})),
        Turn::tool(
            "c2",
            "bash",
            json!({"command": "rm keep.txt", "description": "delete"}),
        ),
        Turn::tool(
            "c3",
            "bash",
            json!({"command": "echo allowed-by-opencode", "description": "echo"}),
        ),
        Turn::text("Audited."),
    ])
    .await;
    let p = opencode_project("oc-json-run", &llm);
    p.write("keep.txt", "precious");

    let agents = p.run(&["agent", "list"], "").expect_ok();
    assert!(
        agents.contains("auditor") && agents.contains("Audits the code"),
        "{agents}"
    );
    assert!(
        agents.contains("docs") && agents.contains("Writes documentation"),
        "{agents}"
    );
    let commands = p.run(&["command", "list"], "").expect_ok();
    assert!(
        commands.contains("/audit") && commands.contains("opencode.json:"),
        "{commands}"
    );
    assert!(commands.contains("/ship"), "{commands}");

    // No `--yes`: `bash *` asks in opencode.json, so only the allow and deny rules
    // decide without a person; there is none to answer here.
    let run = p.run_async(&["run", "/audit src"], "").await;
    let out = run.expect_ok();
    assert!(out.contains("Audited."), "{out}{}", run.stderr());
    assert!(
        !run.stderr().contains("warning"),
        "nothing to warn about: {}",
        run.stderr()
    );

    let requests = llm.requests();
    assert_eq!(requests.len(), 4, "{requests:#?}");
    let first = &requests[0];
    // The provider's baseURL and apiKey ({file:…} substituted) are what Ward used.
    let authorization = first
        .headers
        .iter()
        .find(|(name, _)| name == "authorization");
    assert_eq!(
        authorization.map(|(_, value)| value.as_str()),
        Some("Bearer test-key")
    );
    assert_eq!(first.body["model"], "test-model");
    assert!(
        text_parts(&first.body, "user")
            .join("\n")
            .contains("Audit src carefully."),
        "the command's template"
    );
    assert!(
        text_parts(&first.body, "system")
            .join("\n")
            .contains("AUDITOR-PROMPT"),
        "the command's agent ran it"
    );
    let offered = tool_names(&first.body);
    assert!(
        offered.iter().any(|t| t == "everything_echo"),
        "the MCP server's tools: {offered:?}"
    );
    assert!(
        !offered.iter().any(|t| t == "write"),
        "the agent's `write: false` holds: {offered:?}"
    );

    let echoed = tool_result(&requests[1].body, "c1");
    assert!(
        echoed.contains("Echo: from opencode"),
        "the MCP tool ran: {echoed}"
    );
    let denied = tool_result(&requests[2].body, "c2");
    assert!(
        denied.contains("rm * = deny"),
        "the deny rule decided: {denied}"
    );
    assert_eq!(
        p.read("keep.txt"),
        "precious",
        "the denied command never ran"
    );
    let echoed = tool_result(&requests[3].body, "c3");
    assert!(
        echoed.contains("allowed-by-opencode"),
        "the allow rule let it run: {echoed}"
    );
}

/// The 1-based line and column of `needle` in `text`.
fn position(text: &str, needle: &str) -> (usize, usize) {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in {text}"));
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = offset - before.rfind('\n').map_or(0, |nl| nl + 1) + 1;
    (line, column)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflicting_ward_toml_wins_and_every_value_names_its_file() {
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "c1",
            "bash",
            json!({"command": "echo hello", "description": "echo"}),
        ),
        Turn::text("Done."),
    ])
    .await;
    let p = opencode_project("oc-json-conflict", &llm);
    let ward_toml = "[permission]\nbash = { \"echo *\" = \"deny\" }\n[agent.auditor]\nprompt = \"Ward's auditor. WARD-PROMPT\"\n";
    p.write("ward.toml", ward_toml);
    let json = p.read("opencode.json");

    let run = p.run_async(&["run", "/audit src"], "").await;
    assert!(run.expect_ok().contains("Done."), "{}", run.stderr());
    let requests = llm.requests();
    let system = text_parts(&requests[0].body, "system").join("\n");
    assert!(
        system.contains("WARD-PROMPT") && !system.contains("AUDITOR-PROMPT"),
        "ward.toml's prompt wins: {system}"
    );
    let result = tool_result(&requests[1].body, "c1");
    assert!(
        result.contains("echo * = deny"),
        "ward.toml's deny decided: {result}"
    );

    let explain = p
        .run(&["permission", "explain", "bash", "echo hi"], "")
        .expect_ok();
    let ward_at = format!("/ward.toml:{}:{}", 2, position(ward_toml, "\"echo *\"").1);
    assert!(
        explain.contains("decision: deny by `bash echo * = deny` from ")
            && explain
                .lines()
                .any(|l| l.starts_with("decision:") && l.ends_with(&ward_at)),
        "the deciding rule names ward.toml's line: {explain}"
    );
    let (line, column) = position(&json, "\"*\": \"ask\"");
    assert!(
        explain.lines().any(|l| l.contains("`bash * = ask` from ")
            && l.ends_with(&format!("/opencode.json:{line}:{column}"))),
        "the earlier rule names opencode.json's line: {explain}"
    );
    assert!(
        !explain.contains("echo * = allow"),
        "opencode.json's rule for the same pattern is replaced: {explain}"
    );

    let show = p.run(&["config", "show"], "").expect_ok();
    let line_of = |key: &str| {
        show.lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("{key} not shown: {show}"))
            .to_owned()
    };
    assert!(
        line_of("agent.auditor.prompt").ends_with("/ward.toml:4:1"),
        "{show}"
    );
    let (line, column) = position(&json, "\"description\": \"Audits the code\"");
    assert!(
        line_of("agent.auditor.description").ends_with(&format!("/opencode.json:{line}:{column}")),
        "{show}"
    );
    let (line, column) = position(&json, "\"model\": \"scripted/test-model\"");
    assert!(
        line_of("model").ends_with(&format!("/opencode.json:{line}:{column}")),
        "{show}"
    );
    let (line, column) = position(&json, "\"baseURL\"");
    assert!(
        line_of("provider.scripted.base_url").ends_with(&format!("/opencode.json:{line}:{column}")),
        "{show}"
    );
    assert!(
        line_of("provider.scripted.api_key").contains("(hidden)"),
        "{show}"
    );
    assert!(!show.contains("test-key"), "the key is not printed: {show}");
    assert!(line_of("compaction.auto").ends_with("# default"), "{show}");
}

#[test]
fn malformed_jsonc_is_a_located_error() {
    let p = Project::new("oc-json-malformed");
    p.write(
        "opencode.json",
        "{\n  // fine so far\n  \"model\": \"a/b\",\n  \"permission\": { \"bash\": \"ask\" \"edit\": \"deny\" }\n}\n",
    );
    for args in [
        &["run", "hello"][..],
        &["config", "show"],
        &["agent", "list"],
    ] {
        let err = p.run(args, "").expect_err();
        assert!(
            err.contains("opencode.json:4:32: invalid JSON"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_keys_are_located_warnings_and_ward_still_runs() {
    let p = Project::new("oc-json-unknown");
    let llm = ScriptedLlm::start(vec![Turn::text("Still here.")]).await;
    llm.configure(&p, "openai-compatible");
    p.write(
        "opencode.jsonc",
        "{\n  \"frobnicate\": { \"level\": 3 },\n  \"plugin\": [\"opencode-helicone-session\"],\n  \"agent\": { \"build\": { \"reasoningEffort\": \"high\" } },\n}\n",
    );
    let run = p.run_async(&["run", "hello"], "").await;
    assert!(run.expect_ok().contains("Still here."), "{}", run.stderr());
    let err = run.stderr();
    for expected in [
        "opencode.jsonc:2:3: unknown key \"frobnicate\"",
        "opencode.jsonc:3:3: \"plugin\" loads JavaScript plugins unsandboxed; Ward does not run them",
        "opencode.jsonc:4:25: \"agent.build.reasoningEffort\" is not an agent setting Ward knows",
    ] {
        assert!(err.contains(expected), "{expected}: {err}");
    }
    assert_eq!(
        err.matches("frobnicate").count(),
        1,
        "one warning per key: {err}"
    );
}
