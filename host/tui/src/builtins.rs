//! What the UI's own slash commands do (see `slash` for which they are): a new
//! session, help, the pickers of sessions and models (in `picker`), the agents'
//! list (and switching to one), compaction and export (`/undo` and `/redo` are in
//! `undo`). Their answers are notes in the conversation.

use crate::app::{Ctx, Done, State};
use crate::conversation::Conversation;
use crate::slash::Builtin;

impl State {
    /// Runs one of the UI's commands.
    pub(crate) fn builtin(&mut self, command: Builtin, ctx: &mut Ctx<'_>) {
        match command {
            Builtin::Exit => self.quit = true,
            Builtin::Help => self.conv.notice(self.catalog.help()),
            Builtin::New => match ctx.engine.create_session(Some(&self.agent)) {
                Ok(session) => {
                    let id = session.id.clone();
                    self.show_session(session, ctx);
                    self.made = Some(id);
                }
                Err(e) => self.conv.notice(format!("error: {e}")),
            },
            Builtin::Sessions(None) => self.open_sessions(ctx),
            Builtin::Sessions(Some(id)) => match ctx.engine.session(&id) {
                Ok(session) => self.show_session(session, ctx),
                Err(e) => self.conv.notice(format!("error: {e}")),
            },
            Builtin::Models(None) => self.open_models(ctx),
            Builtin::Models(Some(choice)) => self.switch_model(choice, ctx),
            Builtin::Agents(None) => {
                let mut out = String::from("Primary agents (Tab switches):");
                for name in self.agents() {
                    let mark = if *name == self.agent {
                        " (current)"
                    } else {
                        ""
                    };
                    out.push_str(&format!("\n  {name}{mark}"));
                }
                out.push_str("\nSubagents (@name in a prompt):");
                for agent in ctx
                    .engine
                    .agents()
                    .iter()
                    .filter(|a| a.is_subagent() && !a.hidden)
                {
                    out.push_str(&format!("\n  {}", agent.name));
                }
                self.conv.notice(out);
            }
            Builtin::Agents(Some(name)) => {
                if self.agents().contains(&name) {
                    self.agent = name;
                } else {
                    self.conv.notice(format!(
                        "error: `{name}` is not a primary agent (/agents lists them)"
                    ));
                }
            }
            Builtin::Undo => self.undo(ctx),
            Builtin::Redo => self.redo(ctx),
            Builtin::Compact => {
                let (engine, session) = (ctx.engine.clone(), self.session.clone());
                let model = self.model_choice.clone();
                self.running += 1;
                ctx.prompts.spawn(async move {
                    Done::Prompt(engine.compact(&session, model.as_deref()).await.err())
                });
            }
            Builtin::Export(file) => {
                let path = file.unwrap_or_else(|| format!("{}.json", self.session.id));
                let written = ctx
                    .engine
                    .export_session(&self.session.id)
                    .map_err(|e| e.to_string())
                    .and_then(|export| {
                        serde_json::to_vec_pretty(&export).map_err(|e| e.to_string())
                    })
                    .and_then(|bytes| std::fs::write(&path, bytes).map_err(|e| e.to_string()));
                self.conv.notice(match written {
                    Ok(()) => format!("exported to {path}"),
                    Err(e) => format!("error: exporting to {path}: {e}"),
                });
            }
        }
    }

    /// Shows `session` (new or continued) instead of the current one.
    pub(crate) fn show_session(&mut self, session: ward_engine::Session, ctx: &Ctx<'_>) {
        // A session `/new` made and nobody used is not kept.
        if let Some(made) = self.made.take()
            && made != session.id
        {
            let _ = ctx.engine.discard_if_empty(&made);
        }
        // A turn of the session left keeps running; its events are no longer shown.
        self.conv = Conversation::new(&session.id);
        self.session = session;
        if let Err(e) = self.load_history(ctx.engine) {
            self.conv.notice(format!("error: {e}"));
        }
        self.conv.notice(format!("session {}", self.session.id));
    }

    /// Switches the model prompts go to (`/models CHOICE`, the model picker).
    pub(crate) fn switch_model(&mut self, choice: String, ctx: &Ctx<'_>) {
        match ctx.engine.resolve_model(Some(&choice)) {
            Ok(model) => {
                self.model = format!("{}/{}", model.provider, model.model);
                self.window = model.context;
                self.conv.model = None;
                self.model_choice = Some(choice);
                self.conv.notice(format!("model: {}", self.model));
            }
            Err(e) => self.conv.notice(format!("error: {e}")),
        }
    }
}

/// One row of the session picker. A title is a model's words: its line breaks are
/// escaped here, or one title could draw rows that look like other sessions.
pub(crate) fn session_row(id: &str, title: &str, current: bool) -> String {
    let mark = if current { " (current)" } else { "" };
    format!(
        "  {}  {}{mark}",
        crate::safe::line(id),
        crate::safe::line(title)
    )
}

#[cfg(test)]
mod tests {
    use super::session_row;

    #[test]
    fn a_title_cannot_draw_rows_of_its_own() {
        let row = session_row("ses_1", "fix\n  ses_admin  deploy (current)", false);
        assert!(!row.contains('\n'), "{row:?}");
        assert_eq!(row, "  ses_1  fix\\n  ses_admin  deploy (current)");
        assert!(session_row("ses_2", "t", true).ends_with("t (current)"));
    }
}
