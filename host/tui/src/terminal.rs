//! The terminal while the UI owns it: raw mode, the alternate screen, bracketed
//! paste and mouse buttons, undone when the guard is dropped — on a normal exit, an
//! error or a panic unwinding — so the shell is never left in raw mode.
//!
//! The mouse is asked for its buttons and wheel only ([`MouseButtons`]), not its
//! motion: the wheel scrolls the conversation, a moving mouse wakes nothing, and
//! text stays selectable the way terminals let one select under mouse reporting —
//! Shift-drag (xterm, GNOME Terminal, Konsole, Alacritty, kitty, WezTerm; Option-drag
//! in iTerm2).

use std::io::{Stdout, stdout};

use std::fmt;

use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{Command, execute};
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
        let result = execute!(
            stdout(),
            EnterAlternateScreen,
            EnableBracketedPaste,
            MouseButtons(true)
        )
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
    let _ = execute!(
        stdout(),
        MouseButtons(false),
        DisableBracketedPaste,
        LeaveAlternateScreen
    );
    let _ = disable_raw_mode();
}

/// Mouse reporting of presses, releases and the wheel, in the SGR encoding (`true`
/// turns it on). Written by hand because crossterm's `EnableMouseCapture` also asks
/// for every motion (modes 1002/1003): a stream of events while the pointer merely
/// crosses the window, each one waking the UI for nothing.
struct MouseButtons(bool);

impl Command for MouseButtons {
    fn write_ansi(&self, f: &mut impl fmt::Write) -> fmt::Result {
        // 1000: buttons and wheel; 1006: coordinates as decimal text (SGR), which
        // has no 223-column limit.
        if self.0 {
            f.write_str("\x1b[?1000h\x1b[?1006h")
        } else {
            f.write_str("\x1b[?1006l\x1b[?1000l")
        }
    }
}
