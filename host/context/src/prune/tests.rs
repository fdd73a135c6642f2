use serde_json::json;
use ward_tokens::{Encoding, TokenCounter};

use super::*;
use crate::fixtures::{assistant, pruned, user};

/// Text of exactly `n` o200k tokens.
fn tokens(n: usize) -> String {
    vec!["word"; n].join(" ")
}

fn tally() -> Tally {
    Tally::new(TokenCounter::new(Encoding::O200k))
}

/// What the standard tools and the host's `skill` declare.
fn standard(tool: &str) -> ToolTraits {
    let file = |access| ToolTraits {
        path: Some("filePath".into()),
        access: Some(access),
        ..ToolTraits::default()
    };
    match tool {
        "read" => file(Access::Read),
        "edit" | "write" => file(Access::Write),
        "skill" => ToolTraits {
            keep_output: true,
            ..ToolTraits::default()
        },
        _ => ToolTraits::default(),
    }
}

/// [`super::plan`] with the standard tools' declarations.
fn plan(messages: &[Message], keep_turns: usize, tally: &mut Tally) -> Plan {
    super::plan(messages, keep_turns, tally, &standard)
}

fn bash(n: usize) -> (&'static str, serde_json::Value, String) {
    ("bash", json!({ "command": format!("make {n}") }), tokens(n))
}

fn turn(calls: &[(&'static str, serde_json::Value, String)]) -> Vec<Message> {
    let u = user("go");
    let calls: Vec<(&str, serde_json::Value, &str)> = calls
        .iter()
        .map(|(t, i, o)| (*t, i.clone(), o.as_str()))
        .collect();
    let a = assistant(&u, &calls);
    vec![u, a]
}

#[test]
fn keeps_the_newest_40k_and_the_last_two_turns() {
    let mut messages = Vec::new();
    messages.extend(turn(&[bash(15_000), bash(15_001)])); // 0, 1
    messages.extend(turn(&[bash(15_002), bash(15_003), bash(15_004)])); // 2, 3
    messages.extend(turn(&[bash(30_000)])); // 4, 5: protected turn
    messages.extend(turn(&[bash(30_000)])); // 6, 7: protected turn
    let plan = plan(&messages, 2, &mut tally());
    // Walking back through message 3: 15004, 30007 (kept), 45009 > 40k: pruned,
    // then everything older.
    assert_eq!(plan.parts, vec![(1, 0), (1, 1), (3, 0)]);
    assert_eq!(plan.freed, 15_000 + 15_001 + 15_002);
}

#[test]
fn frees_nothing_unless_more_than_20k_would_go() {
    let mut messages = Vec::new();
    messages.extend(turn(&[bash(5_000), bash(15_000), bash(35_000)]));
    messages.extend(turn(&[]));
    messages.extend(turn(&[]));
    // 35000 + 15000 > 40k, so 15000 and 5000 would go: exactly 20k, not worth it.
    assert_eq!(plan(&messages, 2, &mut tally()), Plan::default());
    messages[1] = turn(&[bash(5_001), bash(15_000), bash(35_000)]).remove(1);
    assert_eq!(plan(&messages, 2, &mut tally()).freed, 20_001);
}

#[test]
fn stops_at_an_output_pruned_before_and_never_prunes_skills() {
    let mut messages = Vec::new();
    messages.extend(turn(&[bash(30_000)]));
    messages.extend(turn(&[bash(30_000)]));
    messages.extend(turn(&[("skill", json!({"name": "x"}), tokens(50_000))]));
    messages.extend(turn(&[bash(30_000), bash(30_000)]));
    let mut t = tally();
    let first = plan(&messages, 0, &mut t);
    // The skill output is neither counted nor pruned.
    assert_eq!(first.parts, vec![(1, 0), (3, 0), (7, 0)]);
    let store_free: Vec<(usize, usize)> = first.parts.clone();
    for (mi, pi) in store_free {
        if let PartKind::Tool(tool) = &mut messages[mi].parts[pi].kind
            && let ToolState::Completed { time, .. } = &mut tool.state
        {
            time.compacted = Some(5);
        }
    }
    assert!(pruned(&messages, (7, 0)));
    messages.extend(turn(&[bash(30_000), bash(30_000)]));
    let second = plan(&messages, 0, &mut t);
    // Stops at (7, 0), pruned before: (1, 0) and (3, 0) are not visited again.
    assert_eq!(second.parts, vec![(7, 1), (9, 0)]);
    assert!(!second.parts.contains(&(5, 0)), "skill output kept");
}

#[test]
fn superseded_reads_go_first_even_inside_the_protected_window() {
    let read = |path: &str, n: usize| ("read", json!({ "filePath": path }), tokens(n));
    let mut messages = Vec::new();
    messages.extend(turn(&[read("/p/a.rs", 25_000), read("/p/b.rs", 1_000)]));
    messages.extend(turn(&[(
        "edit",
        json!({ "filePath": "/p/a.rs", "oldString": "x", "newString": "y" }),
        "ok".to_string(),
    )]));
    messages.extend(turn(&[read("/p/b.rs", 1_000)]));
    // Under 40k in all, so only staleness prunes: a.rs was edited since, b.rs re-read.
    let plan = plan(&messages, 0, &mut tally());
    assert_eq!(plan.parts, vec![(1, 0), (1, 1)]);
    assert_eq!(plan.freed, 26_000);
}

#[test]
fn tools_named_read_and_edit_that_declare_nothing_supersede_nothing() {
    let read = |path: &str, n: usize| ("read", json!({ "filePath": path }), tokens(n));
    let mut messages = Vec::new();
    messages.extend(turn(&[read("/p/a.rs", 25_000)]));
    messages.extend(turn(&[(
        "edit",
        json!({ "filePath": "/p/a.rs", "oldString": "x", "newString": "y" }),
        "ok".to_string(),
    )]));
    messages.extend(turn(&[read("/p/a.rs", 1_000)]));
    // Third-party tools that happen to be called `read` and `edit`: no staleness.
    let nothing = |_: &str| ToolTraits::default();
    assert_eq!(
        super::plan(&messages, 0, &mut tally(), &nothing),
        Plan::default()
    );
    // Declared as Ward's are, the first read is stale.
    assert_eq!(plan(&messages, 0, &mut tally()).parts, vec![(1, 0)]);
}

#[test]
fn a_read_of_another_window_is_not_superseded() {
    let mut messages = Vec::new();
    messages.extend(turn(&[(
        "read",
        json!({ "filePath": "/p/a.rs" }),
        tokens(25_000),
    )]));
    messages.extend(turn(&[(
        "read",
        json!({ "filePath": "/p/a.rs", "offset": 100, "limit": 10 }),
        tokens(100),
    )]));
    assert_eq!(plan(&messages, 0, &mut tally()), Plan::default());
}

#[test]
fn inside_a_loop_the_current_turn_is_pruned_too() {
    let messages = turn(&[bash(30_000), bash(30_000), bash(30_000)]);
    assert_eq!(
        plan(&messages, 2, &mut tally()),
        Plan::default(),
        "after a loop"
    );
    let plan = plan(&messages, 0, &mut tally());
    assert_eq!(plan.parts, vec![(1, 0), (1, 1)]);
}
