//! Instruction files: `AGENTS.md` (or `CLAUDE.md`) found walking up from the
//! project, the global `AGENTS.md`, and the `instructions` paths and globs from
//! the configuration.
//!
//! The walk up starts at the project directory and stops at the git root (the
//! nearest ancestor holding `.git`, included). Outside a git repository it
//! stops at the home directory (included) when the project is under it, else
//! at the filesystem root. Files are listed outermost first so that the more
//! specific instructions come later and read as overriding the general ones.
//!
//! Missing files are skipped silently; each file is capped at [`FILE_CAP`]
//! bytes with a marker saying so.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::paths::{expand_tilde, git_root, lexical_clean, normalize};

/// Largest part of one instruction file that is included, in bytes.
pub const FILE_CAP: usize = 64 * 1024;

/// Most files one `instructions` glob may contribute.
const GLOB_CAP: usize = 32;

/// The instruction file names looked for in a directory, in order of
/// preference: the first one present is used, the others are ignored.
pub(crate) const FILE_NAMES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// One loaded instruction file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Instruction {
    /// Where it was read from.
    pub(crate) path: PathBuf,
    /// Its content, capped at [`FILE_CAP`] bytes.
    pub(crate) text: String,
}

impl Instruction {
    /// The file as it appears in a prompt: `Instructions from: <path>`, then
    /// the content.
    pub(crate) fn render(&self) -> String {
        format!(
            "Instructions from: {}\n{}",
            self.path.display(),
            self.text.trim_end()
        )
    }
}

/// Where to look for instructions.
pub(crate) struct Sources<'a> {
    pub(crate) project: &'a Path,
    pub(crate) global_dir: Option<&'a Path>,
    pub(crate) home: Option<&'a Path>,
    pub(crate) patterns: &'a [String],
    /// Skip files inside the project that resolve outside it (an untrusted project).
    pub(crate) confine: bool,
}

/// Loads every instruction file, in prompt order: the global file, the files
/// found walking up (outermost first), then the configured ones. A file
/// reached twice is included once, at its first position.
pub(crate) fn collect(sources: &Sources<'_>) -> Vec<Instruction> {
    let mut paths = Vec::new();
    if let Some(dir) = sources.global_dir {
        paths.push(dir.join("AGENTS.md"));
    }
    paths.extend(walk_up(sources.project, sources.home));
    for pattern in sources.patterns {
        paths.extend(configured(sources.project, sources.home, pattern));
    }

    let global = sources.global_dir.map(|dir| dir.join("AGENTS.md"));
    let real_project = std::fs::canonicalize(sources.project).ok();
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for path in paths {
        let key = normalize(&path);
        if seen.contains(&key) {
            continue;
        }
        if sources.confine
            && global.as_ref() != Some(&path)
            && leaves_project(sources.project, real_project.as_deref(), &path)
        {
            continue;
        }
        if let Some(text) = read_bounded(&path) {
            seen.push(key);
            out.push(Instruction { path, text });
        }
    }
    out
}

/// Whether `path`, found inside `project`, resolves outside it (through a symlink
/// of its own or of a directory on the way). A path outside the project as written
/// is the user's own (their configuration named it) and does not leave.
pub(crate) fn leaves_project(project: &Path, real_project: Option<&Path>, path: &Path) -> bool {
    // As written (lexically): canonicalizing would follow the very link in question.
    if !lexical_clean(path).starts_with(lexical_clean(project)) {
        return false;
    }
    match (std::fs::canonicalize(path), real_project) {
        (Ok(real), Some(root)) => !real.starts_with(root),
        // Unresolvable: it cannot be shown to stay inside.
        _ => true,
    }
}

/// The instruction file of `dir`: `AGENTS.md`, else `CLAUDE.md`.
pub(crate) fn file_in(dir: &Path) -> Option<PathBuf> {
    FILE_NAMES
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
}

/// Instruction files from `project` up to the stop directory, outermost first.
fn walk_up(project: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let stop = git_root(project)
        .or_else(|| home.filter(|home| project.starts_with(home)))
        .map(Path::to_path_buf);
    let mut files = Vec::new();
    for dir in project.ancestors() {
        files.extend(file_in(dir));
        if stop.as_deref() == Some(dir) {
            break;
        }
    }
    files.reverse();
    files
}

/// The files one configured entry names: a path, or a glob when it holds
/// `*`, `?` or `[`. Relative entries are relative to the project; `~/` is
/// the home directory. At most [`GLOB_CAP`] files, in sorted order.
fn configured(project: &Path, home: Option<&Path>, entry: &str) -> Vec<PathBuf> {
    if !entry.contains(['*', '?', '[']) {
        let path = project.join(expand_tilde(entry, home));
        return if path.is_file() {
            vec![path]
        } else {
            Vec::new()
        };
    }
    // The directory part the entry is relative to is escaped, so special
    // characters in the project or home path match literally.
    let escape = |dir: &Path| glob::Pattern::escape(&dir.to_string_lossy());
    let pattern = match (entry.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => format!("{}/{rest}", escape(home)),
        _ if Path::new(entry).is_absolute() => entry.to_owned(),
        _ => format!("{}/{entry}", escape(project)),
    };
    let Ok(matches) = glob::glob(&pattern) else {
        return Vec::new();
    };
    matches
        .filter_map(Result::ok)
        .filter(|path| path.is_file())
        .take(GLOB_CAP)
        .collect()
}

/// Reads at most [`FILE_CAP`] bytes of `path` as text (invalid UTF-8 is
/// replaced), adding a marker when the file is longer. `None` when it cannot
/// be read.
pub(crate) fn read_bounded(path: &Path) -> Option<String> {
    let file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut bytes = Vec::with_capacity(FILE_CAP.min(usize::try_from(len).unwrap_or(FILE_CAP)));
    file.take(FILE_CAP as u64 + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() <= FILE_CAP {
        return Some(String::from_utf8_lossy(&bytes).into_owned());
    }
    bytes.truncate(FILE_CAP);
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    // The cut may split a character; drop the replacement it produced.
    if text.ends_with('\u{FFFD}') {
        text.pop();
    }
    text.push_str(&format!(
        "\n… [truncated: the file is {len} bytes; only the first {} KiB are included]",
        FILE_CAP / 1024
    ));
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_bounded_caps_and_marks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.md");
        // A two-byte character straddling the cap.
        let mut text = "a".repeat(FILE_CAP - 1);
        text.push('é');
        text.push_str(&"b".repeat(100));
        std::fs::write(&path, &text).unwrap();
        let read = read_bounded(&path).unwrap();
        assert!(read.starts_with(&"a".repeat(FILE_CAP - 1)));
        assert!(!read.contains('\u{FFFD}'));
        assert!(read.contains("[truncated: the file is"));
        assert!(read.len() < FILE_CAP + 200);
        assert_eq!(read_bounded(&dir.path().join("missing.md")), None);
    }

    #[test]
    fn an_untrusted_projects_instruction_file_may_not_link_out() {
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("id_ed25519");
        std::fs::write(&secret, "SECRET").unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir(project.path().join(".git")).unwrap();
        std::os::unix::fs::symlink(&secret, project.path().join("AGENTS.md")).unwrap();
        std::fs::create_dir(project.path().join("docs")).unwrap();
        std::fs::write(project.path().join("docs/a.md"), "inside").unwrap();
        std::os::unix::fs::symlink(&secret, project.path().join("docs/b.md")).unwrap();
        let patterns = vec!["docs/*.md".to_owned()];
        let read = |confine| {
            collect(&Sources {
                project: project.path(),
                global_dir: None,
                home: None,
                patterns: &patterns,
                confine,
            })
            .into_iter()
            .map(|i| i.text)
            .collect::<Vec<_>>()
        };
        assert_eq!(read(true), ["inside"]);
        assert!(
            read(false).contains(&"SECRET".to_owned()),
            "trusted: as before"
        );
    }

    #[test]
    fn agents_preferred_over_claude() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("CLAUDE.md"), "c").unwrap();
        assert_eq!(file_in(dir.path()), Some(dir.path().join("CLAUDE.md")));
        std::fs::write(dir.path().join("AGENTS.md"), "a").unwrap();
        assert_eq!(file_in(dir.path()), Some(dir.path().join("AGENTS.md")));
    }
}
