//! Unit tests of the shell analysis and the decisions built on it.

use super::*;
use crate::rule::{Action, Rule, Ruleset};

/// The rule texts of an understood command; panics when the analysis is unsure.
fn texts(cmd: &str) -> Vec<String> {
    let a = analyze(cmd);
    assert_eq!(a.unsure, None, "{cmd:?} should be understood");
    a.commands.into_iter().map(|c| c.text).collect()
}

fn unsure(cmd: &str) -> Unsure {
    analyze(cmd)
        .unsure
        .unwrap_or_else(|| panic!("{cmd:?} should be unsure"))
}

#[test]
fn lists_and_pipelines() {
    assert_eq!(
        texts("cd x && make || echo fail; ls | wc -l\npwd & sleep 1"),
        ["cd x", "make", "echo fail", "ls", "wc -l", "pwd", "sleep 1"]
    );
    assert_eq!(texts("  git status  "), ["git status"]);
    assert!(texts("").is_empty());
    assert!(texts("  \n ").is_empty());
}

#[test]
fn quoting_is_removed_and_blanks_requoted() {
    assert_eq!(texts(r#"'ls' "-la" sr\c"#), ["ls -la src"]);
    assert_eq!(
        texts(r#"echo "a && b; c" | grep 'x|y'"#),
        ["echo 'a && b; c'", "grep 'x|y'"]
    );
    assert_eq!(texts(r#"echo "it's""#), [r"echo 'it'\''s'"]);
    assert_eq!(texts(r"echo a\;b; ls"), ["echo 'a;b'", "ls"]);
    assert_eq!(
        texts(r#"git commit -m "fix: x""#),
        ["git commit -m 'fix: x'"]
    );
    assert_eq!(texts("find . -name '*.rs'"), ["find . -name *.rs"]);
}

#[test]
fn comments_are_ignored_only_where_the_shell_ignores_them() {
    assert_eq!(texts("ls # $(touch x)"), ["ls"]);
    assert_eq!(texts("ls #x\nrm y"), ["ls", "rm y"]);
    assert_eq!(texts("ls a#b"), ["ls a#b"]);
    assert_eq!(texts("# only a comment"), Vec::<String>::new());
}

#[test]
fn redirections_are_files_or_duplications() {
    let a = analyze("make 2>&1 | tee log; ls >|f; cat <in >>out; ls >&- <rw");
    assert_eq!(a.unsure, None);
    let texts: Vec<_> = a.commands.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "make 2>&1",
            "tee log",
            "ls >|f",
            "cat <in >>out",
            "ls >&- <rw"
        ]
    );
    let files: Vec<_> = a
        .redirects
        .iter()
        .map(|r| (r.path.as_str(), r.write))
        .collect();
    assert_eq!(
        files,
        [("f", true), ("in", false), ("out", true), ("rw", false)]
    );
    // Words after a target are arguments, as the shell reads them.
    assert_eq!(texts_of("echo >&2 hi there"), ["echo hi there >&2"]);
    assert_eq!(texts_of("> /dev/null 2>&1 ls"), ["ls > /dev/null 2>&1"]);
}

fn texts_of(cmd: &str) -> Vec<String> {
    texts(cmd)
}

#[test]
fn bash_only_redirections_are_unsure() {
    // dash runs `ls &` and then `>f touch y`: a second command bash does not see.
    assert!(matches!(unsure("ls &>f touch y"), Unsure::Construct(_)));
    assert!(matches!(unsure("ls &>>f"), Unsure::Construct(_)));
    assert!(matches!(unsure("ls >&f"), Unsure::Construct(_)));
    assert!(matches!(unsure("cat <<< $(id)"), Unsure::Construct(_)));
    assert!(matches!(unsure("ls 10>f"), Unsure::Construct(_)));
    assert!(matches!(unsure("ls |& sh"), Unsure::Construct(_)));
    assert!(matches!(unsure("ls > $f"), Unsure::RedirectTarget(_)));
    assert!(matches!(
        unsure("ls > ~/.bashrc"),
        Unsure::RedirectTarget(_)
    ));
    assert!(matches!(
        unsure("cd /tmp && ls > x"),
        Unsure::RedirectTarget(_)
    ));
    assert_eq!(analyze("cd /tmp && ls > /tmp/x").unsure, None);
    assert!(matches!(unsure("> f"), Unsure::Construct(_)));
}

#[test]
fn substitutions_are_checked_inside() {
    assert_eq!(texts("echo $(rm -rf x)"), ["echo $(rm -rf x)", "rm -rf x"]);
    assert_eq!(
        texts(r#"echo "$(whoami; id)""#),
        [r#"echo "$(whoami; id)""#, "whoami", "id"]
    );
    assert_eq!(texts("echo `date` && ls"), ["echo `date`", "date", "ls"]);
    assert_eq!(
        texts("x=$(git rev-parse HEAD); git show $x"),
        ["git rev-parse HEAD", "git show $x"]
    );
    assert_eq!(
        texts("echo $((1 + (2 * 3))); ls"),
        ["echo $((1 + (2 * 3)))", "ls"]
    );
    assert_eq!(texts("echo '$(not run)' \\$x"), ["echo '$(not run)' '$x'"]);
    assert!(matches!(
        unsure(r"echo `echo \`id\``"),
        Unsure::Construct(_)
    ));
    assert!(matches!(
        unsure("echo $(< /etc/passwd)"),
        Unsure::Construct(_)
    ));
}

#[test]
fn expansions_that_can_run_code_are_unsure() {
    for cmd in [
        "echo ${x:-$(touch p)}",
        "echo ${x/a/b}",
        "echo $((x[$(touch pwned)]))",
        "echo $((x))",
        "diff <(ls a) <(ls b)",
        "ls >(cat)",
        "echo $'\\x41'",
        "echo $\"t\"",
        "[[ $x -eq 1 ]]",
        "((x++))",
        "a=(x y)",
    ] {
        assert!(matches!(unsure(cmd), Unsure::Construct(_)), "{cmd}");
    }
}

#[test]
fn heredocs_are_data_unless_expanded() {
    assert_eq!(texts("cat <<'EOF'\n$(touch p)\nEOF"), ["cat <<'EOF'"]);
    assert_eq!(texts("cat <<EOF\nplain\nEOF\nls"), ["cat <<EOF", "ls"]);
    assert!(matches!(
        unsure("cat <<EOF\n$(touch p)\nEOF"),
        Unsure::Construct(_)
    ));
    assert!(matches!(
        unsure("cat <<EOF | sh\nid\nEOF"),
        Unsure::Construct(_)
    ));
}

#[test]
fn indirection_assignments_and_computed_names_are_unsure() {
    for cmd in [
        "eval ls",
        ". ./x",
        "source x",
        "xargs rm",
        "exec ls",
        "command ls",
    ] {
        assert!(matches!(unsure(cmd), Unsure::Indirect(_)), "{cmd}");
    }
    assert!(matches!(unsure("printf -v PATH x"), Unsure::Indirect(_)));
    for cmd in [
        "PATH=/tmp ls",
        "IFS=x; ls",
        "for PATH in /tmp; do ls; done",
        "LD_PRELOAD=x.so ls",
        "A+=1 ls",
    ] {
        assert!(matches!(unsure(cmd), Unsure::Assignment(_)), "{cmd}");
    }
    for cmd in ["$x args", "l$(echo s)", "*s", "~/bin/x", "l{s,}"] {
        assert!(matches!(unsure(cmd), Unsure::ComputedName(_)), "{cmd}");
    }
    assert_eq!(unsure("{ls,-la}"), Unsure::Syntax);
    assert!(matches!(unsure("A=(1) ls"), Unsure::Construct(_)));
    assert!(matches!(unsure("f() { ls; }"), Unsure::Construct(_)));
    assert!(matches!(unsure("export A=1"), Unsure::Construct(_)));
    assert_eq!(
        texts("for f in *.rs; do wc -l \"$f\"; done"),
        [r#"wc -l "$f""#]
    );
}

#[test]
fn assignments_before_a_command_need_a_rule_of_their_own() {
    use Action::{Allow, Ask, Deny};
    let a = analyze("RUST_LOG=debug X=$(id) cargo test");
    assert_eq!(a.unsure, None);
    assert_eq!(a.commands[0].assignments, ["RUST_LOG=debug", "X=$(id)"]);
    assert_eq!(a.commands[0].text, "cargo test");
    assert_eq!(a.commands[1].text, "id");
    let q = BashQuestion::new("CI=1 cargo test");
    assert_eq!(q.patterns, ["CI=1 cargo test", "cargo test"]);
    assert_eq!(q.always, ["CI=1 cargo test", "cargo test *"]);
    let layers = rules(&[("cargo *", Allow), ("rm *", Deny)]);
    assert_eq!(q.evaluate(&layers), Ask);
    assert_eq!(BashQuestion::new("X=1 rm -rf y").evaluate(&layers), Deny);
    let layers = rules(&[("cargo *", Allow), ("CI=1 cargo *", Allow)]);
    assert_eq!(q.evaluate(&layers), Allow);
}

#[test]
fn compound_commands_run_their_bodies() {
    assert_eq!(texts("(cd x && rm y)"), ["cd x", "rm y"]);
    assert_eq!(texts("{ rm a; rm b; }"), ["rm a", "rm b"]);
    assert_eq!(
        texts("if grep -q x f; then rm y; elif ls; then :; else echo n; fi"),
        ["grep -q x f", "rm y", "ls", ":", "echo n"]
    );
    assert_eq!(texts("while true; do sleep 1; done"), ["true", "sleep 1"]);
    assert_eq!(texts("until false; do ls; done"), ["false", "ls"]);
    assert_eq!(
        texts("case $(id) in a|b) ls;; *) pwd;; esac"),
        ["id", "ls", "pwd"]
    );
    assert_eq!(texts("! ls"), ["ls"]);
    assert_eq!(
        texts("cargo build \\\n  --release"),
        ["cargo build --release"]
    );
}

#[test]
fn junk_is_unsure() {
    assert_eq!(unsure("echo 'unbalanced"), Unsure::Syntax);
    assert_eq!(unsure("ls ; ; ls"), Unsure::Syntax);
    assert_eq!(unsure("ls\r-la"), Unsure::Characters);
    assert_eq!(unsure("ls\u{a0}-la"), Unsure::Characters);
    assert_eq!(unsure("ls\u{1b}[2J"), Unsure::Characters);
    let deep = format!("{}ls{}", "$(".repeat(200), ")".repeat(200));
    assert_eq!(unsure(&deep), Unsure::TooDeep);
    let long = "echo a; ".repeat(20_000);
    assert_eq!(analyze(&long).commands.len(), 20_000);
}

fn rules(rules: &[(&str, Action)]) -> Vec<Ruleset> {
    let list = rules
        .iter()
        .map(|(p, a)| Rule::new("bash", *p, *a))
        .collect();
    vec![Ruleset::new("test", list)]
}

#[test]
fn unsure_commands_are_asked_as_a_whole() {
    use Action::{Allow, Ask, Deny};
    let layers = rules(&[
        ("*", Ask),
        ("echo *", Allow),
        ("ls *", Allow),
        ("rm *", Deny),
    ]);
    let decide = |cmd: &str| BashQuestion::new(cmd).evaluate(&layers);
    assert_eq!(decide("echo hi; ls -la"), Allow);
    assert_eq!(decide("echo $(ls)"), Allow);
    assert_eq!(decide("echo $(touch x)"), Ask);
    assert_eq!(decide("echo $((x[$(touch p)]))"), Ask);
    assert_eq!(decide("ls &>/dev/null rm -rf x"), Deny);
    assert_eq!(decide("eval rm -rf x"), Deny);
    assert_eq!(decide("echo ${x:-$(rm -rf y)}"), Deny);
    assert_eq!(decide("echo ${x:-$(touch y)}"), Ask);

    // Even `* = allow` does not let an unsure command through.
    let open = rules(&[("*", Allow)]);
    assert_eq!(BashQuestion::new("eval ls").evaluate(&open), Ask);
    assert_eq!(BashQuestion::new("ls").evaluate(&open), Allow);

    let q = BashQuestion::new("eval  ls ");
    assert_eq!(q.patterns, [format!("{UNSURE_MARK}eval  ls")]);
    assert_eq!(q.always, q.patterns);
    // A stored `*` would match more than this command: store nothing.
    assert!(BashQuestion::new("eval ls *").always.is_empty());
    let q = BashQuestion::new("git checkout main && ls");
    assert_eq!(q.always, ["git checkout *", "ls *"]);
}

#[test]
fn huge_unsure_commands_are_decided_quickly() {
    let layers = rules(&[("*", Action::Allow), ("rm *", Action::Deny)]);
    // Past the probed tails a deny is missed, but the command is still asked about.
    let huge = format!("eval '{}; rm -rf x'", "é ".repeat(200_000));
    let start = std::time::Instant::now();
    assert_eq!(BashQuestion::new(&huge).evaluate(&layers), Action::Ask);
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
    let short = format!("eval '{}; rm -rf x'", "é ".repeat(100));
    assert_eq!(BashQuestion::new(&short).evaluate(&layers), Action::Deny);
}

#[test]
fn the_unsure_mark_is_out_of_reach_of_prefixes() {
    assert!(!crate::wildcard::matches(
        &always_pattern(&format!("{UNSURE_MARK}ls")),
        "ls"
    ));
    assert_eq!(unsure("[unchecked] ls"), Unsure::Syntax);
    assert!(analyze("l[u]s").unsure.is_some());
}

#[test]
fn always_for_an_unsure_command_approves_exactly_that_command() {
    use crate::evaluate::evaluate_approved;
    let layers = rules(&[("*", Action::Allow)]);
    let decide = |cmd: &str, approvals: &Ruleset| {
        let q = BashQuestion::new(cmd);
        let layers = q.layers(&layers);
        evaluate_approved("bash", &q.patterns, layers.iter(), approvals)
            .0
            .action
    };
    let approve = |patterns: Vec<String>| {
        let list = patterns
            .into_iter()
            .map(|p| Rule::new("bash", p, Action::Allow))
            .collect();
        Ruleset::new("approvals", list)
    };
    let approvals = approve(BashQuestion::new("eval ls").always);
    assert_eq!(decide("eval ls", &approvals), Action::Allow);
    assert_eq!(decide("eval ls; touch x", &approvals), Action::Ask);
    // Prefix approvals from understood commands never reach an unsure one.
    let approvals = approve(BashQuestion::new("ls -la").always);
    assert_eq!(decide("ls -la", &approvals), Action::Allow);
    assert_eq!(decide("ls &>f touch y", &approvals), Action::Ask);
}
