//! Checking a call's arguments against the tool's JSON Schema before anything runs,
//! as the WIT contract promises plugins (`execute` gets arguments "the host has
//! already validated"): a model's malformed call gets an answer naming the field,
//! and a plugin never has to defend against arguments of the wrong shape.
//!
//! A validator is compiled once per tool and kept. A schema that does not compile
//! (a plugin's mistake) disables the check for that tool, with a warning, rather
//! than making the tool unusable: the plugin still validates its own input.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use jsonschema::Validator;
use serde_json::Value;

/// How many problems one answer lists; the model fixes the first ones first.
const MAX_REPORTED: usize = 3;

/// Compiled argument validators, by tool name.
#[derive(Default)]
pub(crate) struct ArgChecks {
    validators: Mutex<HashMap<String, Option<Arc<Validator>>>>,
}

impl ArgChecks {
    /// Checks `args` for `tool`, whose JSON Schema is `schema` (as the plugin declared
    /// it). `Err` is the message for the model.
    pub(crate) fn check(&self, tool: &str, schema: &str, args: &Value) -> Result<(), String> {
        let Some(validator) = self.validator(tool, schema) else {
            return Ok(());
        };
        let problems: Vec<String> = validator
            .iter_errors(args)
            .take(MAX_REPORTED + 1)
            .map(|e| {
                let at = e.instance_path().to_string();
                if at.is_empty() {
                    e.to_string()
                } else {
                    format!("`{at}`: {e}")
                }
            })
            .collect();
        if problems.is_empty() {
            return Ok(());
        }
        let more = if problems.len() > MAX_REPORTED {
            "; and more"
        } else {
            ""
        };
        let shown: Vec<&str> = problems
            .iter()
            .take(MAX_REPORTED)
            .map(String::as_str)
            .collect();
        Err(format!(
            "invalid arguments for `{tool}`: {}{more}. Call it again with arguments that match its schema.",
            shown.join("; ")
        ))
    }

    fn validator(&self, tool: &str, schema: &str) -> Option<Arc<Validator>> {
        let mut validators = match self.validators.lock() {
            Ok(v) => v,
            // A panic elsewhere while holding the lock left a usable map behind.
            Err(poisoned) => poisoned.into_inner(),
        };
        validators
            .entry(tool.to_string())
            .or_insert_with(|| compile(tool, schema))
            .clone()
    }
}

fn compile(tool: &str, schema: &str) -> Option<Arc<Validator>> {
    let schema: Value = match serde_json::from_str(schema) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(
                tool,
                "its parameter schema is not JSON ({e}); arguments are not checked"
            );
            return None;
        }
    };
    match jsonschema::validator_for(&schema) {
        Ok(v) => Some(Arc::new(v)),
        Err(e) => {
            tracing::warn!(
                tool,
                "its parameter schema does not compile ({e}); arguments are not checked"
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const SCHEMA: &str = r#"{
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "filePath": { "type": "string" },
            "limit": { "type": "integer", "format": "uint", "minimum": 0 }
        },
        "required": ["filePath"]
    }"#;

    #[test]
    fn names_the_field_that_is_wrong() {
        let checks = ArgChecks::default();
        assert_eq!(
            checks.check("read", SCHEMA, &json!({ "filePath": "a" })),
            Ok(())
        );
        let missing = checks.check("read", SCHEMA, &json!({})).unwrap_err();
        assert!(
            missing.contains("\"filePath\" is a required property"),
            "{missing}"
        );
        let wrong = checks
            .check("read", SCHEMA, &json!({ "filePath": "a", "limit": "ten" }))
            .unwrap_err();
        assert!(
            wrong.starts_with("invalid arguments for `read`: `/limit`: "),
            "{wrong}"
        );
        assert!(
            wrong.contains("\"ten\" is not of type \"integer\""),
            "{wrong}"
        );
        let negative = checks
            .check("read", SCHEMA, &json!({ "filePath": "a", "limit": -1 }))
            .unwrap_err();
        assert!(
            negative.contains("`/limit`: -1 is less than the minimum of 0"),
            "{negative}"
        );
    }

    #[test]
    fn a_schema_that_does_not_compile_is_not_enforced() {
        let checks = ArgChecks::default();
        assert_eq!(checks.check("x", "not json", &json!({})), Ok(()));
        assert_eq!(checks.check("y", r#"{"type": 12}"#, &json!({})), Ok(()));
    }
}
