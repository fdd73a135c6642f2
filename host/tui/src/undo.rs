//! `/undo` and `/redo` in the UI, over the engine's [`Engine::undo`] and
//! [`Engine::redo`] (the line mode's `/undo` uses the same two). Typed while the
//! agent works, they wait for it to finish (as in the line mode: the engine refuses
//! to revert a running session). Each runs in the background like a prompt; when it
//! ends the session is shown again from the store — an undo hides the reverted
//! prompt and what followed, a redo shows them again — with a note saying what was
//! done.

use ward_engine::{Engine, EngineError};

use crate::app::{Ctx, Done, State};
use crate::conversation::Conversation;
use crate::safe;
use crate::slash::Builtin;

/// The most restored files an undo's note names (the rest are counted).
const FILES_NAMED: usize = 10;

impl State {
    /// `/undo`: reverts the last prompt still shown.
    pub(crate) fn undo(&mut self, ctx: &mut Ctx<'_>) {
        if self.defer(Builtin::Undo) {
            return;
        }
        let (engine, id) = (ctx.engine.clone(), self.session.id.clone());
        self.running += 1;
        ctx.prompts.spawn(async move {
            Done::Revert(engine.undo(&id).await.map(|undone| match undone {
                Some(undone) => undone_note(&undone.prompt, &undone.files),
                None => "nothing to undo".to_string(),
            }))
        });
    }

    /// `/redo`: puts back what the last undo took away.
    pub(crate) fn redo(&mut self, ctx: &mut Ctx<'_>) {
        if self.defer(Builtin::Redo) {
            return;
        }
        let (engine, id) = (ctx.engine.clone(), self.session.id.clone());
        self.running += 1;
        ctx.prompts.spawn(async move {
            Done::Revert(engine.redo(&id).await.map(|redone| match redone {
                Some(_) => "redone: the undone prompt and its changes are back".to_string(),
                None => "nothing to redo".to_string(),
            }))
        });
    }

    /// Keeps `command` for when the agent has finished, if it works; whether it did.
    fn defer(&mut self, command: Builtin) -> bool {
        if !self.working() {
            return false;
        }
        let name = if command == Builtin::Undo {
            "undo"
        } else {
            "redo"
        };
        self.conv
            .notice(format!("/{name} waits for the agent to finish"));
        self.deferred.push_back(command);
        true
    }

    /// An undo or redo ended: the session is shown as the store now has it, then
    /// what was done.
    pub(crate) fn reverted(&mut self, outcome: Result<String, EngineError>, engine: &Engine) {
        match engine.session(&self.session.id) {
            Ok(session) => {
                self.conv = Conversation::new(&session.id);
                self.session = session;
                if let Err(e) = self.load_history(engine) {
                    self.conv.notice(format!("error: {e}"));
                }
            }
            Err(e) => self.conv.notice(format!("error: {e}")),
        }
        self.scroll.set(0);
        self.conv.notice(match outcome {
            Ok(note) => note,
            Err(e) => format!("error: {e}"),
        });
    }
}

/// What an undo says: the prompt it reverted (its first line) and the files it put
/// back. Both are untrusted (a prompt may be pasted text, a file name a tool's
/// choice), made inert when the note is drawn.
fn undone_note(prompt: &str, files: &[String]) -> String {
    let first = prompt.lines().next().unwrap_or("");
    let mut out = format!(
        "undone: \"{}\" — {} file(s) restored (/redo puts it back)",
        safe::line(first),
        files.len()
    );
    for file in files.iter().take(FILES_NAMED) {
        out.push_str("\n  ");
        out.push_str(&safe::line(file));
    }
    if files.len() > FILES_NAMED {
        out.push_str(&format!("\n  … and {} more", files.len() - FILES_NAMED));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::undone_note;

    #[test]
    fn the_note_names_the_prompt_and_each_file_on_its_own_row() {
        let files: Vec<String> = (0..12).map(|i| format!("f{i}.txt")).collect();
        let note = undone_note("fix it\nplease", &files[..1]);
        assert_eq!(
            note,
            "undone: \"fix it\" — 1 file(s) restored (/redo puts it back)\n  f0.txt"
        );
        let note = undone_note("x", &files);
        assert!(note.ends_with("\n  … and 2 more"), "{note}");
        // A file name cannot add rows of its own.
        let note = undone_note("x", &["a\nb".to_string()]);
        assert_eq!(note.lines().count(), 2, "{note}");
    }
}
