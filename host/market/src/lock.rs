//! `ward.lock`, at the project root: every plugin installed from a marketplace,
//! with its version, source, archive digest, file digests, the capabilities it
//! requests and those a person granted. Ward reads the grants from here (config's
//! `[plugins.NAME] grant` wins when both are set); `ward plugin grant/revoke` edit
//! them, `ward plugin remove` deletes the entry with the files.
//!
//! ```toml
//! version = 1
//!
//! [[plugin]]
//! name = "hello"
//! version = "1.0.0"
//! source = "team"
//! url = "https://plugins.example.com/hello-1.0.0.wardpkg"
//! sha256 = "…"
//! requested = ["net:https://api.example.com"]
//! grant = ["net:https://api.example.com"]
//!
//! [plugin.files]
//! "plugin.toml" = "…"
//! "hello.wasm" = "…"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ward_config::Grant;

use crate::MarketError;

/// The lock file's name, at the project root.
pub const LOCK_FILE: &str = "ward.lock";

/// The lock format written.
const VERSION: u32 = 1;

/// The whole lock file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// The lock format (1).
    pub version: u32,
    /// Installed plugins, by name.
    #[serde(default, rename = "plugin", skip_serializing_if = "Vec::is_empty")]
    pub plugins: Vec<LockEntry>,
}

impl Default for Lock {
    fn default() -> Self {
        Self {
            version: VERSION,
            plugins: Vec::new(),
        }
    }
}

/// One installed plugin.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LockEntry {
    /// The plugin's name (its directory under `.ward/plugins/`).
    pub name: String,
    /// The installed version.
    pub version: String,
    /// The source it came from.
    pub source: String,
    /// Where the archive was fetched from.
    pub url: String,
    /// The archive's SHA-256.
    pub sha256: String,
    /// What the installed manifest asks for.
    #[serde(default)]
    pub requested: Vec<Grant>,
    /// What a person granted.
    #[serde(default)]
    pub grant: Vec<Grant>,
    /// Every installed file's SHA-256, `plugin.toml` included.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

impl Lock {
    /// The lock file of `project`.
    pub fn path(project: &Path) -> PathBuf {
        project.join(LOCK_FILE)
    }

    /// Reads `project`'s lock; an absent file is an empty lock.
    pub fn load(project: &Path) -> Result<Lock, MarketError> {
        let path = Self::path(project);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Lock::default()),
            Err(source) => return Err(MarketError::Io { path, source }),
        };
        let lock: Lock = toml::from_str(&text).map_err(|e| MarketError::Lock {
            path: path.clone(),
            message: located(&text, &e),
        })?;
        if lock.version != VERSION {
            return Err(MarketError::Lock {
                path,
                message: format!(
                    "unsupported lock version {} (this Ward writes {VERSION})",
                    lock.version
                ),
            });
        }
        Ok(lock)
    }

    /// Writes the lock to `project` (atomically: a temporary file renamed over it).
    pub fn save(&self, project: &Path) -> Result<(), MarketError> {
        let path = Self::path(project);
        let body = toml::to_string(self).map_err(|e| MarketError::Lock {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let text = format!(
            "# Written by `ward plugin install/update/remove/grant/revoke`. Grants here apply\n\
             # unless ward.toml sets `[plugins.NAME] grant`.\n{body}"
        );
        let tmp = project.join(format!("{LOCK_FILE}.tmp"));
        std::fs::write(&tmp, text).map_err(MarketError::io(&tmp))?;
        std::fs::rename(&tmp, &path).map_err(MarketError::io(&path))
    }

    /// The entry of `name`.
    pub fn get(&self, name: &str) -> Option<&LockEntry> {
        self.plugins.iter().find(|p| p.name == name)
    }

    /// The entry of `name`, or [`MarketError::NotInstalled`].
    pub fn entry_mut(&mut self, name: &str) -> Result<&mut LockEntry, MarketError> {
        self.plugins
            .iter_mut()
            .find(|p| p.name == name)
            .ok_or_else(|| MarketError::NotInstalled {
                name: name.to_owned(),
            })
    }

    /// Records `entry`, replacing one of the same name; entries stay sorted.
    pub fn insert(&mut self, entry: LockEntry) {
        self.plugins.retain(|p| p.name != entry.name);
        self.plugins.push(entry);
        self.plugins.sort_by(|a, b| a.name.cmp(&b.name));
    }

    /// Removes and returns the entry of `name`.
    pub fn remove(&mut self, name: &str) -> Option<LockEntry> {
        let i = self.plugins.iter().position(|p| p.name == name)?;
        Some(self.plugins.remove(i))
    }

    /// The grants by plugin name, as the plugin runtime takes them.
    pub fn grants(&self) -> BTreeMap<String, Vec<String>> {
        self.plugins
            .iter()
            .map(|p| {
                (
                    p.name.clone(),
                    p.grant.iter().map(ToString::to_string).collect(),
                )
            })
            .collect()
    }
}

/// A TOML error as `line L, column C: message`.
fn located(text: &str, e: &toml::de::Error) -> String {
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("line {line}, column {column}: {}", e.message())
        }
        None => e.message().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ward-lock-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_lock_round_trips_and_yields_grants() {
        let d = dir("round");
        assert_eq!(
            Lock::load(&d).unwrap(),
            Lock::default(),
            "no file, no plugins"
        );
        let mut lock = Lock::default();
        lock.insert(LockEntry {
            name: "hello".into(),
            version: "1.0.0".into(),
            source: "team".into(),
            url: "https://example.com/hello-1.0.0.wardpkg".into(),
            sha256: "0".repeat(64),
            requested: vec!["net:https://api.example.com".parse().unwrap()],
            grant: vec!["net:https://api.example.com".parse().unwrap()],
            files: [("hello.wasm".to_owned(), "1".repeat(64))].into(),
        });
        lock.save(&d).unwrap();
        let back = Lock::load(&d).unwrap();
        assert_eq!(back, lock);
        assert_eq!(
            back.grants()["hello"],
            ["net:https://api.example.com".to_owned()]
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_broken_lock_names_file_line_and_column() {
        let d = dir("broken");
        std::fs::write(d.join(LOCK_FILE), "version = 1\n[[plugin]]\nname = 3\n").unwrap();
        let e = Lock::load(&d).unwrap_err().to_string();
        assert!(e.contains("ward.lock: line 3, column 8: "), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
