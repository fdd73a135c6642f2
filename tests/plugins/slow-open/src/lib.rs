//! A tool plugin whose one tool, `open_in_turn`, opens each path it is given for
//! reading, in order, and closes it again. Given FIFOs whose writers wait before they
//! open their end, each open waits for its writer: filesystem work in a host import
//! that takes as long as the test says (the step benchmark, `tests/benches/step.rs`).

use ward_sdk::{Context, Output, Tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    /// The files to open, in order.
    paths: Vec<String>,
}

struct OpenInTurn;

impl Tool for OpenInTurn {
    type Args = Args;
    const NAME: &'static str = "open_in_turn";
    const DESCRIPTION: &'static str = "Opens the given files for reading, one after the other.";
    fn run(args: Args, _: &Context) -> Result<Output, ToolError> {
        for path in &args.paths {
            std::fs::File::open(path).map_err(|e| ToolError::Failed(format!("{path}: {e}")))?;
        }
        Ok(Output::text(
            "opened",
            format!("opened {}", args.paths.len()),
        ))
    }
}

ward_sdk::export_tools!(OpenInTurn);
