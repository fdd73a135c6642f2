use std::fs::File;

use super::*;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ward-truncate-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn numbered(n: usize) -> String {
    (1..=n)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn short_output_passes_untouched() {
    let policy = OutputPolicy::default();
    let out = policy.apply(Keep::Head, "c1", numbered(2000), false);
    assert!(!out.truncated);
    assert_eq!(out.text, numbered(2000));
    assert_eq!(out.saved, None);
}

#[test]
fn long_output_keeps_the_head_and_saves_the_whole() {
    let dir = scratch("head");
    let policy = OutputPolicy {
        spill_dir: Some(dir.clone()),
        ..OutputPolicy::default()
    };
    let out = policy.apply(Keep::Head, "call/1", numbered(3000), false);
    assert!(out.truncated);
    assert!(out.text.starts_with("line 1\nline 2\n"));
    assert!(out.text.contains("line 2000\n\n...1000 lines truncated..."));
    assert!(!out.text.contains("line 2001"));
    let saved = out.saved.expect("saved");
    assert!(saved.starts_with(&dir));
    assert_eq!(
        std::fs::read_to_string(&saved).expect("read"),
        numbered(3000)
    );
    assert!(
        out.text.contains(&saved.display().to_string()),
        "{}",
        out.text
    );
    assert!(out.text.contains("Use grep, or read with offset/limit"));
    assert!(!out.text.contains("task tool"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bash_keeps_the_tail() {
    let policy = OutputPolicy::default();
    let out = policy.apply(Keep::Tail, "c", numbered(2500), true);
    assert!(
        out.text
            .starts_with("...500 lines truncated...\n\nline 501\n")
    );
    assert!(out.text.contains("line 2500\n\n"));
    assert!(out.text.contains("The full output was not kept."));
    assert!(
        out.text.contains("task tool"),
        "delegation hint: {}",
        out.text
    );
}

#[test]
fn bytes_bound_as_well_as_lines() {
    let policy = OutputPolicy {
        max_bytes: 1000,
        ..OutputPolicy::default()
    };
    let text = "x".repeat(99) + "\n";
    let out = policy.apply(Keep::Head, "c", text.repeat(50), false);
    let kept = out.text.split("\n\n...").next().unwrap_or_default();
    assert!(kept.len() <= 1000, "{}", kept.len());
    assert!(
        out.text.contains("...41 lines truncated..."),
        "{}",
        out.text
    );
}

#[test]
fn one_enormous_line_keeps_a_piece_on_a_char_boundary() {
    let policy = OutputPolicy {
        max_bytes: 10,
        ..OutputPolicy::default()
    };
    let out = policy.apply(Keep::Head, "c", "é".repeat(100), false);
    assert!(
        out.text.starts_with("ééééé\n\n...1 lines truncated..."),
        "{}",
        out.text
    );
    let tail = policy.apply(Keep::Tail, "c", "é".repeat(100), false);
    assert!(tail.text.contains("\n\néééé"), "{}", tail.text);
}

#[test]
fn sweep_removes_only_old_saved_outputs() {
    let dir = scratch("sweep");
    std::fs::create_dir_all(&dir).expect("dir");
    let old = dir.join("tool_1_old.txt");
    let fresh = dir.join("tool_2_fresh.txt");
    let foreign = dir.join("notes.txt");
    for path in [&old, &fresh, &foreign] {
        std::fs::write(path, "x").expect("write");
    }
    let week_ago = SystemTime::now() - KEEP_SAVED - Duration::from_secs(60);
    for path in [&old, &foreign] {
        File::options()
            .write(true)
            .open(path)
            .and_then(|f| f.set_modified(week_ago))
            .expect("age");
    }
    assert_eq!(sweep(&dir, KEEP_SAVED), 1);
    assert!(!old.exists());
    assert!(fresh.exists());
    assert!(foreign.exists(), "only Ward's own files are swept");
    let _ = std::fs::remove_dir_all(dir);
}
