//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use ward_prompt::PromptInputs;

/// Writes `text` to `root/rel`, creating directories.
pub fn write(root: &Path, rel: &str, text: &str) -> PathBuf {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    path
}

/// Inputs for `project` that read nothing from the process environment.
pub fn inputs(project: &Path) -> PromptInputs {
    let mut inputs = PromptInputs::new(project, "anthropic", "claude-sonnet-4-5");
    inputs.global_dir = None;
    inputs.home = None;
    inputs
}

/// Whether a working `git` is on PATH.
pub fn have_git() -> bool {
    Command::new("git")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs git in `dir`; panics on failure.
pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}
