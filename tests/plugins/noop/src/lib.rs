//! A well-behaved plugin with one tool that does nothing.
use ward_sdk::{Context, Output, Tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nothing {}

struct Noop;

impl Tool for Noop {
    type Args = Nothing;
    const NAME: &'static str = "noop";
    const DESCRIPTION: &'static str = "Does nothing.";
    fn run(_: Nothing, _: &Context) -> Result<Output, ToolError> {
        Ok(Output::text("noop", "ok"))
    }
}

ward_sdk::export_tools!(Noop);
