//! Nested instructions: the `AGENTS.md` of a directory below the project
//! root, attached once per session as a system reminder when a tool first
//! touches a path under it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::instructions::{file_in, read_bounded};
use crate::paths::normalize;

/// Tracks which instruction files a session has seen. One per session.
#[derive(Debug, Clone)]
pub struct NestedInstructions {
    /// The project root, normalised.
    root: PathBuf,
    /// Instruction files already in the context, normalised.
    seen: HashSet<PathBuf>,
}

impl NestedInstructions {
    /// A tracker for `project` that never attaches the files in
    /// `already_loaded` (typically [`SystemPrompt::loaded_instructions`](crate::SystemPrompt::loaded_instructions)).
    pub fn new(project: &Path, already_loaded: Vec<PathBuf>) -> Self {
        Self {
            root: normalize(project),
            seen: already_loaded.iter().map(|path| normalize(path)).collect(),
        }
    }

    /// The reminders to attach after a tool read `path` (a file or a
    /// directory; relative paths are relative to the project).
    ///
    /// Every directory strictly below the project root down to `path`'s own
    /// directory is checked for `AGENTS.md` (else `CLAUDE.md`); each file not
    /// seen before is returned, outermost first, as
    /// `<system-reminder>\nInstructions from: <path>\n…\n</system-reminder>`,
    /// and is then seen. Reading an instruction file itself marks it seen
    /// without attaching it. `None` when there is nothing new, including for
    /// paths outside the project.
    pub fn attach_for(&mut self, path: &Path) -> Option<String> {
        let target = normalize(&self.root.join(path));
        if !target.starts_with(&self.root) {
            return None;
        }
        let start = if target.is_dir() {
            target.as_path()
        } else {
            target.parent()?
        };
        let mut dirs: Vec<&Path> = start
            .ancestors()
            .take_while(|dir| *dir != self.root && dir.starts_with(&self.root))
            .collect();
        dirs.reverse();

        let mut reminders = Vec::new();
        for dir in dirs {
            let Some(file) = file_in(dir) else {
                continue;
            };
            let key = normalize(&file);
            if self.seen.contains(&key) {
                continue;
            }
            if key == target {
                self.seen.insert(key);
                continue;
            }
            if let Some(text) = read_bounded(&file) {
                self.seen.insert(key);
                reminders.push(format!(
                    "<system-reminder>\nInstructions from: {}\n{}\n</system-reminder>",
                    file.display(),
                    text.trim_end()
                ));
            }
        }
        (!reminders.is_empty()).then(|| reminders.join("\n"))
    }
}
