//! `ward session revert ID [--message MSG]` and `ward session unrevert ID`: undo
//! and redo over the engine's snapshots.

use std::process::ExitCode;

use anyhow::{Result, bail};
use ward_term::{inert_line, outln};

/// Reverts session `id` from `message` (default: its last prompt).
pub async fn revert(id: &str, message: Option<&str>) -> Result<ExitCode> {
    let engine = open().await?;
    let message = match message {
        Some(m) => m.to_string(),
        None => match engine.undo_target(id)? {
            Some(m) => m,
            None => bail!("session {id} has no prompt to undo"),
        },
    };
    let session = engine.revert(id, &message, None).await?;
    let files = session.revert.map(|r| r.files).unwrap_or_default();
    outln!(
        "reverted session {} to before message {}: {} file(s) restored",
        inert_line(id),
        inert_line(&message),
        files.len()
    );
    for file in files {
        outln!("  {}", inert_line(&file));
    }
    Ok(ExitCode::SUCCESS)
}

/// Undoes the last revert of session `id`.
pub async fn unrevert(id: &str) -> Result<ExitCode> {
    let engine = open().await?;
    let before = engine.session(id)?;
    if before.revert.is_none() {
        outln!(
            "session {} is not reverted: nothing to redo",
            inert_line(id)
        );
        return Ok(ExitCode::SUCCESS);
    }
    engine.unrevert(id).await?;
    outln!("unreverted session {}", inert_line(id));
    Ok(ExitCode::SUCCESS)
}

async fn open() -> Result<ward_engine::Engine> {
    let options = crate::builtins::engine_options(std::env::current_dir()?);
    let engine = ward_engine::Engine::open(options).await?;
    super::run::print_warnings(&engine);
    Ok(engine)
}
