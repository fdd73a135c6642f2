//! How close the estimate comes to o200k_base on real documents: this repository's
//! English documents and sources, and the Chinese seed documents beside it in `shared/`.
//! None of these were used to fit the estimate's constants (see `src/weights.rs`).
//!
//! Each test prints a table per document (`cargo test -p ward-tokens -- --nocapture`)
//! and asserts on the whole corpus and, where stated, on each document.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

use std::fs;
use std::path::{Path, PathBuf};

use ward_tokens::{Encoding, TokenCounter, estimate};

/// The repository root (`host/tokens` is two levels down).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `shared/`, which sits beside the repository.
fn shared() -> PathBuf {
    repo().join("../shared")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Files under `dir` whose names end with `suffix`, sorted, skipping `target` and hidden
/// directories.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    stack.push(path);
                }
            } else if name.ends_with(suffix) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// One document's counts.
struct Row {
    name: String,
    bytes: usize,
    o200k: u64,
    estimate: u64,
}

impl Row {
    fn error(&self) -> f64 {
        relative(self.estimate, self.o200k)
    }
}

fn relative(estimate: u64, reference: u64) -> f64 {
    (estimate as f64 - reference as f64) / reference as f64
}

/// Counts each document with o200k and with the estimate, prints the table, and returns
/// the rows and the error over the whole corpus.
fn measure(title: &str, docs: &[(String, String)]) -> (Vec<Row>, f64) {
    let rows = count(docs);
    let total = report(title, &rows, docs);
    (rows, total)
}

fn count(docs: &[(String, String)]) -> Vec<Row> {
    let o200k = TokenCounter::new(Encoding::O200k);
    docs.iter()
        .map(|(name, text)| Row {
            name: name.clone(),
            bytes: text.len(),
            o200k: o200k.count(text),
            estimate: estimate(text),
        })
        .collect()
}

/// Prints the table and returns the error over all the rows.
fn report(title: &str, rows: &[Row], docs: &[(String, String)]) -> f64 {
    assert!(!rows.is_empty(), "{title}: no documents");
    let reference: u64 = rows.iter().map(|r| r.o200k).sum();
    let estimated: u64 = rows.iter().map(|r| r.estimate).sum();
    let chars: usize = docs.iter().map(|(_, t)| t.chars().count()).sum();
    let total = relative(estimated, reference);
    println!("\n{title}");
    println!(
        "{:<48} {:>9} {:>8} {:>8} {:>7}",
        "document", "bytes", "o200k", "estimate", "error"
    );
    for r in rows {
        let e = r.error() * 100.0;
        println!(
            "{:<48} {:>9} {:>8} {:>8} {e:>+6.2}%",
            r.name, r.bytes, r.o200k, r.estimate
        );
    }
    let sizable = rows.iter().filter(|r| r.bytes >= 2_000);
    if let Some(worst) = sizable.max_by(|a, b| a.error().abs().total_cmp(&b.error().abs())) {
        let e = worst.error() * 100.0;
        println!("worst document of 2 KB or more: {} ({e:+.2}%)", worst.name);
    }
    let bytes: usize = rows.iter().map(|r| r.bytes).sum();
    let quarter = relative(chars as u64 / 4, reference) * 100.0;
    println!(
        "{:<48} {bytes:>9} {reference:>8} {estimated:>8} {:>+6.2}%   (chars/4: {quarter:+.1}%)",
        format!("all {} documents", rows.len()),
        total * 100.0
    );
    total
}

fn named(root: &Path, paths: Vec<PathBuf>) -> Vec<(String, String)> {
    paths
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(root).unwrap_or(&p).display().to_string();
            (name, read(&p))
        })
        .collect()
}

#[test]
fn english_prose_within_3_percent() {
    let docs = vec![
        (
            "shared/SPEC.md".to_string(),
            read(&shared().join("SPEC.md")),
        ),
        ("README.md".to_string(), read(&repo().join("README.md"))),
        (
            "host/store/README.md".to_string(),
            read(&repo().join("host/store/README.md")),
        ),
        (
            "shared/seeds/README.md".to_string(),
            read(&shared().join("seeds/README.md")),
        ),
    ];
    let (rows, total) = measure("English prose", &docs);
    assert!(
        total.abs() < 0.03,
        "English overall: {:+.2}%",
        total * 100.0
    );
    for r in rows.iter().filter(|r| r.bytes >= 10_000) {
        assert!(
            r.error().abs() < 0.03,
            "{}: {:+.2}%",
            r.name,
            r.error() * 100.0
        );
    }
}

#[test]
fn source_code_within_3_percent() {
    let root = repo();
    // This crate's own sources are left out: the corpus should not move with the weights.
    let own = root.join("host/tokens");
    let rust_files = files(&root.join("host"), ".rs");
    let rust = named(
        &root,
        rust_files
            .into_iter()
            .filter(|p| !p.starts_with(&own))
            .collect(),
    );
    let (rust_rows, total) = measure("Rust: host/**/*.rs (but host/tokens)", &rust);
    assert!(rust_rows.len() > 20, "only {} Rust files", rust_rows.len());
    assert!(total.abs() < 0.03, "Rust overall: {:+.2}%", total * 100.0);

    let mut scripts = named(&root, files(&root.join("scripts"), ".py"));
    scripts.extend(named(&root, files(&root.join("scripts"), ".sh")));
    let (script_rows, scripts_total) = measure("Python and shell: scripts/", &scripts);
    assert!(
        scripts_total.abs() < 0.06,
        "scripts overall: {:+.2}%",
        scripts_total * 100.0
    );

    let reference: u64 = rust_rows.iter().chain(&script_rows).map(|r| r.o200k).sum();
    let estimated: u64 = rust_rows
        .iter()
        .chain(&script_rows)
        .map(|r| r.estimate)
        .sum();
    let all = relative(estimated, reference);
    println!(
        "\nAll source code: o200k {reference}, estimate {estimated}, {:+.2}%",
        all * 100.0
    );
    assert!(all.abs() < 0.03, "code overall: {:+.2}%", all * 100.0);
}

#[test]
fn chinese_documents_within_15_percent() {
    let seeds = shared().join("seeds");
    let docs = named(&shared(), files(&seeds, ".zh.md"));
    assert!(
        docs.len() >= 5,
        "only {} Chinese seed documents",
        docs.len()
    );
    let (rows, total) = measure("Chinese: shared/seeds/*.zh.md", &docs);
    for r in &rows {
        assert!(
            r.error().abs() < 0.15,
            "{}: {:+.2}%",
            r.name,
            r.error() * 100.0
        );
    }
    assert!(
        total.abs() < 0.05,
        "Chinese overall: {:+.2}%",
        total * 100.0
    );
}
