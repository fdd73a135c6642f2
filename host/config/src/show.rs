//! The merged configuration as `key = value` lines, each with the place that set
//! it, for `ward config show`.
//!
//! Every leaf of the effective [`Config`](crate::Config) is listed — including
//! values no file set, marked as defaults — under its dotted TOML key, with the
//! `file:line:column` of the highest-precedence layer that wrote it (a
//! `ward.toml` or an OpenCode file). Secrets are not printed, only whether they
//! are set: [`redact`] decides which values are secret, for this listing, for the
//! server's `GET /config` and for log lines alike.

pub mod redact;

use crate::error::Located;
use crate::load::LoadedConfig;
use redact::{Redaction, Redactor};

/// One line of `ward config show`.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// The dotted key, quoted where TOML needs it (`permission.bash."git *"`).
    pub key: String,
    /// The value as TOML: `(hidden)` for a secret, and the secrets inside an
    /// array or a URL replaced by [`redact::REDACTED`].
    pub value: String,
    /// Where it was set; `None` for a built-in default.
    pub origin: Option<Located>,
}

/// Every leaf of the merged configuration with its origin, in key order.
pub fn settings(loaded: &LoadedConfig) -> Vec<Setting> {
    let mut out = Vec::new();
    // Serializing the schema's own types cannot fail; an empty list would merely
    // show nothing.
    if let Ok(toml::Value::Table(table)) = toml::Value::try_from(&loaded.config) {
        walk(&table, &mut Vec::new(), loaded, &mut out);
    }
    out
}

fn walk(
    table: &toml::Table,
    path: &mut Vec<String>,
    loaded: &LoadedConfig,
    out: &mut Vec<Setting>,
) {
    let redactor = Redactor::new(loaded);
    for (key, value) in table {
        path.push(key.clone());
        match value {
            toml::Value::Table(inner) if !inner.is_empty() => walk(inner, path, loaded, out),
            _ => {
                let keys: Vec<&str> = path.iter().map(String::as_str).collect();
                let value = match value {
                    toml::Value::String(text) => match redactor.string(&keys, text) {
                        Redaction::Shown => value.to_string(),
                        // Unquoted, so it cannot be mistaken for the value.
                        Redaction::Hidden => "(hidden)".to_owned(),
                        Redaction::Masked(masked) => toml::Value::String(masked).to_string(),
                    },
                    // An array (or empty table) hides its secrets element by element.
                    _ => {
                        let mut shown = value.clone();
                        redactor.toml(&mut path.clone(), &mut shown);
                        shown.to_string()
                    }
                };
                out.push(Setting {
                    key: path.iter().map(|k| quote(k)).collect::<Vec<_>>().join("."),
                    value,
                    origin: loaded.origins.get(&keys).cloned(),
                });
            }
        }
        path.pop();
    }
}

/// A key as TOML needs it written.
fn quote(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        key.to_owned()
    } else {
        toml::Value::String(key.to_owned()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{TempDir, env};

    #[test]
    fn each_value_names_the_file_and_line_that_set_it() {
        // The user's global files, which count in full whether or not the
        // project is trusted.
        let dir = TempDir::new();
        dir.write("project/.git/HEAD", "");
        dir.write(
            "config/opencode/opencode.json",
            "{\n  \"model\": \"oc/m\",\n  \"small_model\": \"oc/s\",\n  \"provider\": { \"oc\": { \"options\": { \"apiKey\": \"sk-1\" } } }\n}",
        );
        dir.write(
            "config/ward/ward.toml",
            "model = \"w/m\"\n[permission]\nbash = { \"git *\" = \"deny\" }\n",
        );
        let config = dir.path().join("config").to_string_lossy().into_owned();
        let loaded = crate::load_with_env(
            &dir.path().join("project"),
            &env(&[("XDG_CONFIG_HOME", &config)]),
        )
        .unwrap();
        let shown: Vec<String> = settings(&loaded)
            .iter()
            .map(|s| {
                let origin = s.origin.as_ref().map_or("default".to_owned(), |at| {
                    format!(
                        "{}:{}",
                        at.file.file_name().unwrap().to_string_lossy(),
                        at.line
                    )
                });
                format!("{} = {} @ {origin}", s.key, s.value)
            })
            .collect();
        for line in [
            "model = \"w/m\" @ ward.toml:1",
            "small_model = \"oc/s\" @ opencode.json:3",
            "permission.bash.\"git *\" = \"deny\" @ ward.toml:3",
            "provider.oc.api_key = (hidden) @ opencode.json:4",
            "compaction.auto = true @ default",
        ] {
            assert!(shown.contains(&line.to_owned()), "{line} not in {shown:#?}");
        }
        assert!(!shown.iter().any(|l| l.contains("sk-1")));
    }
}
