//! The standard tools end to end: each runs through the real `ward tool call` on a
//! temporary project, and the tests check the file system afterwards, not just output.

use ward_tests::Project;
use ward_tests::http::TestServer;

fn call(p: &Project, tool: &str, args: serde_json::Value) -> String {
    p.run(&["tool", "call", "--yes", tool, &args.to_string()], "")
        .expect_ok()
}

fn call_err(p: &Project, tool: &str, args: serde_json::Value) -> String {
    p.run(&["tool", "call", "--yes", tool, &args.to_string()], "")
        .expect_err()
}

#[test]
fn read_numbers_lines_pages_and_refuses_binaries() {
    let p = Project::new("read");
    p.write("notes.txt", "alpha\nbeta\ngamma\ndelta\n");
    let out = call(&p, "read", serde_json::json!({"filePath": "notes.txt"}));
    assert!(
        out.contains("1: alpha") && out.contains("4: delta"),
        "{out}"
    );
    let out = call(
        &p,
        "read",
        serde_json::json!({"filePath": "notes.txt", "offset": 2, "limit": 2}),
    );
    assert!(out.contains("2: beta") && out.contains("3: gamma"), "{out}");
    assert!(!out.contains("alpha") && !out.contains("delta"), "{out}");

    std::fs::write(p.path("blob.bin"), [0u8, 159, 146, 150, 0, 1, 2]).unwrap();
    let err = call_err(&p, "read", serde_json::json!({"filePath": "blob.bin"}));
    assert!(err.to_lowercase().contains("binary"), "{err}");

    p.write("dir/one.txt", "1");
    std::fs::create_dir_all(p.path("dir/sub")).unwrap();
    let out = call(&p, "read", serde_json::json!({"filePath": "dir"}));
    assert!(out.contains("one.txt") && out.contains("sub/"), "{out}");

    let err = call_err(&p, "read", serde_json::json!({"filePath": "notes.tx"}));
    assert!(err.contains("notes.txt"), "a suggestion is offered: {err}");
}

#[test]
fn read_cuts_long_files_and_lines() {
    let p = Project::new("read-long");
    let long_line = "x".repeat(3000);
    let body: String = (1..=2500)
        .map(|i| {
            if i == 7 {
                format!("{long_line}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    p.write("big.txt", &body);
    let out = call(&p, "read", serde_json::json!({"filePath": "big.txt"}));
    assert!(
        out.contains("2000: line 2000"),
        "default limit is 2000 lines"
    );
    assert!(!out.contains("2001: line 2001"));
    assert!(!out.contains(&long_line), "a 3000-char line is cut at 2000");
}

#[test]
fn write_creates_files_and_directories() {
    let p = Project::new("write");
    call(
        &p,
        "write",
        serde_json::json!({"filePath": "src/deep/new.rs", "content": "fn main() {}\n"}),
    );
    assert_eq!(p.read("src/deep/new.rs"), "fn main() {}\n");
    call(
        &p,
        "write",
        serde_json::json!({"filePath": "src/deep/new.rs", "content": "// replaced\n"}),
    );
    assert_eq!(p.read("src/deep/new.rs"), "// replaced\n");
}

#[test]
fn edit_replaces_exactly_fuzzily_or_not_at_all() {
    let p = Project::new("edit");
    p.write("lib.rs", "fn a() {\n    let x = 1;\n    let y = 2;\n}\n");
    call(
        &p,
        "edit",
        serde_json::json!({"filePath": "lib.rs", "oldString": "let x = 1;", "newString": "let x = 10;"}),
    );
    assert_eq!(
        p.read("lib.rs"),
        "fn a() {\n    let x = 10;\n    let y = 2;\n}\n"
    );

    // Wrong indentation in oldString still finds the block (indentation-flexible).
    call(
        &p,
        "edit",
        serde_json::json!({
            "filePath": "lib.rs",
            "oldString": "let x = 10;\nlet y = 2;",
            "newString": "let x = 3;\nlet y = 4;"
        }),
    );
    assert!(
        p.read("lib.rs").contains("let x = 3;") && p.read("lib.rs").contains("let y = 4;"),
        "{}",
        p.read("lib.rs")
    );

    let before = p.read("lib.rs");
    let err = call_err(
        &p,
        "edit",
        serde_json::json!({"filePath": "lib.rs", "oldString": "nowhere", "newString": "x"}),
    );
    assert!(err.contains("not found"), "{err}");
    assert_eq!(p.read("lib.rs"), before, "a failed edit changes nothing");

    p.write("dup.txt", "a\na\n");
    let err = call_err(
        &p,
        "edit",
        serde_json::json!({"filePath": "dup.txt", "oldString": "a", "newString": "b"}),
    );
    assert!(
        err.to_lowercase().contains("multiple") || err.contains("more context"),
        "{err}"
    );
    call(
        &p,
        "edit",
        serde_json::json!({"filePath": "dup.txt", "oldString": "a", "newString": "b", "replaceAll": true}),
    );
    assert_eq!(p.read("dup.txt"), "b\nb\n");
}

#[test]
fn glob_grep_and_list_find_what_is_there() {
    let p = Project::new("search");
    p.write("src/main.rs", "fn main() { needle(); }\n");
    p.write("src/util/mod.rs", "pub fn needle() {}\n");
    p.write("docs/readme.txt", "no match here\n");
    p.write("node_modules/pkg/index.rs", "needle\n");

    let out = call(&p, "glob", serde_json::json!({"pattern": "**/*.rs"}));
    assert!(
        out.contains("src/main.rs") && out.contains("src/util/mod.rs"),
        "{out}"
    );
    assert!(
        !out.contains("readme.txt") && !out.contains("node_modules"),
        "{out}"
    );

    let out = call(
        &p,
        "grep",
        serde_json::json!({"pattern": "needle\\(", "include": "*.rs"}),
    );
    assert!(out.contains("main.rs") && out.contains("Line 1"), "{out}");
    assert!(out.contains("mod.rs"), "{out}");
    assert!(!out.contains("node_modules"), "{out}");

    let out = call(&p, "list", serde_json::json!({}));
    assert!(
        out.contains("src/") && out.contains("docs/") && out.contains("main.rs"),
        "{out}"
    );
    assert!(!out.contains("node_modules"), "{out}");
}

#[test]
fn bash_runs_in_the_project_and_reports_failures() {
    let p = Project::new("bash");
    call(
        &p,
        "bash",
        serde_json::json!({"command": "echo made > made.txt && ls", "description": "make a file"}),
    );
    assert_eq!(p.read("made.txt"), "made\n");
    let out = p.run(
        &[
            "tool",
            "call",
            "--yes",
            "bash",
            &serde_json::json!({"command": "echo oops >&2; exit 3", "description": "fail"})
                .to_string(),
        ],
        "",
    );
    let text = format!("{}{}", out.stdout(), out.stderr());
    assert!(text.contains("oops") && text.contains('3'), "{text}");
}

#[test]
fn apply_patch_adds_updates_and_deletes() {
    let p = Project::new("patch");
    p.write("keep.txt", "one\ntwo\nthree\n");
    p.write("gone.txt", "bye\n");
    let patch = "*** Begin Patch\n*** Add File: new/hello.txt\n+hello\n+world\n*** Update File: keep.txt\n@@\n one\n-two\n+TWO\n three\n*** Delete File: gone.txt\n*** End Patch";
    call(&p, "apply_patch", serde_json::json!({"patchText": patch}));
    assert_eq!(p.read("new/hello.txt"), "hello\nworld\n");
    assert_eq!(p.read("keep.txt"), "one\nTWO\nthree\n");
    assert!(!p.path("gone.txt").exists());

    // A patch whose context does not match changes nothing at all.
    let bad = "*** Begin Patch\n*** Add File: other.txt\n+x\n*** Update File: keep.txt\n@@\n-nope\n+x\n*** End Patch";
    call_err(&p, "apply_patch", serde_json::json!({"patchText": bad}));
    assert!(
        !p.path("other.txt").exists(),
        "validation happens before any file changes"
    );
}

#[test]
fn todowrite_returns_the_list() {
    let p = Project::new("todo");
    let out = call(
        &p,
        "todowrite",
        serde_json::json!({"todos": [
            {"content": "write tests", "status": "in_progress", "priority": "high", "id": "1"},
            {"content": "ship", "status": "pending", "priority": "low", "id": "2"}
        ]}),
    );
    assert!(out.contains("write tests") && out.contains("ship"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webfetch_fetches_a_granted_host() {
    let server = TestServer::start().await;
    let p = Project::new("webfetch");
    p.write(
        "ward.toml",
        &format!("[plugins.webfetch]\ngrant = [\"net:{}\"]\n", server.base),
    );
    let url = format!("{}/hello", server.base);
    let out = tokio::task::spawn_blocking(move || {
        let out = call(
            &p,
            "webfetch",
            serde_json::json!({"url": url, "format": "text"}),
        );
        drop(p);
        out
    })
    .await
    .unwrap();
    assert!(out.contains("hello"), "{out}");
    assert_eq!(server.hits(), 1);
}

#[test]
fn bad_arguments_name_the_field() {
    let p = Project::new("badargs");
    let err = call_err(&p, "read", serde_json::json!({"path": "x"}));
    assert!(err.contains("filePath") || err.contains("path"), "{err}");
    let err = call_err(
        &p,
        "edit",
        serde_json::json!({"filePath": "x", "oldString": 3, "newString": "y"}),
    );
    assert!(
        err.contains("oldString") || err.contains("invalid type"),
        "{err}"
    );
    let err = p.run(&["tool", "call", "read", "[1,2]"], "").expect_err();
    assert!(err.contains("expected a JSON object"), "{err}");
    let err = p
        .run(&["tool", "call", "nosuchtool", "{}"], "")
        .expect_err();
    assert!(
        err.contains("unavailable tool 'nosuchtool'") && err.contains("read"),
        "{err}"
    );
}

#[test]
fn permission_answers_on_the_terminal() {
    let p = Project::new("asks");
    p.write(
        "ward.toml",
        "[permission]\nedit = \"ask\"\nread = { \"*\" = \"allow\", \"secret/*\" = \"deny\" }\n",
    );
    p.write("secret/key.txt", "hunter2");

    // Rejected with feedback: nothing written, the feedback reaches the caller.
    let args = serde_json::json!({"filePath": "a.txt", "content": "x"}).to_string();
    let err = p
        .run(&["tool", "call", "write", &args], "n use b.txt instead\n")
        .expect_err();
    assert!(err.contains("use b.txt instead"), "{err}");
    assert!(!p.path("a.txt").exists());

    // Approved once: written.
    p.run(&["tool", "call", "write", &args], "y\n").expect_ok();
    assert_eq!(p.read("a.txt"), "x");

    // No answer (end of input) is a rejection.
    let args2 = serde_json::json!({"filePath": "c.txt", "content": "x"}).to_string();
    p.run(&["tool", "call", "write", &args2], "").expect_err();
    assert!(!p.path("c.txt").exists());

    // A deny rule: the tool never runs, the error names the rule.
    let err = p
        .run(
            &[
                "tool",
                "call",
                "--yes",
                "read",
                &serde_json::json!({"filePath": "secret/key.txt"}).to_string(),
            ],
            "",
        )
        .expect_err();
    assert!(
        err.contains("secret/*") && !err.contains("hunter2"),
        "{err}"
    );
}

#[test]
fn long_command_output_keeps_its_tail_and_the_whole_is_saved() {
    let p = Project::new("bash-long");
    let out = call(
        &p,
        "bash",
        serde_json::json!({"command": "seq 1 3000", "description": "count"}),
    );
    assert!(out.contains("...1000 lines truncated..."), "{out}");
    assert!(
        out.contains("\n1001\n") && out.contains("\n3000\n"),
        "{out}"
    );
    assert!(!out.contains("\n1000\n"), "the head is cut: {out}");
    let saved: Vec<std::path::PathBuf> = std::fs::read_dir(p.data.join("tool-output"))
        .expect("saved outputs")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(
        out.contains(&saved[0].display().to_string()),
        "the hint names it: {out}"
    );
    let whole = std::fs::read_to_string(&saved[0]).expect("read saved");
    assert_eq!(whole.lines().count(), 3000);
    assert!(whole.starts_with("1\n2\n"));

    // A configured limit applies; a short output is left alone and saves nothing.
    p.write("ward.toml", "[tool_output]\nmax_lines = 10\n");
    let out = call(
        &p,
        "bash",
        serde_json::json!({"command": "seq 1 20", "description": "count"}),
    );
    assert!(out.contains("...10 lines truncated...\n\n11\n"), "{out}");
    let out = call(
        &p,
        "bash",
        serde_json::json!({"command": "seq 1 5", "description": "count"}),
    );
    assert_eq!(out.trim(), "1\n2\n3\n4\n5");
    let count = std::fs::read_dir(p.data.join("tool-output"))
        .expect("dir")
        .count();
    assert_eq!(count, 2);
}
