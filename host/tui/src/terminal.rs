//! The terminal while the UI owns it: raw mode, the alternate screen and bracketed
//! paste, undone when the guard is dropped — on a normal exit, an error or a panic
//! unwinding — so the shell is never left in raw mode.

use std::io::{Stdout, stdout};

use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// The terminal in the UI's modes; restored on drop.
pub struct Screen {
    /// What is drawn on.
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl Screen {
    /// Puts the terminal in the UI's modes.
    pub fn enter() -> std::io::Result<Screen> {
        enable_raw_mode()?;
        // From here on a failure must undo raw mode: `restore` does all of it,
        // whatever was set.
        let result = execute!(stdout(), EnterAlternateScreen, EnableBracketedPaste)
            .and_then(|()| Terminal::new(CrosstermBackend::new(stdout())));
        match result {
            Ok(terminal) => Ok(Screen { terminal }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = self.terminal.show_cursor();
        restore();
    }
}

/// Leaves the UI's modes (each step tried whatever the others did: the terminal
/// may be gone).
fn restore() {
    let _ = execute!(stdout(), DisableBracketedPaste, LeaveAlternateScreen);
    let _ = disable_raw_mode();
}
