//! `ward acp`: Ward as an Agent Client Protocol agent on standard input and output,
//! for editors (Zed, JetBrains IDEs, Neovim). Everything is in `ward-acp`; this only
//! hands it the engine options with the plugins built into this binary.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;

/// `ward acp` arguments.
#[derive(Args)]
pub struct AcpArgs {
    /// Attempts per model call before a retryable error is given up on (default 8).
    #[arg(long)]
    pub max_retries: Option<u32>,
}

/// Serves ACP until the editor closes the connection.
pub async fn run(args: AcpArgs) -> Result<ExitCode> {
    let retries = args.max_retries;
    let options: ward_acp::OptionsFor =
        Arc::new(move |dir| crate::builtins::engine_options(dir).max_retries(retries));
    ward_acp::serve(options)
        .await
        .map_err(|e| anyhow::anyhow!("acp: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
