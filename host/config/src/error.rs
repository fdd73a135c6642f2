//! The error type of this crate and the `file:line:column` location every
//! configuration diagnostic carries.
//!
//! Each error renders as one line a person can act on without opening a
//! debugger: where (file, line, column), what went wrong, and — where there is
//! a fixed set of answers — the choices.

use std::fmt;
use std::path::{Path, PathBuf};

/// A position in a configuration file, 1-based like every editor shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The file as it was named when loaded (or a pseudo-name such as
    /// `WARD_CONFIG_CONTENT` for inline configuration).
    pub file: PathBuf,
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in characters (not bytes) so it matches editors.
    pub column: usize,
}

impl Located {
    /// Locates byte `offset` of `text`, which is the content of `file`.
    ///
    /// Offsets past the end (toml reports end-of-input errors there) are
    /// clamped to the end of the text.
    pub fn from_offset(file: &Path, text: &str, offset: usize) -> Self {
        Self::from_offset_in(file, text, &newlines(text), offset)
    }

    /// [`Located::from_offset`] given `text`'s [`newlines`], so locating many offsets
    /// in one text (every key of a file) reads it once, not once per key.
    pub(crate) fn from_offset_in(
        file: &Path,
        text: &str,
        newlines: &[usize],
        offset: usize,
    ) -> Self {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = newlines.partition_point(|&nl| nl < offset);
        let line_start = match line {
            0 => 0,
            n => newlines[n - 1] + 1,
        };
        Self {
            file: file.to_path_buf(),
            line: line + 1,
            column: text[line_start..offset].chars().count() + 1,
        }
    }
}

/// The byte offsets of the newlines in `text`.
pub(crate) fn newlines(text: &str) -> Vec<usize> {
    text.bytes()
        .enumerate()
        .filter_map(|(i, b)| (b == b'\n').then_some(i))
        .collect()
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// Everything that can go wrong reading configuration or a plugin manifest.
///
/// `Display` is a single line starting with the location, e.g.
/// ``ward.toml:12:5: unknown key `permisions` in the top level (expected one of: model, …)``:
/// [`ConfigError::location`], then [`ConfigError::detail`].
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A file could not be read.
    Io {
        /// The file that could not be read.
        file: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// The text is not valid TOML.
    Syntax {
        /// Where the parser gave up.
        at: Located,
        /// The parser's description of the problem.
        message: String,
    },

    /// A key the schema does not know (usually a typo).
    UnknownKey {
        /// Where the key is written.
        at: Located,
        /// The key as written.
        key: String,
        /// The enclosing table: `the top level` or `[dotted.path]`.
        table: String,
        /// The keys that are accepted there.
        expected: Vec<String>,
    },

    /// A value of the wrong TOML type.
    InvalidType {
        /// Where the value is written.
        at: Located,
        /// Dotted key path of the value.
        path: String,
        /// What the schema wants, e.g. `a string`.
        expected: String,
        /// What was written, e.g. `an integer`.
        found: String,
    },

    /// A string outside a fixed set of choices (an enum such as `kind`).
    UnknownValue {
        /// Where the value is written.
        at: Located,
        /// Dotted key path of the value.
        path: String,
        /// The value as written.
        value: String,
        /// The accepted values.
        expected: Vec<String>,
    },

    /// A required key is absent.
    MissingKey {
        /// The table that lacks the key.
        at: Located,
        /// The missing key.
        key: String,
        /// The table: `the top level` or `[dotted.path]`.
        table: String,
    },

    /// A value of the right type that is still not acceptable (bad plugin name,
    /// version that is not semver, out-of-range number, …).
    Invalid {
        /// Where the value is written.
        at: Located,
        /// Dotted key path of the value.
        path: String,
        /// What is wrong and, where useful, what would be right.
        message: String,
    },

    /// `{env:VAR}` names a variable that is not set.
    EnvNotSet {
        /// Where the `{env:…}` token is written.
        at: Located,
        /// The variable name.
        var: String,
    },

    /// `{file:path}` names a file that cannot be read.
    FileNotReadable {
        /// Where the `{file:…}` token is written.
        at: Located,
        /// The resolved path that was tried.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// A substitution whose value cannot be placed where the token is written.
    Substitution {
        /// Where the token is written.
        at: Located,
        /// Why the value does not fit.
        message: String,
    },

    /// The merged configuration failed to deserialize even though every layer
    /// was valid on its own; there is no single file to blame.
    Merged {
        /// The deserializer's message.
        message: String,
    },
}

impl ConfigError {
    /// What is wrong, without the location `Display` starts with: for a message placed
    /// at the location some other way (a [`crate::Warning`] keeps line and column apart).
    pub fn detail(&self) -> String {
        match self {
            Self::Io { file, source } => format!("{}: cannot read: {source}", file.display()),
            Self::Syntax { message, .. } | Self::Substitution { message, .. } => message.clone(),
            Self::UnknownKey {
                key,
                table,
                expected,
                ..
            } => format!("unknown key `{key}` in {table} ({})", choices(expected)),
            Self::InvalidType {
                path,
                expected,
                found,
                ..
            } => format!("invalid type: expected {expected}, found {found} ({path})"),
            Self::UnknownValue {
                path,
                value,
                expected,
                ..
            } => format!("unknown value `{value}` for {path} ({})", choices(expected)),
            Self::MissingKey { key, table, .. } => format!("missing key `{key}` in {table}"),
            Self::Invalid { path, message, .. } => format!("{message} ({path})"),
            Self::EnvNotSet { var, .. } => {
                format!("environment variable `{var}` is not set (in {{env:{var}}})")
            }
            Self::FileNotReadable { path, source, .. } => {
                format!("cannot read `{}` for {{file:…}}: {source}", path.display())
            }
            Self::Merged { message } => format!("merged configuration is invalid: {message}"),
        }
    }

    /// The location of the error, when it has one.
    pub fn location(&self) -> Option<&Located> {
        match self {
            Self::Syntax { at, .. }
            | Self::UnknownKey { at, .. }
            | Self::InvalidType { at, .. }
            | Self::UnknownValue { at, .. }
            | Self::MissingKey { at, .. }
            | Self::Invalid { at, .. }
            | Self::EnvNotSet { at, .. }
            | Self::FileNotReadable { at, .. }
            | Self::Substitution { at, .. } => Some(at),
            Self::Io { .. } | Self::Merged { .. } => None,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location() {
            Some(at) => write!(f, "{at}: {}", self.detail()),
            None => f.write_str(&self.detail()),
        }
    }
}

/// Renders the accepted choices of an unknown key or value.
fn choices(expected: &[String]) -> String {
    if expected.is_empty() {
        "nothing is accepted here".to_owned()
    } else {
        format!("expected one of: {}", expected.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_one_based_lines_and_character_columns() {
        let text = "a = 1\nbé = \"x\"\n";
        let at = |o| Located::from_offset(Path::new("w.toml"), text, o).to_string();
        assert_eq!(at(0), "w.toml:1:1");
        assert_eq!(at(6), "w.toml:2:1");
        // `é` is two bytes but one column.
        assert_eq!(at(10), "w.toml:2:4");
        assert_eq!(at(999), "w.toml:3:1");
    }

    #[test]
    fn display_is_the_location_then_the_detail() {
        let at = Located::from_offset(Path::new("w.toml"), "a\nb", 2);
        let err = ConfigError::EnvNotSet {
            at,
            var: "X".into(),
        };
        assert_eq!(
            err.detail(),
            "environment variable `X` is not set (in {env:X})"
        );
        assert_eq!(
            err.to_string(),
            "w.toml:2:1: environment variable `X` is not set (in {env:X})"
        );
        // A warning places the detail at the error's location, not the file given.
        let warning = crate::Warning::from_config_error(Path::new("other.md"), &err, "skipped");
        assert_eq!(
            warning.to_string(),
            "w.toml:2:1: environment variable `X` is not set (in {env:X}); skipped"
        );
        let merged = ConfigError::Merged {
            message: "m".into(),
        };
        assert_eq!(merged.location(), None);
        assert_eq!(merged.to_string(), "merged configuration is invalid: m");
    }

    #[test]
    fn unknown_key_without_choices_says_so() {
        let err = ConfigError::UnknownKey {
            at: Located::from_offset(Path::new("w.toml"), "", 0),
            key: "x".into(),
            table: "[a]".into(),
            expected: vec![],
        };
        assert_eq!(
            err.to_string(),
            "w.toml:1:1: unknown key `x` in [a] (nothing is accepted here)"
        );
    }
}
