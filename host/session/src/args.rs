//! Checking a call's arguments against the tool's JSON Schema before anything runs,
//! as the WIT contract promises plugins (`execute` gets arguments "the host has
//! already validated"): a model's malformed call gets an answer naming the field,
//! and a plugin never has to defend against arguments of the wrong shape.
//!
//! A validator is compiled once per tool and kept. A schema that does not compile
//! (a plugin's mistake) disables the check for that tool, with a warning, rather
//! than making the tool unusable: the plugin still validates its own input.
//!
//! The check runs on the host, outside the sandbox's limits, so it is bounded three
//! ways: the plugin's schema was measured when it loaded
//! ([`ward_plugin::tool_schema`]: no exponential `$ref` trees, no cycles, short
//! patterns); arguments over [`MAX_ARGUMENT_BYTES`] are refused before they are
//! parsed; the work of the check — the schema's size times the arguments' — is bounded
//! first and a call over [`ward_plugin::schema_work::WORK_BUDGET`] refused; and the
//! check runs on a blocking thread under the call's time limit (one bounded to a few
//! tens of microseconds runs in place). A check that overruns fails the call, but its
//! thread cannot be stopped, so the bounds before it are the real defence and the
//! deadline only keeps the agent loop responsive.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jsonschema::{PatternOptions, Validator};
use serde_json::Value;
use ward_plugin::schema_work;
use ward_plugin::tool_schema::{Expanded, expanded};

/// How many problems one answer lists; the model fixes the first ones first.
const MAX_REPORTED: usize = 3;

/// The largest arguments a tool call may have, in bytes: more than any model writes in
/// one call (a 64k-token reply is about 256 KB), so only an attack is refused.
pub const MAX_ARGUMENT_BYTES: usize = 1 << 20;

/// Backtracking steps one `pattern` match may take (for patterns with look-around or
/// back-references; the others run on the linear-time engine).
const REGEX_BACKTRACK_LIMIT: usize = 10_000;

/// The bounded work (in [`schema_work`]'s units, ≈ 15–30 ns each) of a check that runs
/// on the calling thread: at most about 60 µs, less than the two thread wake-ups of a
/// blocking thread's round trip, which dominated a no-op call over `ward mcp serve`.
const INLINE_UNITS: u64 = 2_000;

/// Compiled size one `pattern` may take, and its lazy DFA's cache.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Why a call's arguments were refused. Its text is the answer the model reads; the
/// loop only hands it over, so the cases are for whoever needs to tell them apart.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentError {
    /// Larger than [`MAX_ARGUMENT_BYTES`]: refused before being parsed.
    #[error(
        "invalid arguments for `{tool}`: {bytes} bytes, more than the limit of {limit} bytes. \
         Pass large content in smaller pieces."
    )]
    TooLarge {
        /// The tool called.
        tool: String,
        /// The arguments' size.
        bytes: usize,
        /// [`MAX_ARGUMENT_BYTES`].
        limit: usize,
    },
    /// Checking them would take more work than [`schema_work::WORK_BUDGET`].
    #[error(
        "invalid arguments for `{tool}`: checking them against its schema would take \
         up to {units} units of work, more than the limit of {limit} (its subschemas times the \
         values in the arguments). Call it with fewer values."
    )]
    TooCostly {
        /// The tool called.
        tool: String,
        /// The work the check would take at most.
        units: u64,
        /// [`schema_work::WORK_BUDGET`].
        limit: u64,
    },
    /// They do not match the schema: the first problems, each naming where.
    #[error(
        "invalid arguments for `{tool}`: {}{}. Call it again with arguments that match its schema.",
        problems.join("; "),
        if *more { "; and more" } else { "" }
    )]
    Mismatch {
        /// The tool called.
        tool: String,
        /// At most [`MAX_REPORTED`] problems.
        problems: Vec<String>,
        /// Whether there were more than those.
        more: bool,
    },
    /// The check's own thread failed.
    #[error("checking the arguments of `{tool}` failed: {reason}")]
    CheckFailed {
        /// The tool called.
        tool: String,
        /// What happened to the thread.
        reason: String,
    },
    /// The check overran the call's time limit; the tool was not run.
    #[error(
        "checking the arguments of `{tool}` against its schema took longer than \
         its time limit of {limit_ms} ms; the tool was not run"
    )]
    TimedOut {
        /// The tool called.
        tool: String,
        /// The call's time limit.
        limit_ms: u128,
    },
}

/// Refuses arguments too large to check.
pub(crate) fn within_size(tool: &str, arguments: &str) -> Result<(), ArgumentError> {
    if arguments.len() > MAX_ARGUMENT_BYTES {
        return Err(ArgumentError::TooLarge {
            tool: tool.to_string(),
            bytes: arguments.len(),
            limit: MAX_ARGUMENT_BYTES,
        });
    }
    Ok(())
}

/// Compiled argument validators, by tool name.
#[derive(Default)]
pub(crate) struct ArgChecks {
    validators: Mutex<HashMap<String, Option<Arc<Compiled>>>>,
}

/// A tool's schema, compiled, and its expanded size (to bound a check's work before it
/// runs).
struct Compiled {
    validator: Validator,
    size: Expanded,
}

impl ArgChecks {
    /// New checks, with the part of the first compile every schema shares — the
    /// meta-schema's own validator, built once per process — started on its own thread,
    /// so the first tool call does not wait for it (about a millisecond).
    pub(crate) fn ahead() -> Arc<Self> {
        static STARTED: std::sync::Once = std::sync::Once::new();
        STARTED.call_once(|| {
            // Without a thread the first compile builds it, as it would anyway.
            let _ = std::thread::Builder::new()
                .name("ward-schema-ahead".into())
                .spawn(|| jsonschema::meta::validate(&Value::Object(Default::default())).is_ok());
        });
        Arc::default()
    }

    /// [`ArgChecks::check_now`] on a blocking thread, given at most `limit` (the call's
    /// time limit): past it the call fails, and the host goes on. A check bounded to
    /// [`INLINE_UNITS`] by a compiled schema without regular expressions runs here
    /// instead: handing it to a blocking thread and back would cost more.
    pub(crate) async fn check(
        self: &Arc<Self>,
        tool: &str,
        schema: &str,
        args: &Value,
        limit: Duration,
    ) -> Result<(), ArgumentError> {
        let known = self.lock().get(tool).cloned();
        match known {
            Some(None) => return Ok(()),
            Some(Some(compiled))
                if compiled.size.patterns == 0
                    && schema_work::bound(compiled.size, args, INLINE_UNITS).is_ok() =>
            {
                return self.check_now(tool, schema, args);
            }
            _ => {}
        }
        let checks = self.clone();
        let (owned_tool, schema, args) = (tool.to_string(), schema.to_string(), args.clone());
        let task =
            tokio::task::spawn_blocking(move || checks.check_now(&owned_tool, &schema, &args));
        match tokio::time::timeout(limit, task).await {
            Ok(Ok(verdict)) => verdict,
            Ok(Err(e)) => Err(ArgumentError::CheckFailed {
                tool: tool.to_string(),
                reason: e.to_string(),
            }),
            Err(_) => Err(ArgumentError::TimedOut {
                tool: tool.to_string(),
                limit_ms: limit.as_millis(),
            }),
        }
    }

    /// Checks `args` for `tool`, whose JSON Schema is `schema` (as the plugin declared
    /// it), on this thread.
    pub(crate) fn check_now(
        &self,
        tool: &str,
        schema: &str,
        args: &Value,
    ) -> Result<(), ArgumentError> {
        let Some(compiled) = self.validator(tool, schema) else {
            return Ok(());
        };
        if let Err(e) = schema_work::bound(compiled.size, args, schema_work::WORK_BUDGET) {
            return Err(ArgumentError::TooCostly {
                tool: tool.to_string(),
                units: e.units,
                limit: schema_work::WORK_BUDGET,
            });
        }
        let problems: Vec<String> = compiled
            .validator
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
        Err(ArgumentError::Mismatch {
            tool: tool.to_string(),
            more: problems.len() > MAX_REPORTED,
            problems: problems.into_iter().take(MAX_REPORTED).collect(),
        })
    }

    fn validator(&self, tool: &str, schema: &str) -> Option<Arc<Compiled>> {
        if let Some(known) = self.lock().get(tool) {
            return known.clone();
        }
        // Compiled without the lock, so a slow compile holds up no other tool's check;
        // two calls racing to compile the same tool both do, and the first one is kept.
        let compiled = compile(tool, schema);
        self.lock()
            .entry(tool.to_string())
            .or_insert(compiled)
            .clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<Arc<Compiled>>>> {
        // A panic elsewhere while holding the lock left a usable map behind.
        self.validators
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn compile(tool: &str, schema: &str) -> Option<Arc<Compiled>> {
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
    let patterns = PatternOptions::fancy_regex()
        .backtrack_limit(REGEX_BACKTRACK_LIMIT)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT);
    match jsonschema::options()
        .with_pattern_options(patterns)
        .build(&schema)
    {
        Ok(validator) => match expanded(&schema) {
            Ok(size) => Some(Arc::new(Compiled { validator, size })),
            Err(e) => {
                // Measured when its plugin loaded; one that got here anyway is not trusted.
                tracing::warn!(
                    tool,
                    "its parameter schema is refused ({e}); arguments are not checked"
                );
                None
            }
        },
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

    /// A small check of a known tool runs in place, a large one on a blocking thread
    /// under the time limit; the verdicts are the same either way.
    #[tokio::test(flavor = "current_thread")]
    async fn small_checks_run_in_place_and_large_ones_keep_their_time_limit() {
        let checks = Arc::new(ArgChecks::default());
        let limit = Duration::from_secs(5);
        // The first call compiles the schema (off this thread); later ones are known.
        assert_eq!(
            checks
                .check("read", SCHEMA, &json!({"filePath": "a"}), limit)
                .await,
            Ok(())
        );
        let compiled = checks.lock().get("read").cloned().flatten().unwrap();
        let small = json!({"filePath": 7});
        assert!(schema_work::bound(compiled.size, &small, INLINE_UNITS).is_ok());
        assert!(matches!(
            checks.check("read", SCHEMA, &small, limit).await,
            Err(ArgumentError::Mismatch { .. })
        ));
        // Many values: over the in-place bound, so checked on a blocking thread.
        let large = json!({"filePath": "a", "extra": vec![0; 5_000]});
        assert!(schema_work::bound(compiled.size, &large, INLINE_UNITS).is_err());
        assert_eq!(checks.check("read", SCHEMA, &large, limit).await, Ok(()));
    }

    #[test]
    fn names_the_field_that_is_wrong() {
        let checks = ArgChecks::default();
        assert_eq!(
            checks.check_now("read", SCHEMA, &json!({ "filePath": "a" })),
            Ok(())
        );
        let missing = checks
            .check_now("read", SCHEMA, &json!({}))
            .unwrap_err()
            .to_string();
        assert!(
            missing.contains("\"filePath\" is a required property"),
            "{missing}"
        );
        let wrong = checks
            .check_now("read", SCHEMA, &json!({ "filePath": "a", "limit": "ten" }))
            .unwrap_err()
            .to_string();
        assert!(
            wrong.starts_with("invalid arguments for `read`: `/limit`: "),
            "{wrong}"
        );
        assert!(
            wrong.contains("\"ten\" is not of type \"integer\""),
            "{wrong}"
        );
        let negative = checks
            .check_now("read", SCHEMA, &json!({ "filePath": "a", "limit": -1 }))
            .unwrap_err()
            .to_string();
        assert!(
            negative.contains("`/limit`: -1 is less than the minimum of 0"),
            "{negative}"
        );
    }

    #[test]
    fn a_schema_that_does_not_compile_is_not_enforced() {
        let checks = ArgChecks::default();
        assert_eq!(checks.check_now("x", "not json", &json!({})), Ok(()));
        assert_eq!(checks.check_now("y", r#"{"type": 12}"#, &json!({})), Ok(()));
    }

    #[test]
    fn oversized_arguments_are_refused_unparsed() {
        assert_eq!(within_size("t", "{}"), Ok(()));
        let huge = "x".repeat(MAX_ARGUMENT_BYTES + 1);
        let err = within_size("t", &huge).unwrap_err().to_string();
        assert!(err.contains("more than the limit"), "{err}");
    }

    /// `a0` = anyOf [a1, a1], …: 2^depth paths for a string failing the last pattern.
    /// Within every load-time bound (1,501 subschemas, no `$ref`): 500 branches that
    /// each fail only at an array's last element.
    fn wide(branches: i64) -> String {
        let branches: Vec<Value> = (0..branches)
            .map(|k| json!({ "type": "array", "items": { "type": "integer", "minimum": -k - 1 } }))
            .collect();
        json!({ "type": "object", "properties": { "a": { "anyOf": branches } } }).to_string()
    }

    fn elements(n: usize) -> Value {
        let mut elements = vec![json!(0); n];
        elements.push(json!("x"));
        json!({ "a": elements })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_check_past_the_time_limit_fails_the_call() {
        // Within the load-time bounds and the work budget (15 million units, a fraction
        // of a second in a release build), given 20 ms.
        let checks = Arc::new(ArgChecks::default());
        let args = elements(10_000);
        let start = std::time::Instant::now();
        let err = checks
            .check("slow", &wide(500), &args, Duration::from_millis(20))
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("longer than its time limit of 20 ms"), "{err}");
        assert!(
            start.elapsed() < Duration::from_millis(300),
            "{:?}",
            start.elapsed()
        );
        // Within the limit, the same path answers as before.
        let fine = checks
            .check(
                "read",
                SCHEMA,
                &json!({ "filePath": "a" }),
                Duration::from_secs(5),
            )
            .await;
        assert_eq!(fine, Ok(()));
    }

    #[test]
    fn a_check_too_costly_is_refused_before_it_runs() {
        // Checking 200,000 elements against 500 branches would cost tens of seconds of
        // host CPU on a thread nobody can stop.
        let schema = wide(500);
        assert_eq!(ward_plugin::tool_schema::check(&schema), Ok(()));
        let args = elements(200_000);
        assert!(args.to_string().len() < MAX_ARGUMENT_BYTES);
        let checks = ArgChecks::default();
        let err = checks
            .check_now("wide", &schema, &args)
            .unwrap_err()
            .to_string();
        assert!(err.contains("more than the limit of 50000000"), "{err}");
        // A small call of the same tool is still checked, and answered.
        let err = checks
            .check_now("wide", &schema, &json!({ "a": [0, "x"] }))
            .unwrap_err()
            .to_string();
        assert!(err.contains("invalid arguments for `wide`"), "{err}");
        assert!(!err.contains("would take"), "{err}");
        // A large write through an ordinary schema is not affected.
        let content = "x".repeat(MAX_ARGUMENT_BYTES - 100);
        let ok = checks.check_now("read", SCHEMA, &json!({ "filePath": content }));
        assert_eq!(ok, Ok(()));
    }
}
