//! What a shell command line runs, parsed with bash's real grammar.
//!
//! Owns turning a command line into the simple commands it runs and the files it
//! redirects to, with `tree-sitter-bash`. The walk is a whitelist: every construct
//! it does not fully understand, or where bash and `/bin/sh` (often dash) may
//! disagree, marks the analysis [`Unsure`], and callers then ask about the command
//! as a whole instead of matching its parts against prefix rules (fail closed).

use std::cell::RefCell;

use tree_sitter::{Node, Parser, Tree};

use super::word::{self, Word};

/// Nesting (statements inside substitutions inside statements …) beyond which a
/// command is not analysed: the walk recurses, and such input is never legitimate.
const MAX_DEPTH: usize = 64;

/// Commands that run, or change how the shell runs, code named in their arguments
/// or read from elsewhere; the rules cannot see what they do.
const INDIRECT: &[&str] = &[
    ".",
    "alias",
    "bash",
    "builtin",
    "chroot",
    "command",
    "coproc",
    "dash",
    "doas",
    "enable",
    "env",
    "eval",
    "exec",
    "fc",
    "fish",
    "getopts",
    "hash",
    "ksh",
    "let",
    "mapfile",
    "nice",
    "nohup",
    "read",
    "readarray",
    "setsid",
    "sh",
    "shopt",
    "source",
    "stdbuf",
    "sudo",
    "time",
    "timeout",
    "trap",
    "unalias",
    "xargs",
    "zsh",
];

/// Variables whose assignment changes how the shell or the loader finds and runs
/// programs, or splits words: the analysis itself would no longer hold.
const SHELL_VARIABLES: &[&str] = &[
    "BASH_ENV",
    "BASHOPTS",
    "CDPATH",
    "ENV",
    "GLOBIGNORE",
    "IFS",
    "PATH",
    "PS4",
    "SHELLOPTS",
];

/// Commands that change the working directory, after which a relative redirect
/// target no longer means what it says.
const CHANGES_DIR: &[&str] = &["cd", "pushd", "popd"];

/// Anonymous tokens that may appear between statements.
const STATEMENT_TOKENS: &[&str] = &[
    ";", "&", "&&", "||", "|", "\n", "(", ")", "{", "}", "!", "if", "then", "fi", "elif", "else",
    "while", "until", "do", "done", "for", "in", "case", "esac", ";;",
];

/// What a command line runs, as far as Ward can tell.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommandAnalysis {
    /// The simple commands, in source order; those inside a command substitution
    /// come after the command containing it.
    pub commands: Vec<SimpleCommand>,
    /// Files opened by redirections (not descriptor duplications such as `2>&1`).
    pub redirects: Vec<Redirect>,
    /// Why the analysis cannot be trusted, if it cannot; the first reason found.
    pub unsure: Option<Unsure>,
}

/// One simple command: a literal program name and its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Variable assignments written before it (`RUST_LOG=debug`), rendered like
    /// arguments; they change what the program does, so only a rule written for
    /// them should allow it.
    pub assignments: Vec<String>,
    /// What `bash` rules match: the name and arguments, literal words unquoted (and
    /// re-quoted only where they contain blanks or shell syntax), words with
    /// expansions as written, then the redirections as written.
    pub text: String,
}

/// A file a redirection opens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The target as written (literal), relative to the working directory unless
    /// absolute.
    pub path: String,
    /// Whether the file is opened for writing (`>`, `>>`, `>|`, `<>`).
    pub write: bool,
}

/// Why a command line is not understood well enough to be checked by its parts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unsure {
    /// The grammar did not parse it (unbalanced quotes, stray operators, …).
    #[error("it does not parse as a shell command")]
    Syntax,
    /// Control characters or unusual blanks, which shells and the parser may
    /// split differently.
    #[error("it contains control characters or unusual blanks")]
    Characters,
    /// Nested too deeply to analyse.
    #[error("it is nested too deeply")]
    TooDeep,
    /// A construct outside what the checker understands.
    #[error("it uses {0}, which the checker does not analyse")]
    Construct(String),
    /// The program to run is computed (`$x`, `$(…)`, a glob, `~`, braces).
    #[error("the program name `{0}` is not a literal word")]
    ComputedName(String),
    /// The program runs code the rules cannot see (`eval`, `source`, `xargs`, …).
    #[error("`{0}` runs commands the checker cannot see")]
    Indirect(String),
    /// A variable assignment, which can change what later commands do
    /// (`PATH=…`, `IFS=…`, `GIT_…`).
    #[error("it assigns the variable `{0}`")]
    Assignment(String),
    /// A redirection target that is not a literal path, or a relative one after
    /// a change of directory.
    #[error("the redirection target `{0}` is not a literal path")]
    RedirectTarget(String),
}

/// Analyses `command` as `/bin/sh -c command` would run it.
pub fn analyze(command: &str) -> CommandAnalysis {
    let mut walker = Walker {
        src: command,
        out: CommandAnalysis::default(),
        changes_dir: false,
        depth: 0,
    };
    if command
        .chars()
        .any(|c| (c.is_control() && c != '\n' && c != '\t') || (c.is_whitespace() && c > '~'))
    {
        walker.unsure(Unsure::Characters);
        return walker.out;
    }
    match parse(command) {
        Some(tree) if !tree.root_node().has_error() => walker.statement(tree.root_node()),
        _ => walker.unsure(Unsure::Syntax),
    }
    if walker.changes_dir
        && let Some(r) = walker
            .out
            .redirects
            .iter()
            .find(|r| !r.path.starts_with('/'))
    {
        let target = r.path.clone();
        walker.unsure(Unsure::RedirectTarget(target));
    }
    walker.out
}

thread_local! {
    /// One parser per thread, set up once: creating one costs more than parsing a
    /// typical command.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `command` with bash's grammar; `None` if the parser cannot be set up.
fn parse(command: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        // A parser left mid-parse (it never is: no timeout or cancellation is set)
        // would resume; start clean.
        parser.reset();
        parser.parse(command, None)
    })
}

/// The walk over the syntax tree, accumulating into `out`.
pub(super) struct Walker<'s> {
    pub(super) src: &'s str,
    out: CommandAnalysis,
    changes_dir: bool,
    depth: usize,
}

impl<'s> Walker<'s> {
    /// Records `reason` unless an earlier one was found.
    pub(super) fn unsure(&mut self, reason: Unsure) {
        self.out.unsure.get_or_insert(reason);
    }

    /// The source text of `node`.
    pub(super) fn text(&self, node: Node) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    /// Enters one level of nesting; false (and unsure) when too deep.
    pub(super) fn descend(&mut self) -> bool {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.unsure(Unsure::TooDeep);
            return false;
        }
        true
    }

    pub(super) fn ascend(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Walks a statement (or a list of them).
    pub(super) fn statement(&mut self, node: Node) {
        if !self.descend() {
            return;
        }
        match node.kind() {
            "program" | "list" | "pipeline" | "subshell" | "compound_statement" | "do_group"
            | "if_statement" | "elif_clause" | "else_clause" | "while_statement"
            | "negated_command" => self.children(node),
            "comment" => {}
            "command" => self.command(node, &[]),
            "redirected_statement" => self.redirected(node),
            "variable_assignment" => self.assignment(node),
            "for_statement" => self.for_loop(node),
            "case_statement" | "case_item" => self.case(node),
            other => self.unsure(Unsure::Construct(construct_name(other))),
        }
        self.ascend();
    }

    /// Walks the statements among `node`'s children; its own tokens must be
    /// plain list and compound syntax.
    fn children(&mut self, node: Node) {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.is_named() {
                self.statement(child);
            } else if !STATEMENT_TOKENS.contains(&child.kind()) {
                self.unsure(Unsure::Construct(format!("`{}`", child.kind())));
            }
        }
    }

    /// `for NAME in WORDS; do …; done`: the words may hold substitutions.
    fn for_loop(&mut self, node: Node) {
        let mut cursor = node.walk();
        for (i, child) in node.children(&mut cursor).enumerate() {
            let field = node.field_name_for_child(i as u32);
            match (field, child.kind()) {
                (Some("variable"), _) => self.check_name(self.text(child)),
                (Some("value"), _) => {
                    self.word(child);
                }
                _ if child.is_named() => self.statement(child),
                (_, token) if STATEMENT_TOKENS.contains(&token) => {}
                (_, token) => self.unsure(Unsure::Construct(format!("`{token}`"))),
            }
        }
    }

    /// `case WORD in PATTERN) …;; esac`: the word and the patterns are expanded.
    fn case(&mut self, node: Node) {
        let mut cursor = node.walk();
        for (i, child) in node.children(&mut cursor).enumerate() {
            if node.field_name_for_child(i as u32) == Some("value") {
                self.word(child);
            } else if child.kind() == "case_item" || child.is_named() {
                self.statement(child);
            } else if !STATEMENT_TOKENS.contains(&child.kind()) {
                // `;&` and `;;&` fall through in bash and are errors in dash.
                self.unsure(Unsure::Construct(format!("`{}`", child.kind())));
            }
        }
    }

    /// A statement with redirections after it: `cmd > f`, `{ …; } 2>&1`.
    fn redirected(&mut self, node: Node) {
        let mut cursor = node.walk();
        let mut body = None;
        let mut redirects = Vec::new();
        for (i, child) in node.children(&mut cursor).enumerate() {
            if node.field_name_for_child(i as u32) == Some("body") {
                body = Some(child);
            } else {
                redirects.push(child);
            }
        }
        match body {
            Some(body) if body.kind() == "command" => self.command(body, &redirects),
            Some(body) => {
                self.statement(body);
                let mut extra = Vec::new();
                let mut text = String::new();
                for r in redirects {
                    self.redirect(r, &mut extra, &mut text);
                }
                if !extra.is_empty() {
                    self.unsure(Unsure::Construct("arguments after a redirection".into()));
                }
            }
            None => self.unsure(Unsure::Construct("a redirection without a command".into())),
        }
    }

    /// A simple command, with `outer` redirections written after it.
    fn command(&mut self, node: Node, outer: &[Node]) {
        // Commands inside its substitutions are found first but listed after it.
        let slot = self.out.commands.len();
        let mut name: Option<String> = None;
        let mut assignments: Vec<String> = Vec::new();
        let mut args: Vec<String> = Vec::new();
        let mut redirects = String::new();
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for child in children.iter().chain(outer) {
            match child.kind() {
                "command_name" => name = self.command_name(*child),
                "variable_assignment" => {
                    if let Some(assignment) = self.prefix_assignment(*child) {
                        assignments.push(assignment);
                    }
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    self.redirect(*child, &mut args, &mut redirects);
                }
                _ if child.is_named() => {
                    if let Some(w) = self.word(*child) {
                        args.push(w.rendered());
                    }
                }
                token => self.unsure(Unsure::Construct(format!("`{token}`"))),
            }
        }
        let Some(name) = name else {
            if self.out.unsure.is_none() {
                self.unsure(Unsure::Construct("a redirection without a command".into()));
            }
            return;
        };
        if INDIRECT.contains(&name.as_str())
            || (name == "printf" && args.iter().any(|a| a.starts_with("-v")))
        {
            self.unsure(Unsure::Indirect(name.clone()));
        }
        if CHANGES_DIR.contains(&name.as_str()) {
            self.changes_dir = true;
        }
        let mut text = word::quote(&name);
        for arg in &args {
            text.push(' ');
            text.push_str(arg);
        }
        text.push_str(&redirects);
        self.out
            .commands
            .insert(slot, SimpleCommand { assignments, text });
    }

    /// The program name: a literal word with nothing the shell would expand.
    fn command_name(&mut self, node: Node) -> Option<String> {
        let raw = self.text(node);
        let inner = node.named_child(0)?;
        let word = self.word(inner)?;
        match word {
            Word::Literal(value)
                if !value.is_empty()
                    && !raw.contains(['*', '?', '[', '{', '}'])
                    && !raw.starts_with('~') =>
            {
                Some(value)
            }
            _ => {
                self.unsure(Unsure::ComputedName(raw.to_string()));
                None
            }
        }
    }

    /// `NAME=value` before a command, rendered; unsure for [`SHELL_VARIABLES`] and
    /// the loader's (`LD_*`, `DYLD_*`), for arrays and for `+=`.
    fn prefix_assignment(&mut self, node: Node) -> Option<String> {
        let name = node
            .child_by_field_name("name")
            .map_or("", |n| self.text(n));
        let special = SHELL_VARIABLES.contains(&name)
            || name.starts_with("LD_")
            || name.starts_with("DYLD_")
            || name.starts_with("BASH_FUNC");
        let mut cursor = node.walk();
        let plain = node
            .children(&mut cursor)
            .all(|c| c.is_named() || c.kind() == "=");
        if special || !plain || name.is_empty() {
            self.unsure(Unsure::Assignment(name.to_string()));
            return None;
        }
        let value = match node.child_by_field_name("value") {
            Some(value) if value.kind() == "array" => {
                self.unsure(Unsure::Construct("an array".into()));
                return None;
            }
            Some(value) => self.word(value)?.rendered(),
            None => String::new(),
        };
        Some(format!("{name}={value}"))
    }

    /// A standalone `name=value`.
    fn assignment(&mut self, node: Node) {
        let name = node
            .child_by_field_name("name")
            .map_or("", |n| self.text(n));
        self.check_name(name);
        match node.child_by_field_name("value") {
            Some(value) if value.kind() == "array" => {
                self.unsure(Unsure::Construct("an array".into()));
            }
            Some(value) => {
                self.word(value);
            }
            None => {}
        }
    }

    /// Variables a command line may set without changing what later commands do:
    /// lower-case names, which no program or shell reads from the environment by
    /// convention (the `*_proxy` variables excepted).
    fn check_name(&mut self, name: &str) {
        let mut chars = name.chars();
        let plain = chars
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
            && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !plain || name.ends_with("_proxy") {
            self.unsure(Unsure::Assignment(name.to_string()));
        }
    }

    /// Records a command found inside a substitution.
    pub(super) fn push_nested(&mut self, node: Node) {
        self.statement(node);
    }

    /// Records a file a redirection opens.
    pub(super) fn push_redirect(&mut self, redirect: Redirect) {
        self.out.redirects.push(redirect);
    }
}

/// How a syntax-tree kind is named to the user.
fn construct_name(kind: &str) -> String {
    match kind {
        "function_definition" => "a function definition".into(),
        "test_command" => "`[[ … ]]`".into(),
        "c_style_for_statement" => "a C-style `for`".into(),
        "declaration_command" => "`export`/`declare`".into(),
        "unset_command" => "`unset`".into(),
        "process_substitution" => "process substitution".into(),
        other => format!("`{}`", other.replace('_', " ")),
    }
}
