//! The recorded trust decisions: `trust.toml` in Ward's data directory, which no
//! process, MCP server or plugin Ward runs can reach.
//!
//! One entry per project root: the decision (trusted, or kept restricted), the
//! digest of exactly the items the person was shown, and those items' words, so a
//! later change can be named ("new: starts MCP server `db`").
//!
//! ```toml
//! [[project]]
//! path = "/home/me/src/app"
//! decision = "trusted"
//! digest = "5f1c…"
//! items = ["starts MCP server `db`: `node server.js`"]
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ProjectTrust, TrustState};
use crate::substitute::EnvLookup;

/// The file's name in the data directory.
pub const FILE_NAME: &str = "trust.toml";

/// What a person decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The project's items are in force.
    Trusted,
    /// The project stays restricted, and is not asked about again until it changes.
    Restricted,
}

/// One project's recorded decision.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The project root, canonical.
    pub path: PathBuf,
    /// The decision.
    pub decision: Decision,
    /// The digest of the items decided on.
    pub digest: String,
    /// Those items, in words.
    #[serde(default)]
    pub items: Vec<String>,
}

/// Every recorded decision.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Records {
    /// By project.
    #[serde(default, rename = "project")]
    pub projects: Vec<Record>,
}

/// Reading or writing the records failed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a valid record list.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Ward's data directory as the environment names it: `WARD_DATA_DIR`, else
/// `$XDG_DATA_HOME/ward`, else `~/.local/share/ward`.
pub fn data_dir(env: EnvLookup<'_>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    set("WARD_DATA_DIR")
        .or_else(|| set("XDG_DATA_HOME").map(|d| d.join("ward")))
        .or_else(|| set("HOME").map(|h| h.join(".local/share/ward")))
}

impl Records {
    /// The records in `file`; none when it does not exist.
    pub fn load(file: &Path) -> Result<Records, RecordError> {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Records::default()),
            Err(source) => {
                return Err(RecordError::Io {
                    path: file.to_path_buf(),
                    source,
                });
            }
        };
        toml::from_str(&text).map_err(|e| RecordError::Invalid {
            path: file.to_path_buf(),
            message: e.message().to_owned(),
        })
    }

    /// Writes the records to `file` whole (a temporary file renamed over it), so a
    /// reader never sees half a list.
    pub fn save(&self, file: &Path) -> Result<(), RecordError> {
        let io = |source| RecordError::Io {
            path: file.to_path_buf(),
            source,
        };
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let text = toml::to_string(self).map_err(|e| RecordError::Invalid {
            path: file.to_path_buf(),
            message: e.to_string(),
        })?;
        let temporary = file.with_extension(format!("toml.{}", std::process::id()));
        std::fs::write(&temporary, text).map_err(io)?;
        std::fs::rename(&temporary, file).map_err(io)
    }

    /// The record of `project`.
    pub fn get(&self, project: &Path) -> Option<&Record> {
        self.projects.iter().find(|r| r.path == project)
    }

    /// Records `decision` for what `trust` asks for now, replacing any earlier one.
    pub fn decide(&mut self, trust: &ProjectTrust, decision: Decision) {
        self.forget(&trust.project);
        self.projects.push(Record {
            path: trust.project.clone(),
            decision,
            digest: trust.digest.clone(),
            items: trust.items.iter().map(|i| i.what.clone()).collect(),
        });
    }

    /// Removes the record of `project`; whether there was one.
    pub fn forget(&mut self, project: &Path) -> bool {
        let before = self.projects.len();
        self.projects.retain(|r| r.path != project);
        self.projects.len() != before
    }

    /// The state of a project asking for `items` (in words) with `digest` now.
    pub fn state(&self, project: &Path, digest: &str, items: &[String]) -> TrustState {
        let record = self.get(project);
        if let Some(record) = record.filter(|r| r.digest == digest) {
            return match record.decision {
                Decision::Trusted => TrustState::Trusted,
                Decision::Restricted => TrustState::Declined,
            };
        }
        if items.is_empty() {
            return TrustState::NothingAsked;
        }
        let Some(record) = record else {
            return TrustState::Undecided;
        };
        match record.decision {
            // A project kept restricted that changed is simply undecided again.
            Decision::Restricted => TrustState::Undecided,
            Decision::Trusted => TrustState::Changed {
                added: items
                    .iter()
                    .filter(|i| !record.items.contains(i))
                    .cloned()
                    .collect(),
                removed: record
                    .items
                    .iter()
                    .filter(|i| !items.contains(i))
                    .cloned()
                    .collect(),
            },
        }
    }
}
