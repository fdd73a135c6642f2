//! `expand` end to end: arguments, shell output through a fake callback, and
//! file references.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

use std::sync::{Arc, Mutex};

use ward_command::{BoxFuture, CommandInfo, CommandSource, Expanded, ShellFn, expand};

fn command(template: &str) -> CommandInfo {
    CommandInfo {
        name: "t".to_string(),
        description: None,
        agent: None,
        model: None,
        subtask: false,
        template: template.to_string(),
        source: CommandSource::Builtin,
    }
}

fn no_shell() -> impl Fn(String) -> BoxFuture<'static, Result<String, String>> + Send + Sync {
    |line: String| -> BoxFuture<'static, Result<String, String>> {
        Box::pin(async move { Err(format!("unexpected shell call: {line}")) })
    }
}

async fn text(template: &str, arguments: &str) -> String {
    expand(&command(template), arguments, &no_shell(), &[])
        .await
        .text
}

#[tokio::test]
async fn whole_arguments() {
    assert_eq!(
        text("Fix $ARGUMENTS now", "  the bug  ").await,
        "Fix the bug now"
    );
    assert_eq!(text("Fix $ARGUMENTS.", "").await, "Fix .");
    assert_eq!(
        text("[$ARGUMENTS] [$ARGUMENTS]", r#""a b" c"#).await,
        r#"["a b" c] ["a b" c]"#
    );
}

#[tokio::test]
async fn positional_arguments() {
    assert_eq!(text("$1 and $2", "one two").await, "one and two");
    assert_eq!(text("$2 before $1", "one two").await, "two before one");
    assert_eq!(
        text("file=$1 dir=$2", r#""my file.txt" src"#).await,
        "file=my file.txt dir=src"
    );
}

#[tokio::test]
async fn the_highest_placeholder_takes_the_rest() {
    assert_eq!(
        text("first=$1 rest=$2", "arg1 arg2 arg3 arg4").await,
        "first=arg1 rest=arg2 arg3 arg4"
    );
    assert_eq!(text("all=$1", r#"a "b c" d"#).await, "all=a b c d");
    // Only the highest placeholder swallows; earlier ones stay single words,
    // even when repeated.
    assert_eq!(text("$1 $3 $1", "a b c d").await, "a c d a");
}

#[tokio::test]
async fn missing_arguments_become_empty() {
    assert_eq!(text("<$1><$2><$3>", "only").await, "<only><><>");
    assert_eq!(text("<$1>", "").await, "<>");
    // `$0` and a lone `$` are not placeholders, so the arguments are appended.
    assert_eq!(text("cost $0 and $ x", "a").await, "cost $0 and $ x\n\na");
}

#[tokio::test]
async fn arguments_are_appended_when_the_template_has_no_placeholder() {
    assert_eq!(
        text("Do the thing.", " focus on tests ").await,
        "Do the thing.\n\nfocus on tests"
    );
    assert_eq!(text("Do the thing.\n", "").await, "Do the thing.");
}

#[tokio::test]
async fn arguments_are_not_expanded_again() {
    assert_eq!(
        text("<$1> <$2>", "$2 $ARGUMENTS").await,
        "<$2> <$ARGUMENTS>"
    );
    // An argument cannot introduce a shell command.
    assert_eq!(
        text("say $ARGUMENTS", "!`rm -rf /`").await,
        "say !`rm -rf /`"
    );
}

/// A fake shell that records the commands it was given.
fn recording_shell(
    log: Arc<Mutex<Vec<String>>>,
) -> impl Fn(String) -> BoxFuture<'static, Result<String, String>> + Send + Sync {
    move |line: String| -> BoxFuture<'static, Result<String, String>> {
        let log = Arc::clone(&log);
        Box::pin(async move {
            let count = {
                let mut log = log.lock().expect("lock");
                log.push(line.clone());
                log.len()
            };
            // Later calls finish sooner: order must still follow the template.
            tokio::time::sleep(std::time::Duration::from_millis(30 / count as u64)).await;
            match line.as_str() {
                "false" => Err("exit status 1\n".to_string()),
                _ => Ok(format!("<{count}: {line}>\n\n")),
            }
        })
    }
}

#[tokio::test]
async fn shell_commands_run_in_order_and_failures_become_notes() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let shell = recording_shell(Arc::clone(&log));
    let template = "Status:\n!`git status`\nLog of $1: !`git log $1` then !`false` end";
    let expanded = expand(&command(template), "main", &shell, &[]).await;
    assert_eq!(
        expanded.text,
        "Status:\n<1: git status>\nLog of main: <2: git log main> then \
         [command failed: `false`: exit status 1] end"
    );
    assert_eq!(
        *log.lock().expect("lock"),
        ["git status", "git log main", "false"]
    );
}

#[tokio::test]
async fn empty_shell_commands_are_not_run() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let shell = recording_shell(Arc::clone(&log));
    let expanded = expand(&command("x !`$1` y !`` z"), "", &shell, &[]).await;
    assert_eq!(
        expanded.text,
        "x [command failed: the command is empty] y !`` z"
    );
    assert!(log.lock().expect("lock").is_empty());
}

#[tokio::test]
async fn file_references() {
    let template = "Read @src/lib.rs and @docs/guide.md.\nAsk @general, mail dev@example.com, \
                    see `@not/this` and @src/lib.rs again.\n$ARGUMENTS";
    let expanded: Expanded = expand(
        &command(template),
        "also @tests/x.rs and @explore",
        &no_shell(),
        &["general", "explore"],
    )
    .await;
    assert_eq!(
        expanded.files,
        ["src/lib.rs", "docs/guide.md", "tests/x.rs"]
    );
    assert!(
        expanded
            .text
            .starts_with("Read @src/lib.rs and @docs/guide.md."),
        "text kept as written"
    );
}

#[tokio::test]
async fn shell_output_is_not_scanned_for_files() {
    let shell = |_: String| -> BoxFuture<'static, Result<String, String>> {
        Box::pin(async { Ok("by @someone on @main.rs".to_string()) })
    };
    let expanded = expand(&command("Log: !`git log` and @real.rs"), "", &shell, &[]).await;
    assert_eq!(expanded.text, "Log: by @someone on @main.rs and @real.rs");
    assert_eq!(expanded.files, ["real.rs"]);
}

#[test]
fn the_expansion_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let info = command("x");
    let shell = no_shell();
    let shell: &ShellFn<'_, String> = &shell;
    let future = expand(&info, "", shell, &[]);
    assert_send(&future);
}
