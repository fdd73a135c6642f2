//! The package index: a JSON document listing plugins and their versions.
//!
//! ```json
//! {
//!   "format": 1,
//!   "plugins": [
//!     {
//!       "name": "hello",
//!       "description": "Greets people",
//!       "kinds": ["tool"],
//!       "versions": [
//!         {
//!           "version": "1.0.0",
//!           "capabilities": ["net:https://api.example.com", "env:GITHUB_TOKEN"],
//!           "url": "hello-1.0.0.wardpkg",
//!           "sha256": "…64 hex digits…",
//!           "signature": "…128 hex digits…"
//!         }
//!       ]
//!     }
//!   ]
//! }
//! ```
//!
//! `url` is absolute (`https://…`) or relative to the index's own location.
//! `capabilities` are what the package's manifest asks for, as grant strings;
//! install refuses a package that asks for more than its index entry says.
//! `signature` (optional) is an ed25519 signature, hex, over the 32 raw bytes of
//! the archive's SHA-256 digest (see [`crate::sign`]). Unknown fields are errors.

use serde::{Deserialize, Serialize};
use ward_config::{Grant, Kind, is_plugin_name};

use crate::digest::is_sha256;

/// Semantic versions, as index entries are compared.
pub use semver::Version;

/// The index format this Ward reads and writes.
pub const FORMAT: u32 = 1;

/// A package index.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    /// The index format; only [`FORMAT`] is understood.
    #[serde(default = "format")]
    pub format: u32,
    /// The plugins, by unique name.
    #[serde(default)]
    pub plugins: Vec<IndexPlugin>,
}

fn format() -> u32 {
    FORMAT
}

impl Default for Index {
    fn default() -> Self {
        Self {
            format: FORMAT,
            plugins: Vec::new(),
        }
    }
}

/// One plugin of an index.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IndexPlugin {
    /// The plugin's name, as in its manifest.
    pub name: String,
    /// One line saying what it does.
    #[serde(default)]
    pub description: String,
    /// What it provides.
    #[serde(default)]
    pub kinds: Vec<Kind>,
    /// Its published versions.
    pub versions: Vec<IndexVersion>,
}

/// One published version of a plugin.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IndexVersion {
    /// A semantic version.
    pub version: String,
    /// The capabilities the package's manifest asks for, as grant strings.
    #[serde(default)]
    pub capabilities: Vec<Grant>,
    /// The archive: absolute, or relative to the index.
    pub url: String,
    /// The archive's SHA-256, hex.
    pub sha256: String,
    /// An ed25519 signature (hex) over the archive's 32-byte SHA-256 digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl IndexVersion {
    /// The parsed version (validated by [`Index::parse`]).
    pub fn semver(&self) -> Option<semver::Version> {
        semver::Version::parse(&self.version).ok()
    }
}

impl IndexPlugin {
    /// The version `wanted`, else the newest release (pre-releases only when there
    /// is nothing else).
    pub fn pick(&self, wanted: Option<&str>) -> Option<&IndexVersion> {
        if let Some(wanted) = wanted {
            let wanted = semver::Version::parse(wanted).ok();
            return self
                .versions
                .iter()
                .find(|v| wanted.is_some() && v.semver() == wanted);
        }
        let newest = |release_only: bool| {
            self.versions
                .iter()
                .filter(|v| !release_only || v.semver().is_some_and(|s| s.pre.is_empty()))
                .max_by_key(|v| v.semver())
        };
        newest(true).or_else(|| newest(false))
    }

    /// The versions, comma-separated, for messages.
    pub fn version_list(&self) -> String {
        let list: Vec<&str> = self.versions.iter().map(|v| v.version.as_str()).collect();
        if list.is_empty() {
            "none".to_owned()
        } else {
            list.join(", ")
        }
    }
}

/// Why an index is not a valid one; each names the plugin and version at fault.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The text is not JSON of the index's shape (serde's message ends with the line
    /// and column).
    #[error("invalid index JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A format this Ward does not read.
    #[error("unsupported index format {found} (this Ward reads format {FORMAT})")]
    Format {
        /// The format the index says it is.
        found: u32,
    },
    /// A plugin name Ward does not accept.
    #[error(
        "plugins[{position}]: invalid plugin name `{name}` (lowercase letters, digits, `-` and `_`)"
    )]
    PluginName {
        /// The plugin's position in the list.
        position: usize,
        /// The name as written.
        name: String,
    },
    /// Two entries for one plugin.
    #[error("plugin `{name}` is listed twice")]
    DuplicatePlugin {
        /// The plugin.
        name: String,
    },
    /// A version that is not semver.
    #[error("plugin `{plugin}` version `{version}`: not a semantic version such as 1.0.0")]
    NotSemver {
        /// The plugin.
        plugin: String,
        /// The version as written.
        version: String,
    },
    /// Two entries for one version of a plugin.
    #[error("plugin `{plugin}` version `{version}` is listed twice")]
    DuplicateVersion {
        /// The plugin.
        plugin: String,
        /// The version.
        version: String,
    },
    /// A digest that is not 64 hex digits.
    #[error(
        "plugin `{plugin}` version `{version}`: invalid sha256 `{sha256}`: expected 64 hexadecimal digits"
    )]
    Sha256 {
        /// The plugin.
        plugin: String,
        /// The version.
        version: String,
        /// The digest as written.
        sha256: String,
    },
    /// No URL to download the archive from.
    #[error("plugin `{plugin}` version `{version}`: empty url")]
    EmptyUrl {
        /// The plugin.
        plugin: String,
        /// The version.
        version: String,
    },
    /// A signature that is not 128 hex digits.
    #[error(
        "plugin `{plugin}` version `{version}`: invalid signature: expected 128 hexadecimal digits"
    )]
    Signature {
        /// The plugin.
        plugin: String,
        /// The version.
        version: String,
    },
}

impl Index {
    /// Parses and validates an index; the error names the line and column of a JSON
    /// error, or the plugin and version of a bad value.
    pub fn parse(text: &str) -> Result<Index, IndexError> {
        let index: Index = serde_json::from_str(text)?;
        index.validate()?;
        Ok(index)
    }

    /// Checks names, versions, digests and signatures, and that nothing is
    /// listed twice.
    pub fn validate(&self) -> Result<(), IndexError> {
        if self.format != FORMAT {
            return Err(IndexError::Format { found: self.format });
        }
        for (i, plugin) in self.plugins.iter().enumerate() {
            let name = &plugin.name;
            if !is_plugin_name(name) {
                return Err(IndexError::PluginName {
                    position: i,
                    name: name.clone(),
                });
            }
            if self.plugins[..i].iter().any(|p| &p.name == name) {
                return Err(IndexError::DuplicatePlugin { name: name.clone() });
            }
            for (j, v) in plugin.versions.iter().enumerate() {
                let (plugin_name, version) = (name.clone(), v.version.clone());
                if v.semver().is_none() {
                    return Err(IndexError::NotSemver {
                        plugin: plugin_name,
                        version,
                    });
                }
                if plugin.versions[..j]
                    .iter()
                    .any(|w| w.semver() == v.semver())
                {
                    return Err(IndexError::DuplicateVersion {
                        plugin: plugin_name,
                        version,
                    });
                }
                if !is_sha256(&v.sha256) {
                    return Err(IndexError::Sha256 {
                        plugin: plugin_name,
                        version,
                        sha256: v.sha256.clone(),
                    });
                }
                if v.url.trim().is_empty() {
                    return Err(IndexError::EmptyUrl {
                        plugin: plugin_name,
                        version,
                    });
                }
                if let Some(sig) = &v.signature
                    && !(sig.len() == 128 && sig.chars().all(|c| c.is_ascii_hexdigit()))
                {
                    return Err(IndexError::Signature {
                        plugin: plugin_name,
                        version,
                    });
                }
            }
        }
        Ok(())
    }

    /// The plugin named `name`.
    pub fn plugin(&self, name: &str) -> Option<&IndexPlugin> {
        self.plugins.iter().find(|p| p.name == name)
    }

    /// Adds `version` of plugin `name` (replacing an entry of the same version),
    /// taking the description and kinds from it as the newest word on the plugin.
    pub fn upsert(&mut self, name: &str, description: &str, kinds: &[Kind], version: IndexVersion) {
        let position = self.plugins.iter().position(|p| p.name == name);
        let plugin = match position {
            Some(i) => &mut self.plugins[i],
            None => {
                self.plugins.push(IndexPlugin {
                    name: name.to_owned(),
                    description: String::new(),
                    kinds: Vec::new(),
                    versions: Vec::new(),
                });
                let last = self.plugins.len() - 1;
                &mut self.plugins[last]
            }
        };
        plugin.description = description.to_owned();
        plugin.kinds = kinds.to_vec();
        plugin.versions.retain(|v| v.version != version.version);
        plugin.versions.push(version);
        plugin.versions.sort_by_key(IndexVersion::semver);
    }

    /// The index as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }
}

#[cfg(test)]
mod tests;
