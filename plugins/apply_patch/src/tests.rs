//! Unit tests of `apply_patch` on temporary directories.

use super::*;
use ward_tool_common::testing::TempDir;

fn apply_text(dir: &str, patch: &str) -> Result<Output, ToolError> {
    execute(dir, &plan(dir, patch)?)
}

fn message(result: Result<Output, ToolError>) -> String {
    match result {
        Err(ToolError::Failed(m) | ToolError::InvalidArguments(m) | ToolError::Denied(m)) => m,
        Ok(out) => panic!("expected an error, got {}", out.output),
    }
}

#[test]
fn adds_updates_moves_and_deletes() -> std::io::Result<()> {
    let t = TempDir::new("patch")?;
    t.write("src/app.py", "def greet():\n    print(\"Hi\")\n\ngreet()\n")?;
    t.write("obsolete.txt", "bye\n")?;
    let out = apply_text(
        &t.dir(),
        "*** Begin Patch
*** Add File: docs/hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-    print(\"Hi\")
+    print(\"Hello, world!\")
*** Delete File: obsolete.txt
*** End Patch",
    )
    .map_err(std::io::Error::other)?;
    assert_eq!(
        out.output,
        "Success. Updated the following files:\nA docs/hello.txt\nM src/main.py\nD obsolete.txt"
    );
    assert_eq!(out.title, "3 files");
    assert_eq!(t.read("docs/hello.txt")?, "Hello world\n");
    assert_eq!(
        t.read("src/main.py")?,
        "def greet():\n    print(\"Hello, world!\")\n\ngreet()\n"
    );
    assert!(!t.path().join("src/app.py").exists());
    assert!(!t.path().join("obsolete.txt").exists());
    let diff = out.metadata["diff"].as_str().unwrap_or_default();
    assert!(diff.contains("+    print(\"Hello, world!\")"), "{diff}");
    assert_eq!(out.metadata["files"][1]["type"], "move");
    Ok(())
}

#[test]
fn nothing_is_written_when_any_operation_fails() -> std::io::Result<()> {
    let t = TempDir::new("patch-atomic")?;
    t.write("a.txt", "one\n")?;
    let msg = message(apply_text(
        &t.dir(),
        "*** Begin Patch
*** Add File: new.txt
+x
*** Update File: a.txt
@@
-two
+2
*** End Patch",
    ));
    assert!(
        msg.starts_with("apply_patch verification failed: Failed to find expected lines in a.txt"),
        "{msg}"
    );
    assert!(!t.path().join("new.txt").exists());
    assert_eq!(t.read("a.txt")?, "one\n");
    Ok(())
}

#[test]
fn missing_files_and_bad_syntax_are_errors() -> std::io::Result<()> {
    let t = TempDir::new("patch-missing")?;
    let update = message(apply_text(
        &t.dir(),
        "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch",
    ));
    assert!(update.contains("cannot update nope.txt: file not found"));
    let delete = message(apply_text(
        &t.dir(),
        "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch",
    ));
    assert!(delete.contains("cannot delete nope.txt: file not found"));
    let syntax = plan(&t.dir(), "*** Add File: x\n+a");
    assert!(matches!(syntax, Err(ToolError::InvalidArguments(_))));
    Ok(())
}

#[test]
fn later_operations_see_earlier_ones() -> std::io::Result<()> {
    let t = TempDir::new("patch-seq")?;
    let out = apply_text(
        &t.dir(),
        "*** Begin Patch
*** Add File: f.txt
+a
+b
*** Update File: f.txt
@@
 a
-b
+c
*** End Patch",
    )
    .map_err(std::io::Error::other)?;
    assert_eq!(t.read("f.txt")?, "a\nc\n");
    assert_eq!(
        out.output,
        "Success. Updated the following files:\nA f.txt\nM f.txt"
    );
    Ok(())
}

#[test]
fn context_matching_tolerates_whitespace() -> std::io::Result<()> {
    let t = TempDir::new("patch-fuzzy")?;
    t.write("w.rs", "fn f() {\n    let x = 1;   \n}\n")?;
    apply_text(
        &t.dir(),
        "*** Begin Patch\n*** Update File: w.rs\n@@ fn f() {\n-    let x = 1;\n+    let x = 2;\n }\n*** End Patch",
    )
    .map_err(std::io::Error::other)?;
    assert_eq!(t.read("w.rs")?, "fn f() {\n    let x = 2;\n}\n");
    Ok(())
}

#[test]
fn absolute_paths_work_and_single_file_title() -> std::io::Result<()> {
    let t = TempDir::new("patch-abs")?;
    let patch = format!(
        "*** Begin Patch\n*** Add File: {}/abs.txt\n+z\n*** End Patch",
        t.dir()
    );
    let out = apply_text(&t.dir(), &patch).map_err(std::io::Error::other)?;
    assert_eq!(out.title, "abs.txt");
    assert_eq!(t.read("abs.txt")?, "z\n");
    Ok(())
}
