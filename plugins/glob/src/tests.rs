//! Unit tests of `glob` on temporary directories.

use std::time::{Duration, SystemTime};

use super::*;
use ward_tool_common::testing::TempDir;

fn touch(t: &TempDir, rel: &str, secs: u64) -> std::io::Result<()> {
    let path = t.write(rel, rel)?;
    std::fs::File::options()
        .write(true)
        .open(path)?
        .set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
}

fn run(dir: &str, pattern: &str, path: Option<&str>) -> std::io::Result<Output> {
    glob(
        dir,
        &Args {
            pattern: pattern.into(),
            path: path.map(str::to_string),
        },
    )
    .map_err(std::io::Error::other)
}

fn lines(out: &Output, dir: &str) -> Vec<String> {
    out.output
        .lines()
        .map(|l| l.strip_prefix(&format!("{dir}/")).unwrap_or(l).to_string())
        .collect()
}

#[test]
fn newest_first_with_absolute_paths() -> std::io::Result<()> {
    let t = TempDir::new("glob")?;
    touch(&t, "old.rs", 1_000)?;
    touch(&t, "src/new.rs", 3_000)?;
    touch(&t, "src/mid.rs", 2_000)?;
    touch(&t, "notes.txt", 4_000)?;
    let out = run(&t.dir(), "**/*.rs", None)?;
    assert_eq!(
        lines(&out, &t.dir()),
        vec!["src/new.rs", "src/mid.rs", "old.rs"]
    );
    assert!(out.output.starts_with('/'));
    assert_eq!(out.metadata["count"], 3);
    Ok(())
}

#[test]
fn slash_patterns_are_anchored_and_plain_ones_are_not() -> std::io::Result<()> {
    let t = TempDir::new("glob-anchor")?;
    touch(&t, "a.rs", 1)?;
    touch(&t, "src/b.rs", 2)?;
    touch(&t, "src/deep/c.rs", 3)?;
    assert_eq!(
        lines(&run(&t.dir(), "src/*.rs", None)?, &t.dir()),
        vec!["src/b.rs"]
    );
    assert_eq!(run(&t.dir(), "*.rs", None)?.metadata["count"], 3);
    let in_src = run(&t.dir(), "*.rs", Some("src/deep"))?;
    assert_eq!(lines(&in_src, &t.dir()), vec!["src/deep/c.rs"]);
    let absolute = run(&t.dir(), &format!("{}/src/**/*.rs", t.dir()), None)?;
    assert_eq!(absolute.metadata["count"], 2);
    Ok(())
}

#[test]
fn skips_git_node_modules_and_ignored_files() -> std::io::Result<()> {
    let t = TempDir::new("glob-skip")?;
    touch(&t, ".gitignore", 1)?;
    std::fs::write(t.path().join(".gitignore"), "target/\n")?;
    touch(&t, ".git/x.rs", 1)?;
    touch(&t, "node_modules/y.rs", 1)?;
    touch(&t, "target/z.rs", 1)?;
    touch(&t, "keep.rs", 1)?;
    assert_eq!(
        lines(&run(&t.dir(), "**/*.rs", None)?, &t.dir()),
        vec!["keep.rs"]
    );
    Ok(())
}

#[test]
fn results_are_capped_at_100() -> std::io::Result<()> {
    let t = TempDir::new("glob-cap")?;
    for i in 0..120 {
        touch(&t, &format!("f{i:03}.txt"), i)?;
    }
    let out = run(&t.dir(), "*.txt", None)?;
    assert_eq!(out.metadata["count"], 100);
    assert_eq!(out.metadata["truncated"], true);
    assert!(
        out.output
            .ends_with("(Results are truncated. Consider using a more specific path or pattern.)")
    );
    assert!(out.output.starts_with(&format!("{}/f119.txt", t.dir())));
    Ok(())
}

#[test]
fn no_match_and_missing_prefix() -> std::io::Result<()> {
    let t = TempDir::new("glob-none")?;
    touch(&t, "a.txt", 1)?;
    assert_eq!(run(&t.dir(), "*.rs", None)?.output, "No files found");
    assert_eq!(
        run(&t.dir(), "nope/**/*.rs", None)?.output,
        "No files found"
    );
    assert!(run(&t.dir(), "*.rs", Some("missing-dir")).is_err());
    assert!(run(&t.dir(), "{a,b", None).is_err());
    Ok(())
}
