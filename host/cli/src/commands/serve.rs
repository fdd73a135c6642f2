//! `ward serve`: the project's engine over HTTP (OpenCode's API, an event stream,
//! `/doc`, a web page), until Ctrl-C or SIGTERM.

use anyhow::Result;
use clap::Args;
use ward_engine::Engine;
use ward_server::{ServeOptions, serve};
use ward_term::{eoutln, outln};

/// `ward serve`'s options.
#[derive(Args)]
pub struct ServeArgs {
    /// The port (0: any free one).
    #[arg(long, default_value_t = 4096)]
    port: u16,
    /// The address to listen on. Anything but loopback needs WARD_SERVER_TOKEN.
    #[arg(long, default_value = "127.0.0.1")]
    hostname: String,
    /// An origin whose pages may call the API (repeatable; `*`: any).
    #[arg(long = "cors", value_name = "ORIGIN")]
    cors: Vec<String>,
    /// Events kept for clients that reconnect (`Last-Event-ID`).
    #[arg(long, default_value_t = ward_server::stream::DEFAULT_REPLAY_EVENTS)]
    replay_events: usize,
}

/// Opens the project in the current directory and serves it.
pub async fn run(args: ServeArgs) -> Result<std::process::ExitCode> {
    let options = crate::builtins::engine_options(std::env::current_dir()?);
    let engine = Engine::open(options).await?;
    super::warn(&engine.take_warnings());
    let token = std::env::var("WARD_SERVER_TOKEN")
        .ok()
        .filter(|t| !t.is_empty());
    let options = ServeOptions {
        hostname: args.hostname,
        port: args.port,
        cors: args.cors,
        token,
        replay_events: args.replay_events,
        ..ServeOptions::default()
    };
    let closing = engine.clone();
    serve(
        engine,
        options,
        |ready| {
            outln!("ward serve: listening on {}", ready.url);
            outln!(
                "  token: {} (in {})",
                ready.token,
                ready.token_file.display()
            );
            outln!("  web:   {}", ready.page_url());
            outln!("  api:   {}/doc", ready.url);
        },
        shutdown(),
    )
    .await?;
    eoutln!("ward serve: stopping");
    closing.close(std::time::Duration::from_secs(2)).await;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Completes on Ctrl-C or SIGTERM.
pub(crate) async fn shutdown() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
