//! `@` completion in the input: typing `@` and the start of a name offers the
//! subagents (an `@agent` mention asks for one) and the project's files (an
//! `@path` mention attaches the file), Tab takes the first. The files come from
//! ripgrep's `ignore` walker — `.gitignore`, `.ignore` and hidden files respected,
//! inside a git repository or not — run on a thread of its own each time a
//! completion starts (the project changes while the agent works), never on the
//! keystroke path: until it answers, only agents are offered.

use std::path::PathBuf;

use tokio::sync::mpsc::UnboundedSender;

use crate::app::{Ctx, State};

/// The most files a walk collects (a huge tree is cut, not walked for seconds).
const MOST_FILES: usize = 20_000;

/// The most completions offered.
pub const OFFERED: usize = 12;

/// The `@` word being typed at the end of `text`, without the `@`, if there is one.
pub fn partial(text: &str) -> Option<&str> {
    let word = text.rsplit(char::is_whitespace).next()?;
    word.strip_prefix('@')
}

/// Walks the project's files on a thread; sends them (relative paths, sorted)
/// when done.
pub fn walk(root: PathBuf, done: UnboundedSender<Vec<String>>) {
    std::thread::spawn(move || {
        let mut files = Vec::new();
        let walker = ignore::WalkBuilder::new(&root)
            // `.gitignore` counts outside a git repository too (a project that is
            // not one yet still says what is noise).
            .require_git(false)
            .build();
        for entry in walker.flatten() {
            if files.len() >= MOST_FILES {
                break;
            }
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            if let Ok(rel) = entry.path().strip_prefix(&root) {
                files.push(rel.to_string_lossy().into_owned());
            }
        }
        files.sort();
        let _ = done.send(files);
    });
}

/// What `partial` may complete to: agents whose name starts with it, then files
/// whose path starts with it, then files whose path contains it (case-insensitive),
/// shortest first; at most [`OFFERED`].
pub fn complete(partial: &str, agents: &[String], files: &[String]) -> Vec<String> {
    let wanted = partial.to_lowercase();
    let mut out: Vec<String> = agents
        .iter()
        .filter(|a| a.to_lowercase().starts_with(&wanted))
        .cloned()
        .collect();
    let mut starting: Vec<&String> = Vec::new();
    let mut containing: Vec<&String> = Vec::new();
    for file in files {
        let lower = file.to_lowercase();
        if lower.starts_with(&wanted) {
            starting.push(file);
        } else if lower.contains(&wanted) {
            containing.push(file);
        }
    }
    starting.sort_by_key(|f| f.len());
    containing.sort_by_key(|f| f.len());
    out.extend(starting.into_iter().chain(containing).cloned());
    out.truncate(OFFERED);
    out
}

impl State {
    /// Starts a walk of the project's files when an `@` word starts being typed.
    pub(crate) fn track_mention(&mut self, ctx: &Ctx<'_>) {
        let typing = partial(self.input.text()).is_some();
        if typing && !self.mentioning {
            let root = ctx.engine.project_root().to_path_buf();
            walk(root, ctx.walks.clone());
        }
        self.mentioning = typing;
    }

    /// The `@` completions for what is typed (none when no `@` word is).
    pub(crate) fn mentions(&self) -> Vec<String> {
        match partial(self.input.text()) {
            Some(partial) => complete(partial, &self.subagents, &self.files),
            None => Vec::new(),
        }
    }

    /// Tab on an `@` word: replaced by its first completion; whether there was one.
    pub(crate) fn complete_mention(&mut self) -> bool {
        let text = self.input.text();
        let (Some(partial), Some(first)) = (partial(text), self.mentions().into_iter().next())
        else {
            return false;
        };
        let kept = text[..text.len() - partial.len()].to_string();
        self.input.take();
        self.input.paste(&format!("{kept}{first} "));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_at_the_end_is_the_partial() {
        assert_eq!(partial("look at @src/al"), Some("src/al"));
        assert_eq!(partial("@"), Some(""));
        assert_eq!(partial("look at @src/al "), None);
        assert_eq!(partial("mail a@b"), None);
        assert_eq!(partial(""), None);
    }

    #[test]
    fn agents_then_files_by_prefix_then_by_substring() {
        let agents = vec!["general".to_string(), "explore".to_string()];
        let files = vec![
            "docs/general-notes.md".to_string(),
            "gen.rs".to_string(),
            "src/Alpha.rs".to_string(),
        ];
        assert_eq!(
            complete("gen", &agents, &files),
            ["general", "gen.rs", "docs/general-notes.md"]
        );
        assert_eq!(complete("alpha", &agents, &files), ["src/Alpha.rs"]);
        assert!(complete("zzz", &agents, &files).is_empty());
    }
}
