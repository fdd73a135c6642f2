//! Tool output truncation, the first line of context defence (SPEC §5.2).
//!
//! Owns [`OutputPolicy`]: every tool result longer than the configured lines or bytes
//! is cut before the model sees it — the head kept, or the tail for `bash`, where the
//! error usually is — and the full text is saved under the data directory, so nothing
//! is lost: the model is told where it is and how to look into it without reading it
//! whole. [`sweep`] deletes saved outputs once they are a week old.
//!
//! Truncation is done here, in the host, rather than in each tool, so a third-party
//! tool's output is bounded the same way as a built-in one's.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long a saved full output is kept.
pub const KEEP_SAVED: Duration = Duration::from_secs(7 * 24 * 3600);

/// How often a long-running process sweeps saved outputs.
pub const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// Where tool output is cut and where the full text goes.
#[derive(Clone, Debug)]
pub struct OutputPolicy {
    /// Most lines the model sees.
    pub max_lines: usize,
    /// Most bytes the model sees.
    pub max_bytes: usize,
    /// Where full outputs are saved; `None` keeps no copy (the hint then says so).
    pub spill_dir: Option<PathBuf>,
}

impl Default for OutputPolicy {
    fn default() -> Self {
        Self {
            max_lines: 2000,
            max_bytes: 50 * 1024,
            spill_dir: None,
        }
    }
}

/// Which end of an output is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The first lines (file contents, search results).
    Head,
    /// The last lines (command output: errors and summaries come last).
    Tail,
}

impl Keep {
    /// The end kept for the output of a tool declared as `traits` (`output-tail`).
    pub fn for_tool(traits: &ward_config::ToolTraits) -> Keep {
        if traits.output_tail {
            Keep::Tail
        } else {
            Keep::Head
        }
    }
}

/// A tool output after [`OutputPolicy::apply`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bounded {
    /// What the model sees.
    pub text: String,
    /// Where the full output was saved, when it was cut and could be saved.
    pub saved: Option<PathBuf>,
    /// Whether anything was cut.
    pub truncated: bool,
}

impl OutputPolicy {
    /// Bounds `output` of a call (`call_id`), keeping the end `keep` says;
    /// `delegate` says whether the model can hand the exploration to a subagent (the
    /// `task` tool is on offer).
    pub fn apply(&self, keep: Keep, call_id: &str, output: String, delegate: bool) -> Bounded {
        let lines = output.split('\n').count();
        if lines <= self.max_lines && output.len() <= self.max_bytes {
            return Bounded {
                text: output,
                saved: None,
                truncated: false,
            };
        }
        let (kept, omitted) = cut(&output, keep, self.max_lines, self.max_bytes);
        let saved = self
            .spill_dir
            .as_ref()
            .and_then(|dir| save(dir, call_id, &output));
        let marker = format!("...{omitted} lines truncated...");
        let hint = hint(saved.as_deref(), delegate);
        let text = match keep {
            Keep::Head => format!("{kept}\n\n{marker}\n\n{hint}"),
            Keep::Tail => format!("{marker}\n\n{kept}\n\n{hint}"),
        };
        Bounded {
            text,
            saved,
            truncated: true,
        }
    }
}

/// The kept lines and how many lines were dropped (a line kept in part counts).
fn cut(text: &str, keep: Keep, max_lines: usize, max_bytes: usize) -> (String, usize) {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut bytes = 0;
    let mut kept = 0;
    let order: Box<dyn Iterator<Item = &&str>> = match keep {
        Keep::Head => Box::new(lines.iter()),
        Keep::Tail => Box::new(lines.iter().rev()),
    };
    for line in order {
        let size = line.len() + 1;
        if kept == max_lines || bytes + size > max_bytes {
            break;
        }
        bytes += size;
        kept += 1;
    }
    if kept == 0 {
        // One enormous line: a piece of it says more than nothing.
        let piece = match keep {
            Keep::Head => &text[..floor_boundary(text, max_bytes)],
            Keep::Tail => &text[ceil_boundary(text, text.len().saturating_sub(max_bytes))..],
        };
        return (piece.to_string(), lines.len());
    }
    let omitted = lines.len() - kept;
    let body = match keep {
        Keep::Head => lines[..kept].join("\n"),
        Keep::Tail => lines[lines.len() - kept..].join("\n"),
    };
    (body, omitted)
}

fn hint(saved: Option<&Path>, delegate: bool) -> String {
    let where_ = match saved {
        Some(path) => format!("The full output was saved to {}.", path.display()),
        None => "The full output was not kept.".to_string(),
    };
    let how = if delegate {
        "Use the task tool to have the explore agent search it, or use grep, or read \
         with offset/limit, to see the rest; do not read it whole."
    } else {
        "Use grep, or read with offset/limit, to see the rest; do not read it whole."
    };
    format!("{where_} {how}")
}

/// Saves the full output; a failure to save costs the copy, never the call.
fn save(dir: &Path, call_id: &str, output: &str) -> Option<PathBuf> {
    let safe: String = call_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    let stamp = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let path = dir.join(format!("tool_{stamp}_{safe}.txt"));
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, output))
        .map_err(|e| tracing::warn!("cannot save tool output to {}: {e}", path.display()))
        .ok()?;
    Some(path)
}

/// Deletes saved outputs in `dir` older than `max_age`; returns how many went.
pub fn sweep(dir: &Path, max_age: Duration) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let now = SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let ours = name.to_str().is_some_and(|n| n.starts_with("tool_"));
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > max_age);
        if ours && old && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn floor_boundary(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(s: &str, mut at: usize) -> usize {
    while at < s.len() && !s.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests;
