//! Redirections: which files a command opens, and which forms are trusted.
//!
//! Owns reading `file_redirect` and heredoc nodes. Descriptor duplications
//! (`2>&1`, `>&2`, `>&-`) open nothing; `>`, `>>`, `>|`, `<` and `<>` open their
//! literal target. Bash-only forms that dash reads differently are not trusted:
//! `&>` and `>&file` (dash runs `cmd &` and then `>file …` as a second command),
//! `<<<`, and descriptors above 9. A heredoc is data unless its body is expanded
//! (an unquoted delimiter with `$`, backticks or backslashes in the body), and
//! anything written after its delimiter on the same line is not analysed.

use tree_sitter::Node;

use super::analyze::{Redirect, Unsure, Walker};
use super::word::Word;

impl Walker<'_> {
    /// Reads one redirection: its file goes to the analysis, its text to `text`,
    /// and words after its target (`>&2 message`) to `args`.
    pub(super) fn redirect(&mut self, node: Node, args: &mut Vec<String>, text: &mut String) {
        match node.kind() {
            "file_redirect" => self.file_redirect(node, args, text),
            "heredoc_redirect" => self.heredoc(node, text),
            other => {
                let what = match other {
                    "herestring_redirect" => "a here-string".to_string(),
                    other => format!("`{}`", other.replace('_', " ")),
                };
                self.unsure(Unsure::Construct(what));
            }
        }
    }

    fn file_redirect(&mut self, node: Node, args: &mut Vec<String>, text: &mut String) {
        let mut operator = None;
        let mut target: Option<(Node, Word)> = None;
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "file_descriptor" => {
                    let fd = self.text(child);
                    if fd.len() != 1 || !fd.bytes().all(|b| b.is_ascii_digit()) {
                        let what = format!("the file descriptor `{fd}`");
                        self.unsure(Unsure::Construct(what));
                        return;
                    }
                }
                _ if !child.is_named() && operator.is_none() => operator = Some(child.kind()),
                _ if child.is_named() => {
                    let Some(word) = self.word(child) else { return };
                    if target.is_none() {
                        target = Some((child, word));
                    } else {
                        args.push(word.rendered());
                    }
                }
                token => {
                    self.unsure(Unsure::Construct(format!("`{token}` in a redirection")));
                    return;
                }
            }
        }
        let operator = operator.unwrap_or("");
        let written = |target: &Option<(Node, Word)>| match target {
            Some((n, _)) => {
                self.text(node)
                    .split_at(n.start_byte() - node.start_byte())
                    .0
            }
            None => self.text(node),
        };
        let head = written(&target).to_string();
        match (operator, &target) {
            ("&>" | "&>>", _) => {
                self.unsure(Unsure::Construct(format!("`{operator}`")));
            }
            (">&-" | "<&-", None) => {}
            (">&" | "<&", Some((_, Word::Literal(fd)))) if fd == "-" || is_digit(fd) => {}
            (">&" | "<&", _) => {
                let what = format!("`{operator}` with a file name");
                self.unsure(Unsure::Construct(what));
            }
            (">" | ">>" | ">|" | "<>" | "<", Some((_, Word::Literal(path))))
                if !path.is_empty() && !path.starts_with('~') && !has_glob(path) =>
            {
                self.push_redirect(Redirect {
                    path: path.clone(),
                    write: operator != "<",
                });
            }
            (">" | ">>" | ">|" | "<>" | "<", Some((n, _))) => {
                let raw = self.text(*n).to_string();
                self.unsure(Unsure::RedirectTarget(raw));
            }
            _ => {
                let what = format!("the redirection `{}`", self.text(node));
                self.unsure(Unsure::Construct(what));
            }
        }
        text.push(' ');
        text.push_str(&head);
        if let Some((_, word)) = &target {
            text.push_str(&word.rendered());
        }
    }

    /// `<<EOF`: only the delimiter and the body; the body must not be expanded.
    fn heredoc(&mut self, node: Node, text: &mut String) {
        let mut quoted = false;
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "<<" | "<<-" => {}
                "heredoc_start" => {
                    quoted = self.text(child).contains(['\'', '"', '\\']);
                    text.push_str(" <<");
                    text.push_str(self.text(child));
                }
                "heredoc_body" => {
                    let body = self.text(child);
                    if !quoted && body.contains(['$', '`', '\\']) {
                        let what = "a heredoc whose body is expanded".to_string();
                        self.unsure(Unsure::Construct(what));
                    }
                }
                "heredoc_end" => {}
                _ => {
                    let what = "commands after a heredoc on the same line".to_string();
                    self.unsure(Unsure::Construct(what));
                }
            }
        }
    }
}

fn is_digit(s: &str) -> bool {
    s.len() == 1 && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whether a literal target would be globbed by the shell (bash globs redirection
/// targets when it is interactive and dash never does; either way, not trusted).
fn has_glob(path: &str) -> bool {
    path.contains(['*', '?', '['])
}
