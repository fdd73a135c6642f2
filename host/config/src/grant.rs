//! Capability names and the grants a person writes in `[plugins.NAME] grant`.
//!
//! A grant is a capability name, optionally narrowed by a scope after the
//! first `:` — `fs-read`, `fs-read:$WORKSPACE/docs`, `net:https://api.example.com`,
//! `exec:git *`, `env:GITHUB_TOKEN`. The plugin runtime intersects grants with
//! the manifest's ceiling; this module only checks that they are well formed.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A capability a plugin can declare in its manifest and a person can grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Capability {
    /// Read files under granted paths.
    FsRead,
    /// Write files under granted paths.
    FsWrite,
    /// Outgoing HTTP to granted hosts.
    Net,
    /// Run granted command patterns through the host.
    Exec,
    /// Read granted environment variables.
    Env,
    /// Receive hook calls for granted tools.
    Hooks,
}

impl Capability {
    /// Every capability, in the order they are documented.
    pub const ALL: [Capability; 6] = [
        Self::FsRead,
        Self::FsWrite,
        Self::Net,
        Self::Exec,
        Self::Env,
        Self::Hooks,
    ];

    /// The name used in manifests and grants, e.g. `fs-read`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FsRead => "fs-read",
            Self::FsWrite => "fs-write",
            Self::Net => "net",
            Self::Exec => "exec",
            Self::Env => "env",
            Self::Hooks => "hooks",
        }
    }

    /// Looks a capability up by its name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One entry of `[plugins.NAME] grant`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Grant {
    /// The capability granted.
    pub capability: Capability,
    /// What it is narrowed to (a path, URL, command pattern or variable);
    /// `None` grants everything the manifest declares for the capability.
    pub scope: Option<String>,
}

/// Why the text of a grant is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrantError {
    /// The part before the first `:` names no capability.
    #[error(
        "unknown capability `{name}` (expected one of: {})",
        capability_names()
    )]
    UnknownCapability {
        /// The name as written.
        name: String,
    },
    /// A `:` with nothing after it.
    #[error("empty scope after `{capability}:`")]
    EmptyScope {
        /// The capability as written before the `:`.
        capability: String,
    },
}

/// The capability names, for [`GrantError::UnknownCapability`].
fn capability_names() -> String {
    let names: Vec<_> = Capability::ALL.iter().map(|c| c.as_str()).collect();
    names.join(", ")
}

impl FromStr for Grant {
    type Err = GrantError;

    fn from_str(text: &str) -> Result<Self, GrantError> {
        let (name, scope) = match text.split_once(':') {
            Some((name, scope)) => (name, Some(scope)),
            None => (text, None),
        };
        let capability =
            Capability::from_name(name.trim()).ok_or_else(|| GrantError::UnknownCapability {
                name: name.to_string(),
            })?;
        let scope = match scope.map(str::trim) {
            Some("") => {
                return Err(GrantError::EmptyScope {
                    capability: name.to_string(),
                });
            }
            scope => scope.map(str::to_owned),
        };
        Ok(Self { capability, scope })
    }
}

impl fmt::Display for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.scope {
            Some(scope) => write!(f, "{}:{scope}", self.capability),
            None => write!(f, "{}", self.capability),
        }
    }
}

impl<'de> Deserialize<'de> for Grant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Parsing inside the visitor (rather than after deserializing a
        // String) lets toml attach the entry's own span to the error, so a bad
        // grant in an array is located at that entry.
        struct GrantVisitor;
        impl serde::de::Visitor<'_> for GrantVisitor {
            type Value = Grant;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string such as `fs-read` or `net:https://host`")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Grant, E> {
                text.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_str(GrantVisitor)
    }
}

impl Serialize for Grant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_parse_with_and_without_scope() {
        let g: Grant = "fs-read".parse().unwrap();
        assert_eq!((g.capability, g.scope), (Capability::FsRead, None));
        let g: Grant = "net:https://api.example.com".parse().unwrap();
        assert_eq!(g.capability, Capability::Net);
        assert_eq!(g.scope.as_deref(), Some("https://api.example.com"));
        assert_eq!(g.to_string(), "net:https://api.example.com");
        let g: Grant = "exec:git *".parse().unwrap();
        assert_eq!(g.scope.as_deref(), Some("git *"));
    }

    #[test]
    fn bad_grants_are_explained() {
        let unknown = "fs-rd".parse::<Grant>().unwrap_err();
        assert_eq!(
            unknown,
            GrantError::UnknownCapability {
                name: "fs-rd".into()
            }
        );
        assert_eq!(
            unknown.to_string(),
            "unknown capability `fs-rd` (expected one of: fs-read, fs-write, net, exec, env, hooks)"
        );
        let empty = "env:".parse::<Grant>().unwrap_err();
        assert_eq!(
            empty,
            GrantError::EmptyScope {
                capability: "env".into()
            }
        );
        assert_eq!(empty.to_string(), "empty scope after `env:`");
    }
}
