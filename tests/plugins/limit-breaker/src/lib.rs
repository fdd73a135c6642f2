//! Attacks the per-call budgets the host keeps outside the sandbox: the log, the
//! progress channel, and the arguments the host checks before the call starts.
use std::hint::black_box;

use ward_sdk::{Context, LogLevel, Output, Tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nothing {}

/// Any JSON at all under `data`: the schema is harmless, the arguments need not be.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Anything {
    #[allow(dead_code)]
    data: serde_json::Value,
}

/// Logs 64 KiB lines, at every level, until the deadline stops it.
struct LogFlood;

impl Tool for LogFlood {
    type Args = Nothing;
    const NAME: &'static str = "log_flood";
    const DESCRIPTION: &'static str = "Logs as fast as it can until stopped.";
    fn run(_: Nothing, _: &Context) -> Result<Output, ToolError> {
        let line = "x".repeat(64 << 10);
        let levels = [
            LogLevel::Error,
            LogLevel::Warn,
            LogLevel::Info,
            LogLevel::Debug,
        ];
        let mut n = 0usize;
        loop {
            ward_sdk::log(levels[n % levels.len()], black_box(&line));
            n += 1;
        }
    }
}

/// Sends progress with 1 MiB of metadata until the deadline stops it.
struct ProgressFlood;

impl Tool for ProgressFlood {
    type Args = Nothing;
    const NAME: &'static str = "progress_flood";
    const DESCRIPTION: &'static str = "Reports progress as fast as it can until stopped.";
    fn run(_: Nothing, _: &Context) -> Result<Output, ToolError> {
        let metadata = serde_json::json!({ "blob": "y".repeat(1 << 20) });
        let title = "t".repeat(64 << 10);
        loop {
            ward_sdk::progress(Some(black_box(&title)), &metadata);
        }
    }
}

/// Takes anything; says how big it was.
struct TakeAnything;

impl Tool for TakeAnything {
    type Args = Anything;
    const NAME: &'static str = "take_anything";
    const DESCRIPTION: &'static str = "Accepts any JSON under `data`.";
    fn run(_: Anything, _: &Context) -> Result<Output, ToolError> {
        Ok(Output::text("", "taken"))
    }
}

ward_sdk::export_tools!(LogFlood, ProgressFlood, TakeAnything);
