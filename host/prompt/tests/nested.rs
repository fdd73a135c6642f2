//! `NestedInstructions`: attach once, outermost first, only inside the
//! project.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

mod common;

use std::fs;

use common::{inputs, write};
use ward_prompt::{NestedInstructions, SystemPrompt};

#[test]
fn attaches_unseen_files_once_outermost_first() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join(".git")).unwrap();
    write(root, "AGENTS.md", "root rule");
    let a = write(root, "a/AGENTS.md", "a rule");
    let ab = write(root, "a/b/CLAUDE.md", "ab rule");
    write(root, "a/b/c/main.rs", "fn main() {}");
    write(root, "a/other.rs", "");

    let prompt = SystemPrompt::new(inputs(root));
    let mut nested = NestedInstructions::new(root, prompt.loaded_instructions());

    let first = nested.attach_for(&root.join("a/b/c/main.rs")).unwrap();
    assert_eq!(
        first,
        format!(
            "<system-reminder>\nInstructions from: {}\na rule\n</system-reminder>\n\
             <system-reminder>\nInstructions from: {}\nab rule\n</system-reminder>",
            a.display(),
            ab.display()
        )
    );
    assert!(!first.contains("root rule"));
    // Once per file.
    assert_eq!(nested.attach_for(&root.join("a/b/c/main.rs")), None);
    assert_eq!(nested.attach_for(&root.join("a/other.rs")), None);
    assert_eq!(nested.attach_for(std::path::Path::new("a/b")), None);
}

#[test]
fn relative_paths_directories_and_the_file_itself() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "x/AGENTS.md", "x rule");
    write(root, "x/y/AGENTS.md", "y rule");
    let mut nested = NestedInstructions::new(root, Vec::new());
    // Reading x/AGENTS.md itself marks it seen without attaching it.
    assert_eq!(nested.attach_for(std::path::Path::new("x/AGENTS.md")), None);
    // A directory counts as its own directory.
    let out = nested.attach_for(std::path::Path::new("x/y")).unwrap();
    assert!(out.contains("y rule"));
    assert!(!out.contains("x rule"));
    // A file that does not exist yet (a write) still attaches.
    write(root, "z/AGENTS.md", "z rule");
    let out = nested.attach_for(&root.join("z/new.rs")).unwrap();
    assert!(out.contains("z rule"));
}

#[test]
fn nothing_outside_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path();
    write(t, "outside/AGENTS.md", "outside rule");
    write(t, "outside/file.rs", "");
    fs::create_dir_all(t.join("project")).unwrap();
    let mut nested = NestedInstructions::new(&t.join("project"), Vec::new());
    assert_eq!(nested.attach_for(&t.join("outside/file.rs")), None);
    assert_eq!(
        nested.attach_for(std::path::Path::new("../outside/file.rs")),
        None
    );
    // Files directly in the root attach nothing: the root's file belongs to
    // the system prompt.
    write(t, "project/AGENTS.md", "root rule");
    assert_eq!(nested.attach_for(&t.join("project/main.rs")), None);
}
