//! The `ward` binary's plugin, permission and models commands, bad input, the compiled
//! cache and environment grants, all through the real CLI.

use ward_tests::Project;

#[test]
fn plugin_list_shows_tools_capabilities_and_status() {
    let p = Project::new("list");
    p.install_test_plugin("hostile");
    p.install_test_plugin("future-api");
    p.write(
        "ward.toml",
        "[plugins.hostile]\ngrant = [\"fs-read\", \"exec:git *\", \"env:NOT_ASKED\"]\n",
    );
    let out = p.run(&["plugin", "list"], "").expect_ok();
    // Built-ins are there with their tools.
    for tool in [
        "read",
        "write",
        "edit",
        "glob",
        "grep",
        "list",
        "bash",
        "webfetch",
        "todowrite",
        "apply_patch",
    ] {
        assert!(
            out.contains(&format!("tools:     {tool}")),
            "missing {tool}:\n{out}"
        );
    }
    let hostile = out
        .split("\n\n")
        .find(|b| b.starts_with("hostile "))
        .expect("hostile listed");
    assert!(hostile.contains("(project, tool)"), "{hostile}");
    assert!(hostile.contains("requested: fs-read"), "{hostile}");
    assert!(
        hostile.contains("net [*]"),
        "requested net shown: {hostile}"
    );
    let granted = hostile
        .lines()
        .find(|l| l.trim_start().starts_with("granted:"))
        .unwrap();
    assert!(
        granted.contains("fs-read") && granted.contains("exec [git *]"),
        "{granted}"
    );
    assert!(!granted.contains("net"), "net was not granted: {granted}");
    assert!(
        hostile.contains("ignored grant `env:NOT_ASKED`"),
        "{hostile}"
    );
    let future = out
        .split("\n\n")
        .find(|b| b.starts_with("future-api "))
        .expect("future-api listed");
    assert!(
        future.contains("status:    error") && future.contains("ward:plugin@0.9.0"),
        "{future}"
    );
}

#[test]
fn permission_explain_names_the_rule_and_shadowed_denies() {
    let p = Project::new("explain");
    p.write(
        "ward.toml",
        "[permission]\nread = { \"*.env\" = \"deny\", \"*\" = \"allow\" }\n",
    );
    let out = p
        .run(&["permission", "explain", "read", "prod.env"], "")
        .expect_ok();
    assert!(out.contains("decision: allow"), "{out}");
    assert!(
        out.contains("warning: deny rule `read *.env = deny` from ")
            && out.contains("/ward.toml:2:10 is shadowed by `read * = allow` from ")
            && out.contains("/ward.toml:2:28\n"),
        "each rule is named by the file, line and column it was written at: {out}"
    );
    let out = p
        .run(&["permission", "explain", "write", "src/a.rs"], "")
        .expect_ok();
    assert!(
        out.starts_with("edit src/a.rs"),
        "write is governed by `edit`: {out}"
    );
}

#[test]
fn a_bad_manifest_is_reported_with_its_location_and_the_rest_still_works() {
    let p = Project::new("badmanifest");
    let dir = p.path(".ward/plugins/broken");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("plugin.toml"),
        "[plugin]\nname = \"broken\"\nversion = 1\n",
    )
    .unwrap();
    p.write("a.txt", "fine");
    let run = p.run(&["tool", "call", "read", r#"{"filePath": "a.txt"}"#], "");
    assert!(run.stdout().contains("1: fine"), "{}", run.stdout());
    let err = run.stderr();
    assert!(err.contains("broken/plugin.toml:3:11"), "{err}");
}

#[test]
fn a_bad_config_is_one_clear_located_error() {
    let p = Project::new("badconfig");
    p.write(
        "ward.toml",
        "model = \"a/b\"\n[permisions]\nedit = \"ask\"\n",
    );
    let err = p.run(&["tool", "list"], "").expect_err();
    assert!(err.contains("ward.toml:2:2"), "{err}");
    assert!(err.contains("permisions"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");

    p.write("ward.toml", "[permission]\nedit = \"maybe\"\n");
    let err = p.run(&["tool", "list"], "").expect_err();
    assert!(err.contains("edit") && err.contains("maybe"), "{err}");
}

#[test]
fn a_tampered_cache_entry_is_recompiled_not_loaded() {
    let mut p = Project::new("tamper");
    // Its own cache: this test corrupts it.
    p.cache = p.data.join("cache/components");
    p.install_test_plugin("noop");
    let first = p.run(&["tool", "call", "noop", "{}"], "").expect_ok();
    assert_eq!(first.trim(), "ok");
    let cache = p.data.join("cache/components");
    let artifacts: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cwasm"))
        .collect();
    assert!(
        !artifacts.is_empty(),
        "the first run cached compiled artifacts"
    );
    for a in &artifacts {
        let mut bytes = std::fs::read(a).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0xff;
        std::fs::write(a, &bytes).unwrap();
    }
    let again = p.run(&["tool", "call", "noop", "{}"], "").expect_ok();
    assert_eq!(again.trim(), "ok");
    let audit = std::fs::read_to_string(p.data.join("audit.log")).unwrap();
    assert!(
        audit.contains("artifact seal mismatch; recompiled"),
        "{audit}"
    );
    // The entry was rewritten with a valid seal: a third run loads it without complaint.
    let before = audit.lines().count();
    p.run(&["tool", "call", "noop", "{}"], "").expect_ok();
    let audit = std::fs::read_to_string(p.data.join("audit.log")).unwrap();
    assert_eq!(audit.lines().count(), before, "{audit}");
}

#[test]
fn only_granted_environment_variables_are_visible() {
    let p = Project::new("envgrant");
    p.install_test_plugin("hostile");
    let run = |grant: &str| {
        p.write(
            "ward.toml",
            &format!("[plugins.hostile]\ngrant = [{grant}]\n"),
        );
        let mut cmd = p.ward();
        cmd.args(["tool", "call", "env", "{}"])
            .env("WARD_GRANTED_VAR", "granted-value")
            .env("AWS_SECRET_ACCESS_KEY", "should-never-leak");
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let none = run("");
    assert!(
        !none.contains("granted-value")
            && !none.contains("should-never-leak")
            && !none.contains("PATH="),
        "{none}"
    );
    let some = run("\"env:WARD_GRANTED_VAR\"");
    assert!(some.contains("WARD_GRANTED_VAR=granted-value"), "{some}");
    assert!(
        !some.contains("should-never-leak") && !some.contains("HOME="),
        "{some}"
    );
}

#[test]
fn a_scaffolded_rust_plugin_builds_and_loads() {
    let p = Project::new("scaffold");
    let plugins = p.path(".ward/plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    let mut new = p.ward();
    new.current_dir(&plugins)
        .args(["plugin", "new", "--lang", "rust", "hello-world"]);
    let out = new.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Reuse the workspace's wasm build directory (same dependency versions) and stay
    // offline, so the build costs seconds, not a fresh dependency compile.
    let wasm_target = ward_tests::ward_binary()
        .parent()
        .and_then(|d| d.parent())
        .map(|t| t.join("wasm"))
        .unwrap();
    let mut build = p.ward();
    build
        .args(["plugin", "build", ".ward/plugins/hello-world"])
        .env("CARGO_TARGET_DIR", &wasm_target)
        .env("CARGO_NET_OFFLINE", "true");
    let out = build.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = std::fs::read_to_string(plugins.join("hello-world/plugin.toml")).unwrap();
    assert!(manifest.contains("sha256 = \""), "{manifest}");

    let out = p
        .run(&["tool", "call", "hello_world", r#"{"name": "Ada"}"#], "")
        .expect_ok();
    assert_eq!(out.trim(), "Hello, Ada!");
    let err = p
        .run(&["tool", "call", "hello_world", r#"{"nom": "Ada"}"#], "")
        .expect_err();
    // The host checks the arguments against the tool's schema before the plugin runs.
    assert!(
        err.contains("invalid arguments for `hello_world`: \"name\" is a required property"),
        "{err}"
    );
    let listed = p.run(&["plugin", "list"], "").expect_ok();
    assert!(
        listed.contains("hello-world 0.1.0 (project, tool)"),
        "{listed}"
    );
}

#[test]
fn models_lists_limits_and_prices_and_marks_what_config_changed() {
    let p = Project::new("models");
    p.write(
        "ward.toml",
        "model = \"local/qwen\"\n\
         [provider.anthropic.models.claude-sonnet-4]\ncost = { input = 2 }\n\
         [provider.local]\nbase_url = \"http://127.0.0.1:9/v1\"\n\
         [provider.local.models.qwen]\ncontext = 32768\noutput = 4096\n",
    );
    let models = |args: &[&str]| {
        let out = p
            .ward()
            .arg("models")
            .args(args)
            .env("ANTHROPIC_API_KEY", "sk-test")
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap();
        ward_tests::Run(out)
    };
    let out = models(&[]).expect_ok();
    for header in [
        "anthropic (configured)  anthropic  https://api.anthropic.com/v1  key: ANTHROPIC_API_KEY (set)",
        "google  openai-chat  https://generativelanguage.googleapis.com/v1beta/openai",
        "local (configured)  openai-chat  http://127.0.0.1:9/v1  key: none",
        "openai  openai-responses  https://api.openai.com/v1  key: OPENAI_API_KEY (not set)",
    ] {
        assert!(out.contains(header), "missing `{header}`:\n{out}");
    }
    let row = |id: &str| -> Vec<String> {
        out.lines()
            .map(|l| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .find(|cols| cols.first().is_some_and(|c| c == id))
            .unwrap_or_else(|| panic!("no row for {id}:\n{out}"))
    };
    // Columns: model, context, input, output, then $/M input, output, cache read, cache write.
    assert_eq!(
        row("claude-sonnet-4"),
        [
            "claude-sonnet-4",
            "200000",
            "-",
            "64000",
            "2.00",
            "15.00",
            "0.30",
            "3.75",
            "reasoning",
            "attachments",
            "overridden"
        ]
    );
    assert_eq!(
        row("gpt-5")[..8],
        [
            "gpt-5", "400000", "272000", "128000", "1.25", "10.00", "0.125", "0.00"
        ]
    );
    assert_eq!(
        row("qwen"),
        [
            "qwen", "32768", "-", "4096", "0.00", "0.00", "0.00", "0.00", "config", "default"
        ]
    );

    let out = models(&["openai"]).expect_ok();
    assert!(
        out.starts_with("openai ") && !out.contains("claude"),
        "{out}"
    );
    let err = models(&["nope"]).expect_err();
    assert!(err.contains("unknown provider `nope`"), "{err}");

    // An override that no longer fits is reported where it was written.
    p.write(
        "ward.toml",
        "[provider.openai.models.gpt-4o]\ncontext = 1000\n",
    );
    let err = models(&[]).expect_err();
    assert!(
        err.contains("ward.toml:2:1: the output limit of 16384 tokens"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}

#[test]
fn the_first_run_of_the_standard_tools_compiles_nothing() {
    let p = Project::new("first-run");
    p.write("a.txt", "hello\n");
    let cache = p.data.join("fresh-cache");
    let run = |args: &[&str]| {
        let out = p
            .ward()
            .env("WARD_CACHE_DIR", &cache)
            .args(args)
            .output()
            .expect("run ward");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let start = std::time::Instant::now();
    let listed = run(&["tool", "list"]);
    assert!(
        listed.contains("read") && listed.contains("bash"),
        "{listed}"
    );
    // What the standard plugins declare came with the binary: listing them loaded no
    // component, so nothing was learned to cache (a load would cache their tool lists).
    let entries: Vec<String> = std::fs::read_dir(&cache)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != ".key")
        .collect();
    assert_eq!(entries, Vec::<String>::new());
    let out = run(&["tool", "call", "read", r#"{"filePath":"a.txt"}"#]);
    assert!(out.contains("hello"), "{out}");
    run(&["tool", "call", "grep", r#"{"pattern":"hell"}"#]);
    // The tools came precompiled inside the binary: nothing was compiled into the cache
    // (a compile would have written its artifact there) ...
    assert_eq!(ward_tests::compiled_in(&cache), Vec::<String>::new());
    // ... and no compile took its seconds (a debug build, on a loaded machine).
    assert!(
        start.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_config_names_without_declaring_it_is_listed_everywhere_with_limits_unknown() {
    let p = Project::new("models-undeclared");
    p.write(
        "ward.toml",
        "model = \"local/qwen-coder\"\n\
         [provider.local]\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key = \"k\"\n",
    );
    // `ward models`: its row, limits unknown and said so.
    let out = p.run(&["models", "local"], "").expect_ok();
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("qwen-coder "))
        .unwrap_or_else(|| panic!("qwen-coder listed:\n{out}"));
    assert!(row.contains("undeclared: limits unknown"), "{row}");
    assert!(row.contains("default"), "{row}");
    // The API every client's model picker reads (OpenCode's `/config/providers`).
    let served = crate::serve::Served::start(&p, &[], &[]).await;
    let (status, body) = served.call("GET", "/config/providers", None).await;
    assert_eq!(status, 200, "{body}");
    let providers: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let local = providers["providers"]
        .as_array()
        .and_then(|all| all.iter().find(|p| p["id"] == "local"))
        .unwrap_or_else(|| panic!("local listed: {body}"));
    assert_eq!(local["models"]["qwen-coder"]["id"], "qwen-coder", "{body}");
    assert_eq!(providers["default"]["local"], "qwen-coder", "{body}");
}
