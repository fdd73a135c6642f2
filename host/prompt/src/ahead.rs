//! [`EnvironmentAhead`]: the environment block (git status, file tree) computed on its
//! own thread while the rest of a session starts, so the first model call does not
//! wait for it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use crate::env;

/// An environment block being computed ahead of its first use. The first prompt of the
/// project takes it (once); later ones compute their own as before.
pub struct EnvironmentAhead {
    project: PathBuf,
    result: Mutex<Option<Receiver<Computed>>>,
}

/// What the thread computed, and when it started (the block is as old as its start).
pub(crate) struct Computed {
    pub(crate) at: Instant,
    pub(crate) environment: String,
    pub(crate) git_timed_out: bool,
}

impl EnvironmentAhead {
    /// Starts computing the environment block of `project`.
    pub fn start(project: PathBuf) -> Self {
        let (send, receive) = mpsc::channel();
        let dir = project.clone();
        let spawned = std::thread::Builder::new()
            .name("ward-env-ahead".into())
            .spawn(move || {
                let at = Instant::now();
                let (environment, git_timed_out) = env::render(&dir, true);
                let _ = send.send(Computed {
                    at,
                    environment,
                    git_timed_out,
                });
            });
        Self {
            project,
            // No thread (the process is out of them): the prompt computes its own.
            result: Mutex::new(spawned.ok().map(|_| receive)),
        }
    }

    /// The block for `project`, waiting for the thread; `None` when it was taken
    /// already, is for another directory, or the thread failed.
    pub(crate) fn take(&self, project: &Path) -> Option<Computed> {
        if project != self.project {
            return None;
        }
        let receiver = self
            .result
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()?;
        receiver.recv().ok()
    }
}

impl fmt::Debug for EnvironmentAhead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnvironmentAhead")
            .field("project", &self.project)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taken_once_and_only_for_its_project() {
        let dir = std::env::temp_dir().join(format!("ward-ahead-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("marker-file.txt"), "x").unwrap();
        let ahead = EnvironmentAhead::start(dir.clone());
        assert!(ahead.take(&dir.join("elsewhere")).is_none());
        let computed = ahead.take(&dir).expect("computed ahead");
        assert!(computed.environment.contains("marker-file.txt"));
        assert!(computed.environment.contains(&dir.display().to_string()));
        assert!(ahead.take(&dir).is_none(), "taken once");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
