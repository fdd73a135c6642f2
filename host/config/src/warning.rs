//! [`Warning`]: a problem in a definition Ward loads from disk (an agent, a
//! command, a skill) that does not stop it from starting: the definition is
//! skipped or replaced by a fallback, everything else loads. Each renders as one
//! line, located when possible.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::ConfigError;

/// A problem found while loading definitions from disk.
///
/// `Display` is one line: `file:line:column: message` when the position is
/// known, `file: message` when only the file is, else just `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The file the problem is in, when there is one.
    pub file: Option<PathBuf>,
    /// 1-based line in `file`, when known.
    pub line: Option<usize>,
    /// 1-based column in `file` (in characters), when known.
    pub column: Option<usize>,
    /// What is wrong and what Ward did about it.
    pub message: String,
}

impl Warning {
    /// A warning that is not about any particular file.
    pub fn new(message: impl Into<String>) -> Self {
        Warning {
            file: None,
            line: None,
            column: None,
            message: message.into(),
        }
    }

    /// A warning about `file` as a whole.
    pub fn in_file(file: &Path, message: impl Into<String>) -> Self {
        Warning {
            file: Some(file.to_path_buf()),
            ..Warning::new(message)
        }
    }

    /// A warning about `file` at `line`, `column`.
    pub fn at(file: &Path, line: usize, column: usize, message: impl Into<String>) -> Self {
        Warning {
            line: Some(line),
            column: Some(column),
            ..Warning::in_file(file, message)
        }
    }

    /// A warning from a configuration error, keeping its position and adding
    /// `consequence` (what Ward did instead) to the message.
    pub fn from_config_error(file: &Path, error: &ConfigError, consequence: &str) -> Self {
        let message = format!("{}; {consequence}", error.detail());
        match error.location() {
            Some(at) => Warning::at(&at.file, at.line, at.column, message),
            None => Warning::in_file(file, message),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}:", file.display())?;
            if let Some(line) = self.line {
                write!(f, "{line}:")?;
                if let Some(column) = self.column {
                    write!(f, "{column}:")?;
                }
            }
            f.write_str(" ")?;
        }
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_as_one_line_with_what_is_known() {
        assert_eq!(Warning::new("plain").to_string(), "plain");
        assert_eq!(
            Warning::in_file(Path::new("a.md"), "unreadable").to_string(),
            "a.md: unreadable"
        );
        assert_eq!(
            Warning::at(Path::new("a.md"), 3, 7, "bad").to_string(),
            "a.md:3:7: bad"
        );
    }
}
