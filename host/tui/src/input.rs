//! The prompt being typed: one line of text and a cursor, edited by keys. Pasted
//! line breaks become spaces (a prompt is sent with Enter).

/// The input line.
#[derive(Default)]
pub struct Input {
    text: String,
    /// The cursor, as a byte offset on a character boundary.
    cursor: usize,
}

impl Input {
    /// What is typed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text before the cursor.
    pub fn before_cursor(&self) -> &str {
        &self.text[..self.cursor]
    }

    /// Types `c` at the cursor.
    pub fn insert(&mut self, c: char) {
        let c = if c == '\n' || c == '\r' || c.is_control() {
            ' '
        } else {
            c
        };
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    /// Types `text` at the cursor.
    pub fn paste(&mut self, text: &str) {
        text.chars().for_each(|c| self.insert(c));
    }

    /// Deletes the character before the cursor.
    pub fn backspace(&mut self) {
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
            self.text.remove(self.cursor);
        }
    }

    /// Deletes the character under the cursor.
    pub fn delete(&mut self) {
        if self.cursor < self.text.len() {
            self.text.remove(self.cursor);
        }
    }

    /// Moves the cursor one character left.
    pub fn left(&mut self) {
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
        }
    }

    /// Moves the cursor one character right.
    pub fn right(&mut self) {
        if let Some(c) = self.text[self.cursor..].chars().next() {
            self.cursor += c.len_utf8();
        }
    }

    /// Moves the cursor to the start.
    pub fn home(&mut self) {
        self.cursor = 0;
    }

    /// Moves the cursor to the end.
    pub fn end(&mut self) {
        self.cursor = self.text.len();
    }

    /// Deletes everything before the cursor (Ctrl-U).
    pub fn kill_before(&mut self) {
        self.text.drain(..self.cursor);
        self.cursor = 0;
    }

    /// Empties the line, returning what was typed.
    pub fn take(&mut self) -> String {
        self.cursor = 0;
        std::mem::take(&mut self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_at_the_cursor_on_character_boundaries() {
        let mut input = Input::default();
        input.paste("héllo\nwörld");
        assert_eq!(input.text(), "héllo wörld");
        input.home();
        input.right();
        input.right();
        input.backspace();
        assert_eq!(input.text(), "hllo wörld");
        input.end();
        input.left();
        input.delete();
        assert_eq!(input.text(), "hllo wörl");
        input.left();
        input.kill_before();
        assert_eq!(input.text(), "l");
        assert_eq!(input.take(), "l");
        input.backspace();
        input.delete();
        assert_eq!(input.text(), "");
    }
}
