//! A bounded `git status`: at most [`STATUS_LINES`] lines, and a timeout so
//! a hung git never blocks the prompt.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// Most lines of `git status` output included.
pub const STATUS_LINES: usize = 40;

/// How long `git status` may run before it is killed.
pub const STATUS_TIMEOUT: Duration = Duration::from_secs(2);

/// What running `git status` gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Status {
    /// The bounded output.
    Text(String),
    /// git is missing, failed (not a repository) or its output was unreadable.
    Unavailable,
    /// git did not finish within the timeout and was killed.
    TimedOut,
}

/// `git status --porcelain=v1 -b` of the repository at `dir`, cut to
/// [`STATUS_LINES`] lines plus a `… N more` line, killed after `timeout`.
pub(crate) fn status(dir: &Path, timeout: Duration) -> Status {
    let mut command = Command::new("git");
    command
        .args(["status", "--porcelain=v1", "-b"])
        .current_dir(dir)
        // A status must not take the index lock other git commands need.
        .env("GIT_OPTIONAL_LOCKS", "0");
    run_bounded(command, timeout)
}

/// Runs `command`, keeping [`STATUS_LINES`] lines of its output, and kills
/// it after `timeout`.
fn run_bounded(mut command: Command, timeout: Duration) -> Status {
    let deadline = Instant::now() + timeout;
    let Ok(mut child) = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return Status::Unavailable;
    };
    let Some(stdout) = child.stdout.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return Status::Unavailable;
    };

    let (send, receive) = mpsc::channel();
    // The reader owns the pipe; if git hangs, it is killed below, the pipe
    // closes and the reader ends.
    thread::spawn(move || {
        let _ = send.send(bounded_lines(BufReader::new(stdout), STATUS_LINES));
    });
    let text = receive.recv_timeout(deadline.saturating_duration_since(Instant::now()));
    match (text, wait_until(&mut child, deadline)) {
        (Ok(Some(text)), Some(true)) => Status::Text(text),
        (Err(RecvTimeoutError::Timeout), _) | (_, None) => {
            let _ = child.kill();
            let _ = child.wait();
            Status::TimedOut
        }
        _ => Status::Unavailable,
    }
}

/// Whether `child` exited successfully, polling until `deadline`; `None`
/// when it is still running then.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<bool> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status.success()),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(1)),
            Ok(None) => return None,
            Err(_) => return Some(false),
        }
    }
}

/// The first `max` lines of `reader` and a `… N more` line for the rest.
/// `None` when reading fails.
fn bounded_lines(reader: impl BufRead, max: usize) -> Option<String> {
    let mut kept = Vec::new();
    let mut more = 0usize;
    for line in reader.lines() {
        let line = line.ok()?;
        if kept.len() < max {
            kept.push(line);
        } else {
            more += 1;
        }
    }
    if more > 0 {
        kept.push(format!("… {more} more"));
    }
    Some(kept.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded() {
        let input: String = (0..45).map(|i| format!("?? f{i}\n")).collect();
        let out = bounded_lines(input.as_bytes(), 40).unwrap();
        assert_eq!(out.lines().count(), 41);
        assert!(out.ends_with("?? f39\n… 5 more"));
        assert_eq!(bounded_lines("a\nb\n".as_bytes(), 40).unwrap(), "a\nb");
    }

    #[test]
    #[cfg(unix)]
    fn a_hung_command_is_killed() {
        let mut command = Command::new("sleep");
        command.arg("10");
        let start = Instant::now();
        assert_eq!(
            run_bounded(command, Duration::from_millis(100)),
            Status::TimedOut
        );
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn not_a_repository_is_none() {
        let dir = tempfile::tempdir().unwrap();
        // With no git on PATH it is unavailable as well.
        assert_eq!(status(dir.path(), STATUS_TIMEOUT), Status::Unavailable);
    }
}
