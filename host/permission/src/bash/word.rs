//! Shell words: their literal value when they have one, and what they run.
//!
//! Owns reading one word of the syntax tree (an argument, a program name, a
//! redirection target, a `for` or `case` value): unquoting it when it is literal,
//! walking the commands of its `$(…)` and backtick substitutions, and marking the
//! analysis unsure for expansions the shell could turn into code (`${x:-$(…)}`,
//! `$(( a[$(…)] ))`, process substitution, `$'…'`).

use tree_sitter::Node;

use super::analyze::{Unsure, Walker};

/// One word as the checker sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Word {
    /// Fully literal: its value after quote removal.
    Literal(String),
    /// Contains expansions or substitutions: its text as written.
    Dynamic(String),
}

impl Word {
    /// How the word appears in a rule-matching command text.
    pub(super) fn rendered(&self) -> String {
        match self {
            Word::Literal(value) => quote(value),
            Word::Dynamic(raw) => raw.clone(),
        }
    }
}

/// `value` as a shell word: unchanged when it holds no blanks or shell syntax,
/// else single-quoted, so a rule sees one word as one word.
pub fn quote(value: &str) -> String {
    let plain = !value.is_empty()
        && !value.chars().any(|c| {
            c.is_whitespace()
                || matches!(c, '\'' | '"' | '\\' | '$' | '`' | ';' | '&' | '|')
                || matches!(c, '<' | '>' | '(' | ')')
        });
    if plain {
        value.to_string()
    } else {
        format!("'{}'", value.replace('\'', r"'\''"))
    }
}

impl Walker<'_> {
    /// Reads one word; `None` when it made the analysis unsure.
    pub(super) fn word(&mut self, node: Node) -> Option<Word> {
        if !self.descend() {
            return None;
        }
        let word = self.word_inner(node);
        self.ascend();
        word
    }

    fn word_inner(&mut self, node: Node) -> Option<Word> {
        let raw = self.text(node);
        let dynamic = || Some(Word::Dynamic(raw.to_string()));
        match node.kind() {
            "word" => Some(if raw.contains(['{', '}']) {
                // Brace expansion in bash, literal braces in dash.
                Word::Dynamic(raw.to_string())
            } else {
                Word::Literal(unescape(raw, |_| true))
            }),
            // A `case` pattern such as `*)`; bash's `@(…)` forms are not understood.
            "extglob_pattern" if !raw.contains(['(', ')']) => Some(Word::Literal(raw.to_string())),
            "number" if node.named_child_count() == 0 => Some(Word::Literal(raw.to_string())),
            "raw_string" => {
                let inner = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\''));
                inner.map(|s| Word::Literal(s.to_string())).or_else(|| {
                    self.unsure(Unsure::Syntax);
                    None
                })
            }
            "string" => self.string(node),
            "concatenation" => self.concatenation(node),
            "simple_expansion" => self
                .only_names(node)
                .then(|| Word::Dynamic(raw.to_string())),
            "expansion" => {
                if self.only_names(node) {
                    dynamic()
                } else {
                    let what = "a parameter expansion with operators".to_string();
                    self.unsure(Unsure::Construct(what));
                    None
                }
            }
            "command_substitution" => {
                self.substitution(node);
                dynamic()
            }
            "arithmetic_expansion" => {
                self.arithmetic(node);
                dynamic()
            }
            other => {
                let what = match other {
                    "process_substitution" => "process substitution".to_string(),
                    "ansi_c_string" => "`$'…'` quoting".to_string(),
                    "translated_string" => "`$\"…\"` quoting".to_string(),
                    other => format!("`{}`", other.replace('_', " ")),
                };
                self.unsure(Unsure::Construct(what));
                None
            }
        }
    }

    /// A double-quoted string: literal unless it holds expansions.
    fn string(&mut self, node: Node) -> Option<Word> {
        let mut value = String::new();
        let mut literal = true;
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "\"" => {}
                "string_content" => {
                    let text = self.text(child);
                    value.push_str(&unescape(text, |c| matches!(c, '$' | '`' | '"' | '\\')));
                }
                "simple_expansion"
                | "expansion"
                | "command_substitution"
                | "arithmetic_expansion" => {
                    self.word(child)?;
                    literal = false;
                }
                other => {
                    self.unsure(Unsure::Construct(format!("`{other}` in a string")));
                    return None;
                }
            }
        }
        Some(if literal {
            Word::Literal(value)
        } else {
            Word::Dynamic(self.text(node).to_string())
        })
    }

    /// Words written together (`a"b"$c`): literal only if every part is.
    fn concatenation(&mut self, node: Node) -> Option<Word> {
        let mut value = String::new();
        let mut literal = true;
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for child in children {
            if !child.is_named() {
                self.unsure(Unsure::Construct(format!("`{}`", child.kind())));
                return None;
            }
            match self.word(child)? {
                Word::Literal(part) => value.push_str(&part),
                Word::Dynamic(_) => literal = false,
            }
        }
        Some(if literal {
            Word::Literal(value)
        } else {
            Word::Dynamic(self.text(node).to_string())
        })
    }

    /// `$x` or `${x}`: a bare name and nothing else.
    fn only_names(&mut self, node: Node) -> bool {
        let mut cursor = node.walk();
        let ok = node.children(&mut cursor).all(|c| match c.kind() {
            "variable_name" | "special_variable_name" => true,
            "$" | "${" | "}" => !c.is_named(),
            _ => false,
        });
        if !ok {
            self.unsure(Unsure::Construct(
                "a parameter expansion with operators".into(),
            ));
        }
        ok
    }

    /// `$(…)` or backticks: the commands inside are checked like the others.
    fn substitution(&mut self, node: Node) {
        let raw = self.text(node);
        if raw.starts_with('`') && raw.contains('\\') {
            // Backslashes inside backticks are unescaped before the inner parse.
            self.unsure(Unsure::Construct("backslashes inside backticks".into()));
            return;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for (i, child) in children.into_iter().enumerate() {
            if node.field_name_for_child(i as u32) == Some("redirect") {
                // `$(< file)` reads a file without a command.
                self.unsure(Unsure::Construct("`$(< file)`".into()));
            } else if child.is_named() {
                self.push_nested(child);
            } else if !matches!(child.kind(), "$(" | "`" | ")" | ";" | "&" | "\n") {
                self.unsure(Unsure::Construct(format!("`{}`", child.kind())));
            }
        }
    }

    /// `$(( … ))`: only numbers and operators. Names are evaluated as expressions
    /// in their turn by bash (`x='a[$(cmd)]'; $((x))` runs `cmd`), so even a
    /// bare variable is not understood.
    fn arithmetic(&mut self, node: Node) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let ok = match n.kind() {
                "arithmetic_expansion"
                | "binary_expression"
                | "unary_expression"
                | "parenthesized_expression" => true,
                "number" => n.named_child_count() == 0,
                _ => !n.is_named(),
            };
            if !ok {
                let what = "arithmetic on anything but numbers".to_string();
                self.unsure(Unsure::Construct(what));
                return;
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
    }
}

/// Removes backslash escapes: `\c` becomes `c` where `escapes(c)`, and a
/// backslash-newline disappears (a line continuation).
fn unescape(text: &str, escapes: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('\n') => {
                chars.next();
            }
            Some(next) if escapes(next) => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}
