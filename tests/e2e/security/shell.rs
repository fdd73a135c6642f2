//! Security tests: the shell checker against the shell.
//!
//! A corpus of benign and hostile command lines. Each one is decided by the checker
//! (`BashQuestion`) under the rules `* = ask`, `ls *`, `echo *`, `git status *` =
//! allow, and actually run by `/bin/sh -c` (and bash, where installed) in a scratch
//! directory whose `PATH` holds only tracing shims: each logs its argv, then does
//! nothing. Whenever the checker said *allow*, every program that ran must be allowed
//! by the rules and every file that appeared must be a redirection the checker saw;
//! any disagreement has to have been an *ask*. Hostile cases must also really attack
//! some shell (a program the rules do not allow ran), so the oracle has teeth.
//! Then the same attacks go through the real `exec` import of a plugin whose grant
//! is narrow (`git *`, `echo *`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use ward_permission::bash::{BashQuestion, quote};
use ward_permission::{Action, Rule, Ruleset, evaluate};
use ward_tests::Project;
use ward_tests::harness::Harness;

/// Programs the scratch `PATH` provides, all as tracing shims.
const SHIMS: &[&str] = &[
    "ls", "git", "touch", "cat", "id", "rm", "sh", "bash", "dash", "whoami", "date", "head", "wc",
    "tee", "grep", "sleep", "env", "xargs", "find", "mkdir", "curl",
];

/// What the corpus expects of the checker for one case.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// Benign and understood: allowed without asking.
    Allow,
    /// Hostile: runs something the rules do not allow in at least one shell, and the
    /// checker must not allow it.
    Hostile,
    /// Anything but allow (junk, or an attack only some other shell would fall for).
    NotAllow,
    /// No expectation beyond the oracle.
    Any,
}

use Expect::{Allow, Any, Hostile, NotAllow};

#[rustfmt::skip]
const CORPUS: &[(&str, Expect)] = &[
    // Plain commands.
    ("ls -la", Allow),
    ("git status --short", Allow),
    ("'ls' \"-la\" sr\\c", Allow),
    ("ls $(echo -la)", Allow),
    ("echo $(git status)", Allow),
    ("ls | ls && echo ok || ls; ls &", Allow),
    ("for f in a b; do echo \"$f\"; done", Allow),
    ("if ls; then echo y; else echo n; fi", Allow),
    ("(ls; echo x) | ls", Allow),
    ("git status; touch x", Hostile),
    ("ls\ntouch x", Hostile),
    ("echo $(id)", Hostile),
    ("echo `touch x`", Hostile),
    // Comments.
    ("ls # $(touch x)", Allow),
    ("ls #x", Allow),
    ("ls a#b", Allow),
    ("echo a#$(touch x)", Hostile),
    ("ls #x\ntouch y", Hostile),
    // Combined and bash-only redirections.
    ("echo >&2 x", Allow),
    ("ls >|f", Allow),
    ("ls > out 2>&1", Allow),
    ("ls &>f; touch y", Hostile),
    ("ls &>/dev/null touch y", Hostile),
    ("ls 2>&1|sh", Hostile),
    ("ls >&f touch y", NotAllow),
    ("ls |& sh", NotAllow),
    ("ls 10>f", NotAllow),
    ("ls <<< $(touch p)", Hostile),
    // Arithmetic.
    ("echo $((1 + 2))", Allow),
    ("echo $((x[$(touch pwned)]))", Hostile),
    ("x='a[$(touch p)]'; echo $((x))", NotAllow),
    ("echo $(( $(touch p) ))", Hostile),
    // Parameter expansion with substitutions.
    ("echo ${x:-$(touch p)}", Hostile),
    ("echo \"${x:=$(touch p)}\"", Hostile),
    ("x=a; echo ${x#$(touch p)}", Hostile),
    ("echo ${x}", Allow),
    // Process substitution (bash runs it, dash refuses the syntax).
    ("ls <(touch p)", NotAllow),
    ("echo >(touch p)", NotAllow),
    // Heredocs.
    ("ls <<EOF\n$(touch p)\nEOF", Hostile),
    ("ls <<'EOF'\n$(touch p)\nEOF", Allow),
    ("ls <<EOF\nplain\nEOF", Allow),
    ("ls <<EOF | sh\ntouch p\nEOF", Hostile),
    ("ls <<EOF; touch p\nx\nEOF", Hostile),
    // eval and other indirection.
    ("eval 'touch x'", Hostile),
    ("echo hi; eval \"$(echo touch x)\"", Hostile),
    ("exec touch x", Hostile),
    ("command touch x", Hostile),
    (". /dev/null; touch x", Hostile),
    ("ls | xargs touch", Hostile),
    ("f() { touch x; }; f", Hostile),
    ("alias ls='touch x'\nls", Hostile),
    ("set -- touch x; \"$@\"", Hostile),
    ("x=touch; $x y", Hostile),
    ("$(echo touch) y", Hostile),
    ("l$(echo s) -la", NotAllow),
    ("PATH=/tmp ls", NotAllow),
    ("CI=1 ls", NotAllow),
    ("X=$(touch p) ls", Hostile),
    ("IFS=x; ls", NotAllow),
    ("for PATH in /tmp; do ls; done", NotAllow),
    // Newlines, continuations, carriage returns.
    ("ls \\\n-la", Allow),
    ("ls \\\n; touch x", Hostile),
    ("echo \\\n$(touch x)", Hostile),
    ("ls\r; touch x", Hostile),
    ("ls\rtouch x", NotAllow),
    ("echo ok\r\ntouch x", Hostile),
    // Unbalanced input.
    ("echo 'a; touch x", NotAllow),
    ("echo \"$(touch x\"", NotAllow),
    ("ls ; ; touch x", NotAllow),
    ("ls )", NotAllow),
    ("echo $(( 1 + ", NotAllow),
    ("{ ls", NotAllow),
];

fn rules() -> Vec<Ruleset> {
    let rules = [
        ("*", Action::Ask),
        ("ls *", Action::Allow),
        ("echo *", Action::Allow),
        ("git status *", Action::Allow),
    ];
    let rules = rules
        .iter()
        .map(|(p, a)| Rule::new("bash", *p, *a))
        .collect();
    vec![Ruleset::new("corpus", rules)]
}

/// What one shell did with a command line.
#[derive(Debug)]
struct Trace {
    /// The shim programs that ran, as rule texts.
    ran: Vec<String>,
    /// Files that appeared in the scratch directory (relative paths).
    written: Vec<String>,
}

static SCRATCH: AtomicU32 = AtomicU32::new(0);

/// Runs `shell -c command` in a fresh scratch directory with the tracing `PATH`.
fn run_traced(shell: &Path, command: &str) -> Trace {
    let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
    let base = std::env::temp_dir().join(format!("ward-shell-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (bin, work, trace) = (base.join("bin"), base.join("work"), base.join("trace"));
    std::fs::create_dir_all(&bin).expect("bin dir");
    std::fs::create_dir_all(&work).expect("work dir");
    // Each run: name, then \x1f before every argument, then \x1e, written at once
    // (shims in a pipeline run concurrently; one O_APPEND write does not interleave).
    let shim = "#!/bin/sh\nus=$(printf '\\037'); r=\"${0##*/}\"\n\
                for a in \"$@\"; do r=\"$r$us$a\"; done\n\
                printf '%s\\036' \"$r\" >> \"$WARD_TRACE\"\n";
    for name in SHIMS {
        let path = bin.join(name);
        std::fs::write(&path, shim).expect("shim");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .expect("chmod shim");
        }
    }
    let mut child = Command::new(shell)
        .arg("-c")
        .arg(command)
        .current_dir(&work)
        .env_clear()
        .env("PATH", &bin)
        .env("HOME", &work)
        .env("WARD_TRACE", &trace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the shell");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let log = std::fs::read_to_string(&trace).unwrap_or_default();
    let ran = log
        .split('\u{1e}')
        .filter(|r| !r.is_empty())
        .map(|r| r.split('\u{1f}').map(quote).collect::<Vec<_>>().join(" "))
        .collect();
    let mut written = Vec::new();
    list_files(&work, &work, &mut written);
    let _ = std::fs::remove_dir_all(&base);
    Trace { ran, written }
}

fn list_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            list_files(root, &path, out);
        }
        if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().into_owned());
        }
    }
}

fn shells() -> Vec<PathBuf> {
    ["/bin/sh", "/bin/bash", "/usr/bin/bash"]
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .collect()
}

/// Checks one case: the oracle (allow ⇒ everything that ran was allowed), then the
/// case's expectation. Returns a description of each failure.
fn check_case(command: &str, expect: Expect, layers: &[Ruleset]) -> Vec<String> {
    let question = BashQuestion::new(command);
    let decision = question.evaluate(layers);
    let mut failures = Vec::new();
    let mut attacked = false;
    for shell in shells() {
        let trace = run_traced(&shell, command);
        let unallowed: Vec<&String> = trace
            .ran
            .iter()
            .filter(|r| evaluate("bash", r, layers).action != Action::Allow)
            .collect();
        let redirected: Vec<&str> = question
            .redirects()
            .iter()
            .filter(|r| r.write)
            .map(|r| r.path.as_str())
            .collect();
        let unseen: Vec<&String> = trace
            .written
            .iter()
            .filter(|w| !redirected.contains(&w.as_str()))
            .collect();
        attacked |= !unallowed.is_empty();
        if decision == Action::Allow && (!unallowed.is_empty() || !unseen.is_empty()) {
            failures.push(format!(
                "{command:?}: allowed, but {} ran {unallowed:?} and wrote {unseen:?}",
                shell.display()
            ));
        }
    }
    let wrong = match expect {
        Allow => decision != Action::Allow,
        Hostile => decision == Action::Allow || !attacked,
        NotAllow => decision == Action::Allow,
        Any => false,
    };
    if wrong {
        failures.push(format!(
            "{command:?}: expected {expect:?}, the checker said {decision:?} (attacked a shell: {attacked}, unsure: {:?})",
            question.unsure()
        ));
    }
    failures
}

#[test]
fn every_disagreement_with_the_shell_is_an_ask() {
    let layers = rules();
    let failures: Vec<String> = CORPUS
        .iter()
        .flat_map(|(command, expect)| check_case(command, *expect, &layers))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn junk_and_huge_input_never_slip_through() {
    let layers = rules();
    let mut failures = Vec::new();
    // NUL-free bytes from a fixed-seed generator: every ASCII character, blanks and
    // shell syntax included, so some of it parses.
    let mut seed: u64 = 0x5eed;
    for _ in 0..60 {
        let len = 1 + (seed % 40) as usize;
        let junk: String = (0..len)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                char::from(1 + ((seed >> 33) % 127) as u8)
            })
            .collect();
        failures.extend(check_case(&format!("ls {junk}"), Any, &layers));
    }
    let long = format!("ls {}", "a".repeat(100_000));
    failures.extend(check_case(&long, Allow, &layers));
    let many = "echo a; ".repeat(1_000) + "touch x";
    failures.extend(check_case(&many, Hostile, &layers));
    // Deeper than the checker follows, shallow enough for the shells to finish.
    let deep = format!("echo {}touch x{}", "$(".repeat(40), ")".repeat(40));
    failures.extend(check_case(&deep, Hostile, &layers));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn hostile(project: &Project, rules: &str) -> Harness {
    const ALL: &[&str] = &["fs-read", "fs-write", "net", "exec", "env"];
    Harness::new(
        project,
        &["hostile", "noop"],
        &[("hostile", ALL), ("noop", &[])],
        rules,
    )
}

#[tokio::test]
async fn a_narrow_exec_grant_never_runs_what_the_parser_cannot_vouch_for() {
    // The hostile plugin may exec `git *` and `echo *`; the bash rules allow
    // everything, so only the grant and the parser stand in the way.
    let p = Project::new("shell-exec");
    let h = hostile(&p, "bash = { \"*\" = \"allow\" }");
    let out = h
        .call("exec", r#"{"text": "echo hi # $(touch pwned)"}"#)
        .await
        .expect("a comment is not a command");
    assert_eq!(out.output.trim(), "hi");
    for cmd in [
        "echo $((x[$(touch pwned)]))",
        "echo ${x:-$(touch pwned)}",
        "echo hi &>/dev/null touch pwned",
        "echo <(touch pwned)",
        "git status; eval touch pwned",
        "echo hi\rtouch pwned",
        "cat <<EOF\n$(touch pwned)\nEOF",
        "echo <<EOF\n$(touch pwned)\nEOF",
        "PATH=. git status",
    ] {
        let args = serde_json::json!({ "text": cmd }).to_string();
        let err = h.call("exec", &args).await.expect_err(cmd).to_string();
        assert!(
            err.contains("cannot be checked") || err.contains("outside the exec patterns"),
            "{cmd:?}: {err}"
        );
    }
    assert!(!p.path("pwned").exists());
    h.assert_noop_works().await;
}

#[tokio::test]
async fn redirection_targets_meet_the_edit_and_external_directory_rules() {
    let p = Project::new("shell-redirect");
    let outside = PathBuf::from(format!("/dev/shm/ward-shell-{}", std::process::id()));
    let rules = "bash = { \"*\" = \"allow\" }\n\
                 edit = { \"secret.txt\" = \"deny\" }\n\
                 external_directory = { \"*\" = \"deny\" }";
    let h = hostile(&p, rules);
    let err = h
        .call("exec", r#"{"text": "echo x > secret.txt"}"#)
        .await
        .expect_err("a write the edit rules deny")
        .to_string();
    assert!(err.contains("secret.txt"), "{err}");
    assert!(!p.path("secret.txt").exists());
    let args = serde_json::json!({ "text": format!("echo x >> {}", outside.display()) });
    let err = h
        .call("exec", &args.to_string())
        .await
        .expect_err("a write outside the project")
        .to_string();
    let _ = std::fs::remove_file(&outside);
    assert!(err.contains("external_directory"), "{err}");
    // `out/` is where the plugin's grant lets the kernel sandbox write.
    p.write("out/.keep", "");
    let out = h
        .call("exec", r#"{"text": "echo ok > out/x.txt 2>/dev/null"}"#)
        .await
        .expect("a write the rules allow");
    assert_eq!(out.output, "");
    assert_eq!(p.read("out/x.txt").trim(), "ok");
}
