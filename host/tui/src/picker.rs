//! The pickers `/sessions` and `/models` open over the conversation: a list moved
//! through with Up/Down. In the session picker Enter continues the selected
//! session, `f` forks it (a copy to go on from, the original untouched) and `d`
//! deletes it after a `y` to confirm; in the model picker Enter switches the model
//! prompts go to. Esc closes either. Everything goes through the engine's API.

use crossterm::event::KeyCode;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::{Ctx, State};
use crate::safe;

/// What a picker picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The project's sessions.
    Sessions,
    /// The configured models.
    Models,
}

/// One row: what it stands for (a session id, `provider/model`) and how it reads.
pub struct Row {
    /// The session's id or the model's `provider/model`.
    pub id: String,
    /// The row as shown (inert).
    pub label: String,
}

/// An open picker.
pub struct Picker {
    /// What it picks.
    pub kind: Kind,
    /// Its rows.
    pub rows: Vec<Row>,
    /// The selected row.
    pub selected: usize,
    /// Set while a delete waits for its confirmation.
    pub confirming: bool,
    /// A line of its own to show (what went wrong).
    pub note: Option<String>,
}

impl Picker {
    /// Its title, saying which keys do what.
    pub fn title(&self) -> &'static str {
        match self.kind {
            Kind::Sessions => " sessions · Enter continues · f forks · d deletes · Esc closes ",
            Kind::Models => " models · Enter switches · Esc closes ",
        }
    }

    /// Its lines: at most `height` rows around the selected one, then the
    /// confirmation or the note.
    pub fn lines(&self, height: usize) -> Vec<Line<'static>> {
        let footer = usize::from(self.confirming || self.note.is_some());
        let room = height.saturating_sub(footer).max(1);
        let first = self.selected.saturating_sub(room - 1);
        let mut out: Vec<Line<'static>> = self
            .rows
            .iter()
            .enumerate()
            .skip(first)
            .take(room)
            .map(|(i, row)| {
                if i == self.selected {
                    Line::from(Span::styled(
                        format!("› {}", row.label),
                        Style::default().add_modifier(Modifier::REVERSED),
                    ))
                } else {
                    Line::from(format!("  {}", row.label))
                }
            })
            .collect();
        if self.rows.is_empty() {
            out.push(Line::from("  (none)"));
        }
        if self.confirming
            && let Some(row) = self.rows.get(self.selected)
        {
            out.push(Line::from(format!(
                "Delete {} for good? [y] yes  [n] no",
                row.label
            )));
        } else if let Some(note) = &self.note {
            out.push(Line::from(safe::line(note)));
        }
        out
    }
}

impl State {
    /// Opens the session picker: this directory's top-level sessions, newest first,
    /// the one shown selected.
    pub(crate) fn open_sessions(&mut self, ctx: &Ctx<'_>) {
        let mut sessions = match ctx.engine.sessions() {
            Ok(sessions) => sessions,
            Err(e) => return self.conv.notice(format!("error: {e}")),
        };
        sessions.retain(|s| s.parent_id.is_none() && s.directory == self.session.directory);
        sessions.sort_by_key(|s| std::cmp::Reverse(s.time.updated));
        let rows = sessions
            .iter()
            .map(|s| Row {
                id: s.id.clone(),
                label: crate::builtins::session_row(&s.id, &s.title, s.id == self.session.id)
                    .trim_start()
                    .to_string(),
            })
            .collect::<Vec<_>>();
        // The session shown is selected: its neighbours are a key away.
        let selected = rows
            .iter()
            .position(|r| r.id == self.session.id)
            .unwrap_or(0);
        self.picker = Some(Picker {
            kind: Kind::Sessions,
            rows,
            selected,
            confirming: false,
            note: None,
        });
    }

    /// Opens the model picker: every model the configuration names (declared or
    /// not), the one in use selected.
    pub(crate) fn open_models(&mut self, ctx: &Ctx<'_>) {
        let mut rows = Vec::new();
        for id in ctx.engine.configured_models() {
            let mark = if id == self.model { " (current)" } else { "" };
            rows.push(Row {
                label: format!("{}{mark}", safe::line(&id)),
                id,
            });
        }
        let selected = rows.iter().position(|r| r.id == self.model).unwrap_or(0);
        self.picker = Some(Picker {
            kind: Kind::Models,
            rows,
            selected,
            confirming: false,
            note: None,
        });
    }

    /// A key while a picker is open; whether the frame changed.
    pub(crate) fn picker_key(&mut self, code: KeyCode, ctx: &mut Ctx<'_>) -> bool {
        let Some(picker) = self.picker.as_mut() else {
            return false;
        };
        let chosen = picker.rows.get(picker.selected).map(|r| r.id.clone());
        if picker.confirming {
            picker.confirming = false;
            if let (KeyCode::Char('y'), Some(id)) = (code, chosen) {
                self.delete_picked(&id, ctx);
            }
            return true;
        }
        picker.note = None;
        match (code, picker.kind, chosen) {
            (KeyCode::Esc, ..) => self.picker = None,
            (KeyCode::Up, ..) => picker.selected = picker.selected.saturating_sub(1),
            (KeyCode::Down, ..) => {
                picker.selected = (picker.selected + 1).min(picker.rows.len().saturating_sub(1))
            }
            (KeyCode::Enter, Kind::Sessions, Some(id)) => {
                self.picker = None;
                match ctx.engine.session(&id) {
                    Ok(session) => self.show_session(session, ctx),
                    Err(e) => self.conv.notice(format!("error: {e}")),
                }
            }
            (KeyCode::Char('f'), Kind::Sessions, Some(id)) => {
                self.picker = None;
                match ctx.engine.fork_session(&id, None) {
                    Ok(session) => self.show_session(session, ctx),
                    Err(e) => self.conv.notice(format!("error: {e}")),
                }
            }
            (KeyCode::Char('d'), Kind::Sessions, Some(id)) => {
                if id == self.session.id {
                    picker.note = Some(
                        "the session shown cannot be deleted here: continue another first".into(),
                    );
                } else {
                    picker.confirming = true;
                }
            }
            (KeyCode::Enter, Kind::Models, Some(id)) => {
                self.picker = None;
                self.switch_model(id, ctx);
            }
            _ => return false,
        }
        true
    }

    /// Deletes session `id` (confirmed) and takes its row out of the picker.
    fn delete_picked(&mut self, id: &str, ctx: &Ctx<'_>) {
        let outcome = ctx.engine.delete_session(id);
        let Some(picker) = self.picker.as_mut() else {
            return;
        };
        match outcome {
            Ok(()) => {
                picker.rows.retain(|r| r.id != id);
                picker.selected = picker.selected.min(picker.rows.len().saturating_sub(1));
                picker.note = Some(format!("deleted {id}"));
            }
            Err(e) => picker.note = Some(format!("error: {e}")),
        }
    }
}
