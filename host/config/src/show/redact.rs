//! Hiding the secrets of a loaded configuration wherever it is shown:
//! `ward config show`, the server's `GET /config`, and log lines.
//!
//! A value is hidden by where it sits, decided field by field, never by what it
//! looks like:
//!
//! - the fields that exist to hold credentials: `provider.*.api_key`, every
//!   value of `provider.*.headers` and `mcp.*.headers`, every value of
//!   `mcp.*.environment`;
//! - any string that `{env:…}` or `{file:…}` substitution spelt, in whole or
//!   in part, in the layer that set it last ([`Origins::is_substituted`]): the
//!   file names the secret without holding it, so showing the value would
//!   publish what the file kept out;
//! - the user-information part of any URL (`https://user:token@host` →
//!   `https://***@host`), the one place a credential sits inside an otherwise
//!   public value.
//!
//! Only strings change, and each stays a string, so the shape of what is
//! shown (OpenCode's `GET /config` included) is the same as without secrets.
//! Numbers and booleans are left as they are even when substituted: they
//! carry no credential, and changing their type would break the shape.

use std::borrow::Cow;

use crate::load::LoadedConfig;
use crate::origin::Origins;

/// What a hidden string becomes, and what replaces a URL's user information.
pub const REDACTED: &str = "***";

/// What to show of one string value of the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redaction {
    /// The value as it is: it holds no secret.
    Shown,
    /// Nothing of the value: it is, or may be, a secret.
    Hidden,
    /// The value with the credentials of the URLs in it replaced.
    Masked(String),
}

/// Decides, for a loaded configuration, which of its values are secret.
#[derive(Debug, Clone, Copy)]
pub struct Redactor<'a> {
    origins: &'a Origins,
}

impl<'a> Redactor<'a> {
    /// A redactor for `loaded`, whose origins know which values were substituted.
    pub fn new(loaded: &'a LoadedConfig) -> Self {
        Self {
            origins: &loaded.origins,
        }
    }

    /// What to show of the string `value` found at `path` in the merged
    /// configuration (TOML keys; an array element by its index).
    pub fn string(&self, path: &[&str], value: &str) -> Redaction {
        if secret_field(path) || self.origins.is_substituted(path) {
            return Redaction::Hidden;
        }
        match mask_url_credentials(value) {
            Cow::Borrowed(_) => Redaction::Shown,
            Cow::Owned(masked) => Redaction::Masked(masked),
        }
    }

    /// Replaces every secret string under `value`, which sits at `path`
    /// (empty for the whole configuration).
    pub fn toml(&self, path: &mut Vec<String>, value: &mut toml::Value) {
        match value {
            toml::Value::String(text) => {
                if let Some(shown) = self.replacement(path, text) {
                    *text = shown;
                }
            }
            toml::Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    path.push(index.to_string());
                    self.toml(path, item);
                    path.pop();
                }
            }
            toml::Value::Table(table) => {
                for (key, item) in table.iter_mut() {
                    path.push(key.clone());
                    self.toml(path, item);
                    path.pop();
                }
            }
            toml::Value::Integer(_)
            | toml::Value::Float(_)
            | toml::Value::Boolean(_)
            | toml::Value::Datetime(_) => {}
        }
    }

    /// Replaces every secret string under `value`, which sits at `path`
    /// (empty for the whole configuration serialized as JSON).
    pub fn json(&self, path: &mut Vec<String>, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(text) => {
                if let Some(shown) = self.replacement(path, text) {
                    *text = shown;
                }
            }
            serde_json::Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    path.push(index.to_string());
                    self.json(path, item);
                    path.pop();
                }
            }
            serde_json::Value::Object(object) => {
                for (key, item) in object.iter_mut() {
                    path.push(key.clone());
                    self.json(path, item);
                    path.pop();
                }
            }
            serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {
            }
        }
    }

    /// The text to put in place of `value`, if it must change.
    fn replacement(&self, path: &[String], value: &str) -> Option<String> {
        let keys: Vec<&str> = path.iter().map(String::as_str).collect();
        match self.string(&keys, value) {
            Redaction::Shown => None,
            Redaction::Hidden => Some(REDACTED.to_owned()),
            Redaction::Masked(masked) => Some(masked),
        }
    }
}

/// The merged configuration as JSON (the shape `GET /config` answers with),
/// every secret replaced.
pub fn config_json(loaded: &LoadedConfig) -> Result<serde_json::Value, serde_json::Error> {
    let mut value = serde_json::to_value(&loaded.config)?;
    Redactor::new(loaded).json(&mut Vec::new(), &mut value);
    Ok(value)
}

/// The fields that exist to hold credentials, by their place in the schema.
fn secret_field(path: &[&str]) -> bool {
    matches!(
        path,
        ["provider", _, "api_key"]
            | ["provider" | "mcp", _, "headers", _]
            | ["mcp", _, "environment", _]
    )
}

/// `text` with the user information of every URL in it (`scheme://user:pass@`)
/// replaced by [`REDACTED`]; borrowed when there is none. The user name goes
/// too: it is often the token itself (`https://ghp_…@github.com`).
///
/// ```
/// use ward_config::show::redact::mask_url_credentials;
/// assert_eq!(mask_url_credentials("https://u:pw@h/v1"), "https://***@h/v1");
/// assert_eq!(mask_url_credentials("https://h/v1?x=a@b"), "https://h/v1?x=a@b");
/// ```
pub fn mask_url_credentials(text: &str) -> Cow<'_, str> {
    let mut out = String::new();
    // Start of the not-yet-copied rest of `text`.
    let mut copied = 0;
    let mut search = 0;
    while let Some(found) = text[search..].find("://") {
        let authority_start = search + found + 3;
        // The authority ends where the path, query or fragment starts, or where
        // the URL itself ends inside a longer text.
        let authority_len = text[authority_start..]
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>') || c.is_whitespace()
            })
            .unwrap_or(text.len() - authority_start);
        let authority = &text[authority_start..authority_start + authority_len];
        if let Some(at) = authority.rfind('@').filter(|at| *at > 0) {
            out.push_str(&text[copied..authority_start]);
            out.push_str(REDACTED);
            copied = authority_start + at;
        }
        search = authority_start + authority_len;
    }
    if out.is_empty() {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
#[path = "redact_tests.rs"]
mod tests;
