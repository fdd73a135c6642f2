//! `ward` with no command on a terminal: the full-screen UI (`ward_tui`). Only this
//! module reaches that crate, and only when the UI opens: the line mode and every
//! other command never run a line of it.

use std::process::ExitCode;

use anyhow::Result;
use ward_engine::Engine;
use ward_term::eoutln;

use super::chat::ChatArgs;
use super::run::HOOK_GRACE;

/// Opens the project and its session, then hands the terminal to the UI.
pub async fn run(args: ChatArgs) -> Result<ExitCode> {
    let engine = Engine::open(args.common.engine_options()?).await?;
    let given = args.common.session_id()?;
    let session = match &given {
        Some(id) => engine.session(id)?,
        None => engine.create_session(args.common.agent.as_deref())?,
    };
    let options = ward_tui::Options {
        request: args.common.request(""),
        yes: args.common.yes,
        notices: engine.take_warnings(),
    };
    let result = ward_tui::run(engine.clone(), session.clone(), options).await;
    engine.close(HOOK_GRACE).await;
    // A session this run made and never used is not kept (one named with --session
    // is the user's, used or not).
    let unused = given.is_none() && engine.discard_if_empty(&session.id)?;
    if !unused {
        eoutln!("session {}", session.id);
    }
    result?;
    Ok(ExitCode::SUCCESS)
}
