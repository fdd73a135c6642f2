//! Splitting a shell command line into the simple commands it runs.
//!
//! Owns a small quote-aware scanner: it splits on `&&`, `||`, `;`, `|`, `&` and
//! newlines outside quotes. It is not a shell parser; it errs towards reporting
//! more commands, because every command it misses is one a deny rule cannot see.
//! That is why it also looks inside `$(…)`, backticks and `<(…)`, splits
//! parenthesised groups, and drops leading `if`/`then`/`do`/… keywords.

/// Splits `cmd` into trimmed simple commands, dropping empty ones.
///
/// Commands found inside command substitutions are listed after the command that
/// contains them (which keeps its full text).
pub fn split_commands(cmd: &str) -> Vec<String> {
    let chars: Vec<char> = cmd.chars().collect();
    let mut scanner = Scanner {
        chars: &chars,
        pos: 0,
        out: Vec::new(),
    };
    scanner.list(None);
    scanner.out
}

/// Words that introduce a command inside compound syntax; the command that follows
/// is what runs.
const LEADING_KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "do", "while", "until", "!", "{",
];
/// Words that only close compound syntax and run nothing.
const CLOSING_KEYWORDS: &[&str] = &["fi", "done", "esac", "}"];

struct Scanner<'a> {
    chars: &'a [char],
    pos: usize,
    out: Vec<String>,
}

/// The command being accumulated, plus commands found in its substitutions.
#[derive(Default)]
struct Current {
    text: String,
    nested: Vec<String>,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    /// Scans a command list until the unquoted `end` character (consumed) or the end
    /// of input, pushing each command to `self.out`.
    fn list(&mut self, end: Option<char>) {
        let mut cur = Current::default();
        let mut quote: Option<char> = None;
        // Open `(` groups inside this list, so `$( (a) )` ends at the right `)`.
        let mut depth = 0usize;

        while let Some(c) = self.bump() {
            // A backtick substitution ends at the next backtick, quoted or not.
            if c == '`' && end == Some('`') {
                break;
            }
            if quote == Some('\'') {
                cur.text.push(c);
                if c == '\'' {
                    quote = None;
                }
                continue;
            }
            match c {
                '\\' => match self.bump() {
                    // A line continuation joins the lines.
                    Some('\n') => {}
                    Some(next) => {
                        cur.text.push(c);
                        cur.text.push(next);
                    }
                    None => cur.text.push(c),
                },
                '"' => {
                    cur.text.push(c);
                    quote = if quote.is_some() { None } else { Some('"') };
                }
                '$' if self.peek() == Some('(') => self.substitution(&mut cur, c),
                '`' => self.substitution(&mut cur, c),
                _ if quote.is_some() => cur.text.push(c),
                '\'' => {
                    cur.text.push(c);
                    quote = Some('\'');
                }
                '<' | '>' if self.peek() == Some('(') => self.substitution(&mut cur, c),
                '(' => {
                    depth += 1;
                    self.flush(&mut cur);
                }
                ')' if depth == 0 && end == Some(')') => break,
                ')' => {
                    depth = depth.saturating_sub(1);
                    self.flush(&mut cur);
                }
                '&' if self.peek() == Some('&') => {
                    self.pos += 1;
                    self.flush(&mut cur);
                }
                // `2>&1`, `<&0` and `&>file` are redirections, not list operators.
                '&' if cur.text.ends_with(['<', '>']) || self.peek() == Some('>') => {
                    cur.text.push(c);
                }
                '|' => {
                    // `||` and `|&` are single operators.
                    if matches!(self.peek(), Some('|' | '&')) {
                        self.pos += 1;
                    }
                    self.flush(&mut cur);
                }
                '&' | ';' | '\n' => self.flush(&mut cur),
                _ => cur.text.push(c),
            }
        }
        self.flush(&mut cur);
    }

    /// Handles a substitution whose opener `first` was just consumed (`$`, `` ` ``,
    /// `<` or `>`; for all but the backtick the `(` is still pending). Its raw text
    /// stays in the current command and its commands are recorded as nested.
    fn substitution(&mut self, cur: &mut Current, first: char) {
        let start = self.pos - 1;
        if first == '$' && self.chars.get(self.pos + 1) == Some(&'(') {
            // `$(( … ))` is arithmetic: no commands run inside.
            self.skip_arithmetic();
            cur.text.extend(&self.chars[start..self.pos]);
            return;
        }
        let close = if first == '`' {
            '`'
        } else {
            self.pos += 1; // the `(`
            ')'
        };
        let outer = std::mem::take(&mut self.out);
        self.list(Some(close));
        let inner = std::mem::replace(&mut self.out, outer);
        cur.text.extend(&self.chars[start..self.pos]);
        cur.nested.extend(inner);
    }

    /// Skips `$(( … ))` up to its balancing parenthesis (the `$` is consumed).
    fn skip_arithmetic(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.bump() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    fn flush(&mut self, cur: &mut Current) {
        let text = std::mem::take(&mut cur.text);
        if let Some(command) = clean(&text) {
            self.out.push(command);
        }
        self.out.append(&mut cur.nested);
    }
}

/// Trims a command, strips leading compound keywords and drops what runs nothing.
fn clean(text: &str) -> Option<String> {
    let mut rest = text.trim();
    while let Some((word, tail)) = split_first_word(rest) {
        if !LEADING_KEYWORDS.contains(&word) {
            break;
        }
        rest = tail;
    }
    if rest.is_empty() || CLOSING_KEYWORDS.contains(&rest) {
        return None;
    }
    Some(rest.to_string())
}

fn split_first_word(s: &str) -> Option<(&str, &str)> {
    if s.is_empty() {
        return None;
    }
    Some(match s.split_once(char::is_whitespace) {
        Some((word, tail)) => (word, tail.trim_start()),
        None => (s, ""),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(cmd: &str) -> Vec<String> {
        split_commands(cmd)
    }

    #[test]
    fn splits_on_list_operators() {
        assert_eq!(
            split("cd x && make || echo fail; ls | wc -l\npwd"),
            ["cd x", "make", "echo fail", "ls", "wc -l", "pwd"]
        );
        assert_eq!(split("  git status  "), ["git status"]);
        assert_eq!(split("a;;b&&&&c"), ["a", "b", "c"]);
        assert!(split("").is_empty());
        assert!(split(" ; && \n ").is_empty());
    }

    #[test]
    fn quotes_protect_operators() {
        assert_eq!(
            split(r#"echo "a && b; c" | grep 'x|y'"#),
            [r#"echo "a && b; c""#, "grep 'x|y'"]
        );
        assert_eq!(split(r#"echo "it's; fine""#), [r#"echo "it's; fine""#]);
        assert_eq!(
            split(r#"echo 'say "hi"; ok' && ls"#),
            [r#"echo 'say "hi"; ok'"#, "ls"]
        );
        assert_eq!(split(r"echo a\;b; ls"), [r"echo a\;b", "ls"]);
        assert_eq!(split(r#"echo "a \" ; b""#), [r#"echo "a \" ; b""#]);
    }

    #[test]
    fn background_and_redirections() {
        assert_eq!(split("sleep 1 & rm -rf x"), ["sleep 1", "rm -rf x"]);
        assert_eq!(split("make 2>&1 | tee log"), ["make 2>&1", "tee log"]);
        assert_eq!(split("make &> log; cat <&3"), ["make &> log", "cat <&3"]);
        assert_eq!(split("make |& tee log"), ["make", "tee log"]);
    }

    #[test]
    fn substitutions_are_looked_into() {
        assert_eq!(split("echo $(rm -rf x)"), ["echo $(rm -rf x)", "rm -rf x"]);
        assert_eq!(
            split(r#"echo "$(whoami; id)""#),
            [r#"echo "$(whoami; id)""#, "whoami", "id"]
        );
        assert_eq!(split("echo `date` && ls"), ["echo `date`", "date", "ls"]);
        assert_eq!(
            split("diff <(ls a) <(ls b)"),
            ["diff <(ls a) <(ls b)", "ls a", "ls b"]
        );
        assert_eq!(split("echo $(a $(b))"), ["echo $(a $(b))", "a $(b)", "b"]);
        assert_eq!(
            split("echo $((1 + (2 * 3))); ls"),
            ["echo $((1 + (2 * 3)))", "ls"]
        );
        assert_eq!(split("echo '$(not run)'"), ["echo '$(not run)'"]);
    }

    #[test]
    fn groups_and_keywords() {
        assert_eq!(split("(cd x && rm y)"), ["cd x", "rm y"]);
        assert_eq!(split("{ rm a; rm b; }"), ["rm a", "rm b"]);
        assert_eq!(
            split("if grep -q x f; then rm y; else echo n; fi"),
            ["grep -q x f", "rm y", "echo n"]
        );
        assert_eq!(split("while true; do sleep 1; done"), ["true", "sleep 1"]);
    }

    #[test]
    fn line_continuation_joins() {
        assert_eq!(
            split("cargo build \\\n  --release"),
            ["cargo build   --release"]
        );
    }
}
