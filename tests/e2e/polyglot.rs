//! JavaScript and Python plugins end to end: the examples and hostile plugins are built
//! by the real `ward plugin build` (componentize-js, componentize-py), installed in a
//! project, and run through `ward tool call` and through the agent loop (`ward run`
//! against the scripted model); the hostile ones are refused what Rust components are
//! refused: files outside the grant, ungranted HTTP, the host's environment.

use serde_json::json;
use ward_tests::Project;
use ward_tests::http::TestServer;
use ward_tests::llm::{ScriptedLlm, Turn};

const WORD_COUNT: &str = "sdk/js/examples/word_count";
const SLUGIFY: &str = "sdk/python/examples/slugify";
const HOSTILE_JS: &str = "tests/polyglot/hostile-js";
const HOSTILE_PY: &str = "tests/polyglot/hostile-py";

/// A secret in the environment of every `ward` these tests run.
const SECRET: &str = "WARD_POLYGLOT_SECRET";

/// `ward tool call NAME ARGS` in `p`; (success, stdout + stderr).
fn tool_call(p: &Project, name: &str, args: serde_json::Value) -> (bool, String) {
    let out = p
        .ward()
        .args(["tool", "call", "--yes", name, &args.to_string()])
        .env(SECRET, "hunter2")
        .output()
        .expect("run ward tool call");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn javascript_word_count_runs_through_tool_call() {
    let p = Project::new("js-tool");
    p.install_built_plugin(WORD_COUNT);
    let (ok, out) = tool_call(&p, "word_count", json!({"text": "one two\nthree"}));
    assert!(ok, "{out}");
    assert_eq!(out.trim(), "2 lines, 3 words, 13 characters");
    let (ok, out) = tool_call(&p, "word_count", json!({"text": ""}));
    assert!(ok, "{out}");
    assert_eq!(out.trim(), "0 lines, 0 words, 0 characters");
    let json_out = p
        .run(
            &["tool", "call", "--json", "word_count", r#"{"text": "a b"}"#],
            "",
        )
        .expect_ok();
    let v: serde_json::Value = serde_json::from_str(json_out.trim()).expect("json output");
    assert_eq!(v["title"], "2 words");
    assert_eq!(v["metadata"]["words"], 2);
}

/// `ward plugin build` compiles the component into the cache sessions use, so the first
/// call of a freshly built JavaScript plugin (about 12 MB of Wasm, seconds to compile)
/// loads compiled code and compiles nothing.
#[test]
fn a_built_javascript_plugin_compiles_nothing_at_its_first_call() {
    let b = ward_tests::polyglot::built(WORD_COUNT);
    let from_build = ward_tests::compiled_in(&b.cache);
    assert_eq!(
        from_build.len(),
        1,
        "the build compiled the plugin: {from_build:?}"
    );
    let p = Project::new("js-precompiled");
    p.install_built_plugin(WORD_COUNT);
    let cache = p.data.join("cache-from-build");
    ward_tests::polyglot::copy_tree(&b.cache, &cache);
    let stamped = |cache: &std::path::Path| -> Vec<(String, std::time::SystemTime)> {
        ward_tests::compiled_in(cache)
            .into_iter()
            .map(|f| {
                let at = std::fs::metadata(&f).and_then(|m| m.modified());
                (f, at.expect("artifact time"))
            })
            .collect()
    };
    let compiled = stamped(&cache);
    let start = std::time::Instant::now();
    let out = p
        .ward()
        .env("WARD_CACHE_DIR", &cache)
        .args(["tool", "call", "--yes", "word_count", r#"{"text": "a b"}"#])
        .output()
        .expect("run ward tool call");
    let took = start.elapsed();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text.trim(), "1 lines, 2 words, 3 characters");
    // A compile would have written a second artifact (or rewritten this one).
    assert_eq!(stamped(&cache), compiled);
    assert!(took < std::time::Duration::from_secs(3), "{took:?}");
}

#[test]
fn python_slugify_runs_through_tool_call() {
    let p = Project::new("py-tool");
    p.install_built_plugin(SLUGIFY);
    let (ok, out) = tool_call(&p, "slugify", json!({"text": "Héllo, Wörld! Ça va?"}));
    assert!(ok, "{out}");
    assert_eq!(out.trim(), "hello-world-ca-va");
    // Arguments that do not match the schema the plugin declared never reach it.
    let (ok, out) = tool_call(&p, "slugify", json!({}));
    assert!(!ok, "{out}");
    assert!(
        out.contains("invalid arguments for `slugify`: \"text\" is a required property"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_and_python_tools_run_through_the_loop() {
    let p = Project::new("polyglot-loop");
    p.install_built_plugin(WORD_COUNT);
    p.install_built_plugin(SLUGIFY);
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "call_1",
            "word_count",
            json!({"text": "to be or not to be"}),
        ),
        Turn::tool("call_2", "slugify", json!({"text": "To Be, or Not to Be"})),
        Turn::text("Counted and slugged."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let run = p
        .run_async(&["run", "--yes", "count and slug this"], "")
        .await;
    let out = run.expect_ok();
    assert!(out.contains("Counted and slugged."), "{out}");
    let requests = llm.requests();
    assert_eq!(requests.len(), 3, "one request per step");
    let tools = requests[0].body["tools"].to_string();
    assert!(
        tools.contains("word_count") && tools.contains("slugify"),
        "both tools are offered to the model: {tools}"
    );
    let second = requests[1].body.to_string();
    assert!(
        second.contains("1 lines, 6 words, 18 characters"),
        "the JavaScript tool's output went back to the model: {second}"
    );
    let third = requests[2].body.to_string();
    assert!(
        third.contains("to-be-or-not-to-be"),
        "the Python tool's output went back to the model: {third}"
    );
}

/// A project with a file inside it and a secret just outside it.
fn hostile_project(name: &str, plugin: &str) -> Project {
    let p = Project::new(name);
    p.install_built_plugin(plugin);
    let grant = if plugin == HOSTILE_JS {
        "hostile-js"
    } else {
        "hostile-py"
    };
    p.write(
        "ward.toml",
        &format!("[plugins.{grant}]\ngrant = [\"fs-read\"]\n"),
    );
    p.write("inside.txt", "inside the workspace\n");
    std::fs::write(p.root.parent().unwrap().join("outside.txt"), "TOP SECRET").unwrap();
    p
}

#[test]
fn python_cannot_read_outside_its_grant() {
    let p = hostile_project("py-paths", HOSTILE_PY);
    let root = p.root.display().to_string();
    // Inside the grant, reading works: the refusals below are the sandbox's doing.
    let (ok, out) = tool_call(&p, "py_read", json!({"path": format!("{root}/inside.txt")}));
    assert!(ok && out.contains("inside the workspace"), "{out}");
    for path in [
        "/etc/passwd".to_string(),
        format!("{root}/../outside.txt"),
        "../outside.txt".to_string(),
        "/proc/self/environ".to_string(),
    ] {
        let (ok, out) = tool_call(&p, "py_read", json!({"path": path}));
        assert!(!ok, "{path} was read: {out}");
        assert!(
            !out.contains("TOP SECRET") && !out.contains("root:"),
            "{path}: {out}"
        );
        assert!(
            out.contains("Error"),
            "{path}: a Python error, not a crash: {out}"
        );
    }
    let (ok, out) = tool_call(&p, "py_list", json!({"path": "/"}));
    assert!(
        !out.contains("etc") && !out.contains("outside.txt"),
        "listing / shows the host: {ok} {out}"
    );
}

#[test]
fn python_sees_no_host_environment() {
    let p = hostile_project("py-env", HOSTILE_PY);
    let (ok, out) = tool_call(&p, "py_env", json!({}));
    assert!(ok, "{out}");
    assert!(!out.contains("hunter2") && !out.contains(SECRET), "{out}");
    assert!(!out.contains("HOME") && !out.contains("PATH"), "{out}");
}

#[test]
fn javascript_sees_no_host_environment() {
    let p = hostile_project("js-env", HOSTILE_JS);
    let (ok, out) = tool_call(&p, "js_env", json!({}));
    assert!(ok, "{out}");
    assert!(!out.contains("hunter2") && !out.contains(SECRET), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_network_without_a_net_grant_is_refused() {
    let server = TestServer::start().await;
    let url = format!("{}/hello", server.base);
    let p = hostile_project("py-net", HOSTILE_PY);
    let p = &p;
    // Raw sockets (urllib): refused inside the component, nothing reaches the server.
    let (ok, out) =
        tokio::task::block_in_place(|| tool_call(p, "py_urllib", json!({"url": url.clone()})));
    assert!(!ok, "urllib fetched: {out}");
    assert!(!out.contains("hello\n") && out.contains("Error"), "{out}");
    // The host's http-fetch: no `net` grant, refused by the host.
    let (ok, out) =
        tokio::task::block_in_place(|| tool_call(p, "py_http_fetch", json!({"url": url.clone()})));
    assert!(!ok, "http-fetch fetched: {out}");
    assert!(!out.contains("fetched"), "{out}");
    assert_eq!(server.hits(), 0, "a refused request reached the server");
    let audit = std::fs::read_to_string(p.data.join("audit.log")).unwrap_or_default();
    assert!(
        audit.contains("hostile-py"),
        "the refusal is audited: {audit}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_network_without_a_net_grant_is_refused() {
    let server = TestServer::start().await;
    let url = format!("{}/hello", server.base);
    let p = hostile_project("js-net", HOSTILE_JS);
    let p = &p;
    // The engine's fetch: built without `wasi:http`, StarlingMonkey traps when it is
    // called, so the call fails as a crash (and never reaches the network).
    let (ok, out) =
        tokio::task::block_in_place(|| tool_call(p, "js_fetch", json!({"url": url.clone()})));
    assert!(!out.contains("fetch was called"), "{out}");
    assert!(
        (ok && out.contains("refused: there is no fetch")) || out.contains("crashed"),
        "{out}"
    );
    // The host's http-fetch: no `net` grant, refused by the host.
    let (ok, out) =
        tokio::task::block_in_place(|| tool_call(p, "js_http_fetch", json!({"url": url.clone()})));
    assert!(ok && out.contains("refused:"), "{out}");
    assert!(!out.contains("fetched"), "{out}");
    assert_eq!(server.hits(), 0, "a refused request reached the server");
}
