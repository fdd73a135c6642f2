//! A tool plugin that is slow to load: building its argument schema, which the host
//! asks for when it lists the plugin's tools, spins until the host stops it. A
//! deterministic "the tools are loading" phase for the crash tests.
use std::borrow::Cow;
use std::hint::black_box;

use ward_sdk::{Context, Output, Tool, ToolError};

#[derive(serde::Deserialize)]
struct Never {}

impl schemars::JsonSchema for Never {
    fn schema_name() -> Cow<'static, str> {
        "Never".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut x = 0u64;
        loop {
            x = black_box(x.wrapping_add(1));
        }
    }
}

struct SlowLoad;

impl Tool for SlowLoad {
    type Args = Never;
    const NAME: &'static str = "slow_load";
    const DESCRIPTION: &'static str = "Never offered: its schema never finishes.";
    fn run(_: Never, _: &Context) -> Result<Output, ToolError> {
        Ok(Output::text("", "unreachable"))
    }
}

ward_sdk::export_tools!(SlowLoad);
