//! `/undo` and `/redo` in the interactive mode: the last prompt's file changes
//! reverted (and the prompt hidden from the model), or the last revert put back.
//! They wait their turn behind a running prompt, like any other line.

use ward_engine::Engine;
use ward_term::{eoutln, inert_line};

/// An undo or redo typed at the prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undo {
    /// `/undo`: revert from the last prompt still shown.
    Undo,
    /// `/redo`: put back what the last revert took away.
    Redo,
}

impl Undo {
    /// What `text` asks for, if it is `/undo` or `/redo`.
    pub fn parse(text: &str) -> Option<Undo> {
        match text.trim() {
            "/undo" => Some(Undo::Undo),
            "/redo" => Some(Undo::Redo),
            _ => None,
        }
    }

    /// Does it in `session`; reports on stderr; `false` if it failed.
    pub async fn run(self, engine: &Engine, session: &str) -> bool {
        let outcome = match self {
            Undo::Undo => engine.undo(session).await.map(|undone| match undone {
                Some(undone) => {
                    eoutln!("undone: {} file(s) restored", undone.files.len());
                    for file in undone.files {
                        eoutln!("  {}", inert_line(&file));
                    }
                }
                None => eoutln!("nothing to undo"),
            }),
            Undo::Redo => engine.redo(session).await.map(|redone| match redone {
                Some(_) => eoutln!("redone"),
                None => eoutln!("nothing to redo"),
            }),
        };
        match outcome {
            Ok(()) => true,
            Err(e) => {
                eoutln!("error: {e}");
                false
            }
        }
    }
}
