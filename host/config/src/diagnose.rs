//! Turning toml's parse and deserialization errors into one-line, located
//! [`ConfigError`]s.
//!
//! serde's messages (`unknown field `x`, expected one of …`) are recognised and
//! rephrased in terms of TOML (keys, tables, arrays) rather than Rust types,
//! and the byte span is mapped back through substitution to the text the user
//! wrote.

use std::path::Path;

use crate::error::{ConfigError, Located};
use crate::locate::{self, Hit};
use crate::substitute::SourceMap;

/// A parsed text and what is needed to report errors in it.
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    /// Name used in error locations.
    pub(crate) file: &'a Path,
    /// The text as written, which locations refer to.
    pub(crate) original: &'a str,
    /// The text that was parsed (after substitution).
    pub(crate) text: &'a str,
    /// Maps `text` offsets to `original` offsets; `None` when they are equal.
    pub(crate) map: Option<&'a SourceMap>,
}

impl<'a> Source<'a> {
    /// A text parsed as written, without substitution.
    pub(crate) fn plain(file: &'a Path, text: &'a str) -> Self {
        Self {
            file,
            original: text,
            text,
            map: None,
        }
    }

    /// Locates a byte offset of the parsed text in the original.
    pub(crate) fn locate(&self, offset: usize) -> Located {
        let offset = self.map.map_or(offset, |map| map.original_offset(offset));
        Located::from_offset(self.file, self.original, offset)
    }

    /// [`Source::locate`] given the original text's newlines (see
    /// [`crate::error::newlines`]), for locating many offsets.
    pub(crate) fn locate_in(&self, newlines: &[usize], offset: usize) -> Located {
        let offset = self.map.map_or(offset, |map| map.original_offset(offset));
        Located::from_offset_in(self.file, self.original, newlines, offset)
    }

    /// Parses the text into a table, reporting syntax errors.
    pub(crate) fn parse_table(&self) -> Result<toml::Table, ConfigError> {
        toml::from_str(self.text).map_err(|err| self.error(&err))
    }

    /// Deserializes the text into `T`, reporting errors against the original.
    pub(crate) fn deserialize<T: serde::de::DeserializeOwned>(&self) -> Result<T, ConfigError> {
        toml::from_str(self.text).map_err(|err| self.error(&err))
    }

    /// Converts a toml error raised while reading this text.
    pub(crate) fn error(&self, err: &toml::de::Error) -> ConfigError {
        let span = err.span();
        let at = self.locate(span.as_ref().map_or(0, |s| s.start));
        if toml::de::DeTable::parse(self.text).is_err() {
            return ConfigError::Syntax {
                at,
                message: format!("invalid TOML: {}", err.message().trim()),
            };
        }
        // toml reports errors about the document as a whole (a missing
        // top-level key) with no span or an empty one at offset 0.
        let hit = span
            .filter(|span| !span.is_empty())
            .and_then(|span| locate::find(self.text, &span));
        classify(err.message(), at, hit.as_ref())
    }
}

/// Rephrases a serde message for the key or value it was raised on.
fn classify(message: &str, at: Located, hit: Option<&Hit>) -> ConfigError {
    let path = hit.map(|h| h.path.clone()).unwrap_or_default();
    let path_text = || {
        if path.0.is_empty() {
            "the top level".to_owned()
        } else {
            path.to_string()
        }
    };
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (key, tail) = split_quoted(rest);
        // The span is the key, so the key's parent is the table it is in.
        let table = if hit.is_some_and(|h| h.on_key) {
            path.parent()
        } else {
            path.clone()
        };
        return ConfigError::UnknownKey {
            at,
            key: key.to_owned(),
            table: table.table_name(),
            expected: backticked(tail),
        };
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (value, tail) = split_quoted(rest);
        return ConfigError::UnknownValue {
            at,
            path: path_text(),
            value: value.to_owned(),
            expected: backticked(tail),
        };
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let (key, _) = split_quoted(rest);
        return ConfigError::MissingKey {
            at,
            key: key.to_owned(),
            table: path.table_name(),
        };
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        let (found, expected) = rest
            .split_once(", expected ")
            .unwrap_or((rest, "another type"));
        let found = match hit {
            Some(h) if !h.on_key => with_article(h.value_type),
            _ => describe_unexpected(found),
        };
        return ConfigError::InvalidType {
            at,
            path: path_text(),
            expected: friendly_expected(expected),
            found,
        };
    }
    if let Some(rest) = message.strip_prefix("invalid value: ") {
        let (found, expected) = rest
            .split_once(", expected ")
            .unwrap_or((rest, "another value"));
        return ConfigError::Invalid {
            at,
            path: path_text(),
            message: format!(
                "invalid value: expected {}, found {}",
                friendly_expected(expected),
                describe_unexpected(found)
            ),
        };
    }
    ConfigError::Invalid {
        at,
        path: path_text(),
        message: message.trim().to_owned(),
    }
}

/// Splits "name`, rest" into the backticked name and the rest.
fn split_quoted(rest: &str) -> (&str, &str) {
    match rest.find("`, ") {
        Some(end) => (&rest[..end], &rest[end + 1..]),
        None => (rest.strip_suffix('`').unwrap_or(rest), ""),
    }
}

/// The backticked words of serde's "expected `a`, `b` or `c`" lists.
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// `integer` → `an integer`, using TOML's names for types.
fn with_article(toml_type: &str) -> String {
    match toml_type {
        "integer" | "array" => format!("an {toml_type}"),
        other => format!("a {other}"),
    }
}

/// Describes serde's `Unexpected` rendering (``integer `3` ``) in TOML terms.
fn describe_unexpected(found: &str) -> String {
    let kind = found.split([' ', '`', '"']).next().unwrap_or(found);
    match kind {
        "boolean" => "a boolean".to_owned(),
        "integer" => match found.split('`').nth(1) {
            Some(n) => format!("the integer {n}"),
            None => "an integer".to_owned(),
        },
        "floating" => "a float".to_owned(),
        "string" | "character" => "a string".to_owned(),
        "map" => "a table".to_owned(),
        "sequence" => "an array".to_owned(),
        _ => found.to_owned(),
    }
}

/// Rephrases serde's "expected" text (Rust type names) in TOML terms.
fn friendly_expected(expected: &str) -> String {
    let expected = expected.trim();
    match expected {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a non-negative integer".to_owned(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "an integer".to_owned(),
        "f32" | "f64" => "a number".to_owned(),
        "a map" => "a table".to_owned(),
        "a sequence" => "an array".to_owned(),
        "a boolean" | "a string" => expected.to_owned(),
        _ if expected.starts_with("struct ") => "a table".to_owned(),
        _ if expected.starts_with("enum ") => "a string".to_owned(),
        _ => expected.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_lists_become_choices() {
        assert_eq!(backticked(", expected `a` or `b`"), ["a", "b"]);
        assert_eq!(
            backticked(", expected one of `a`, `b`, `c`"),
            ["a", "b", "c"]
        );
        assert!(backticked(", there are no fields").is_empty());
        assert_eq!(split_quoted("x`, expected `a`"), ("x", ", expected `a`"));
        assert_eq!(split_quoted("x`"), ("x", ""));
    }

    #[test]
    fn rust_types_are_described_as_toml() {
        assert_eq!(friendly_expected("u64"), "a non-negative integer");
        assert_eq!(friendly_expected("struct Compaction"), "a table");
        assert_eq!(describe_unexpected("integer `-1`"), "the integer -1");
        assert_eq!(describe_unexpected("string \"x\""), "a string");
        assert_eq!(with_article("array"), "an array");
    }

    #[test]
    fn syntax_errors_are_located() {
        let text = "a = 1\nb = = 2\n";
        let src = Source::plain(Path::new("w.toml"), text);
        let err = src.parse_table().err().map(|e| e.to_string());
        let err = err.unwrap_or_default();
        assert!(err.starts_with("w.toml:2:5: invalid TOML: "), "{err}");
    }
}
