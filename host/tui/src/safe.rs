//! Untrusted text (a model's answer, a tool's output or title, a plugin's words) made
//! fit to be a cell's content. ratatui writes a cell's symbol to the terminal as it
//! is, so an ESC in a tool's output would reach the terminal and act there — move
//! the cursor, clear the screen, set the window title. Every such character is
//! rendered as a visible escape by `ward_term` first (the same rules as the line
//! mode's output); what is left to do here is what a grid of cells needs: text split
//! into lines and tabs expanded (a tab is a control to the terminal, not a width).

/// How many columns a tab becomes.
const TAB: &str = "    ";

/// `text` as inert lines: line breaks split it, every other control is escaped.
pub fn lines(text: &str) -> Vec<String> {
    ward_term::inert(text)
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line).replace('\t', TAB))
        .collect()
}

/// `text` as one inert line (a name, a title, a pattern): line breaks are escaped.
pub fn line(text: &str) -> String {
    ward_term::inert_line(text).replace('\t', TAB)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_control_character_survives() {
        let hostile = "a\x1b]0;pwned\x07b\x1b[2J\x1b[10;10H\rc\u{9b}31m\u{202e}d\te\r\n";
        for shown in lines(hostile).iter().chain([&line(hostile)]) {
            assert!(!shown.chars().any(char::is_control), "{shown:?}");
            assert!(!shown.contains('\u{202e}'), "{shown:?}");
        }
        assert_eq!(
            lines(hostile),
            [
                "a\\x1b]0;pwned\\x07b\\x1b[2J\\x1b[10;10H\\rc\\u{9b}31m\\u{202e}d    e",
                ""
            ]
        );
        assert_eq!(line("a\nb"), "a\\nb");
    }
}
