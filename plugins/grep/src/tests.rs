//! Unit tests of `grep` on temporary directories.

use std::time::{Duration, SystemTime};

use super::*;
use ward_tool_common::testing::TempDir;

fn put(t: &TempDir, rel: &str, content: &str, secs: u64) -> std::io::Result<()> {
    let path = t.write(rel, content)?;
    std::fs::File::options()
        .write(true)
        .open(path)?
        .set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
}

fn run(
    dir: &str,
    pattern: &str,
    path: Option<&str>,
    include: Option<&str>,
) -> Result<Output, ToolError> {
    grep(
        dir,
        &Args {
            pattern: pattern.into(),
            path: path.map(str::to_string),
            include: include.map(str::to_string),
        },
    )
}

#[test]
fn groups_matches_by_file_newest_first() -> std::io::Result<()> {
    let t = TempDir::new("grep")?;
    put(
        &t,
        "old.rs",
        "fn main() {}\nlet x = 1;\nfn helper() {}\n",
        1_000,
    )?;
    put(&t, "src/new.rs", "// fn in comment\nfn new() {}\n", 2_000)?;
    put(&t, "other.txt", "nothing here\n", 3_000)?;
    let out = run(&t.dir(), r"^fn\s+\w+", None, None).map_err(std::io::Error::other)?;
    let d = t.dir();
    assert_eq!(
        out.output,
        format!(
            "Found 3 matches\n\n{d}/src/new.rs:\n  Line 2: fn new() {{}}\n\n{d}/old.rs:\n  Line 1: fn main() {{}}\n  Line 3: fn helper() {{}}"
        )
    );
    assert_eq!(out.metadata["matches"], 3);
    assert_eq!(out.title, r"^fn\s+\w+");
    Ok(())
}

#[test]
fn include_filters_file_names() -> std::io::Result<()> {
    let t = TempDir::new("grep-include")?;
    put(&t, "a.rs", "needle\n", 1)?;
    put(&t, "b.ts", "needle\n", 2)?;
    put(&t, "deep/c.tsx", "needle\n", 3)?;
    let out = run(&t.dir(), "needle", None, Some("*.{ts,tsx}")).map_err(std::io::Error::other)?;
    assert_eq!(out.metadata["matches"], 2);
    assert!(!out.output.contains("a.rs"));
    Ok(())
}

#[test]
fn skips_binary_and_ignored_files() -> std::io::Result<()> {
    let t = TempDir::new("grep-skip")?;
    put(&t, "bin.dat2", "needle\0binary", 1)?;
    put(&t, "img.png", "needle", 1)?;
    put(&t, ".gitignore", "build/\n", 1)?;
    put(&t, "build/out.txt", "needle\n", 1)?;
    put(&t, "node_modules/m.js", "needle\n", 1)?;
    put(&t, "ok.txt", "needle\n", 1)?;
    let out = run(&t.dir(), "needle", None, None).map_err(std::io::Error::other)?;
    assert_eq!(out.metadata["matches"], 1);
    assert!(out.output.contains("ok.txt:"));
    Ok(())
}

#[test]
fn caps_at_100_matches_and_cuts_long_lines() -> std::io::Result<()> {
    let t = TempDir::new("grep-cap")?;
    let many: String = (0..150).map(|i| format!("hit {i}\n")).collect();
    put(&t, "many.txt", &many, 1)?;
    let out = run(&t.dir(), "hit", Some("many.txt"), None).map_err(std::io::Error::other)?;
    assert!(
        out.output
            .starts_with("Found 150 matches (showing first 100)")
    );
    assert!(
        out.output
            .contains("(Results truncated: showing 100 of 150 matches (50 hidden).")
    );
    assert_eq!(out.metadata["truncated"], true);
    put(&t, "long.txt", &format!("hit{}\n", "z".repeat(3000)), 1)?;
    let long = run(&t.dir(), "hit", Some("long.txt"), None).map_err(std::io::Error::other)?;
    assert!(
        long.output
            .ends_with(&format!("Line 1: hit{}...", "z".repeat(1997)))
    );
    Ok(())
}

#[test]
fn no_match_and_bad_regex() -> std::io::Result<()> {
    let t = TempDir::new("grep-none")?;
    put(&t, "a.txt", "abc\n", 1)?;
    let out = run(&t.dir(), "xyz", None, None).map_err(std::io::Error::other)?;
    assert_eq!(out.output, "No files found");
    assert!(matches!(
        run(&t.dir(), "(", None, None),
        Err(ToolError::InvalidArguments(_))
    ));
    assert!(matches!(
        run(&t.dir(), "a", Some("missing"), None),
        Err(ToolError::Failed(_))
    ));
    Ok(())
}

#[test]
fn newest_files_win_when_many_files_match() -> std::io::Result<()> {
    // More matches than the search keeps while it runs, in files met oldest first.
    let t = TempDir::new("grep-many")?;
    let body: String = (0..60).map(|i| format!("hit {i}\n")).collect();
    for i in 0..12 {
        put(&t, &format!("f{i:02}.txt"), &body, 1_000 + i)?;
    }
    let out = run(&t.dir(), "hit", None, None).map_err(std::io::Error::other)?;
    assert_eq!(out.metadata["matches"], 720);
    let d = t.dir();
    assert!(
        out.output.starts_with(&format!(
            "Found 720 matches (showing first 100)\n\n{d}/f11.txt:\n  Line 1: hit 0"
        )),
        "{}",
        out.output
    );
    // The second newest file supplies the last 40 shown.
    assert!(
        out.output
            .contains(&format!("{d}/f10.txt:\n  Line 1: hit 0"))
    );
    assert!(
        out.output
            .contains("  Line 40: hit 39\n\n(Results truncated")
    );
    assert!(!out.output.contains("f09.txt"));
    Ok(())
}

#[test]
fn lines_end_before_crlf_and_newline_patterns_match_nothing() -> std::io::Result<()> {
    let t = TempDir::new("grep-crlf")?;
    put(&t, "dos.txt", "one end\r\ntwo\r\nthree end\r\n", 1)?;
    let out = run(&t.dir(), "end$", None, None).map_err(std::io::Error::other)?;
    assert_eq!(out.metadata["matches"], 2);
    assert!(out.output.contains("  Line 3: three end"));
    assert!(!out.output.contains('\r'));
    // A pattern needing a line end never matches within one line, as before; one where
    // the line end is optional still matches.
    let none = run(&t.dir(), r"end\ntwo", None, None).map_err(std::io::Error::other)?;
    assert_eq!(none.output, "No files found");
    let optional = run(&t.dir(), r"one(\n)? end", None, None).map_err(std::io::Error::other)?;
    assert_eq!(optional.metadata["matches"], 1);
    Ok(())
}
