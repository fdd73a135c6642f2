//! Expanding a command's template into the prompt that is sent: arguments,
//! shell output and file references. [`expand`] documents the order and the
//! rules.

use std::future::Future;
use std::ops::Range;
use std::pin::Pin;

use crate::info::CommandInfo;

mod args;
mod files;

/// Every `@name` mention in `text` (a file path or an agent name: the caller tells
/// them apart), in order, without duplicates, by the rules of template references.
pub fn mentions(text: &str) -> Vec<String> {
    files::references(text, &[], &[])
}

pub(crate) use args::positions;
pub use args::split_arguments;

/// The placeholder for the whole argument string.
pub const ARGUMENTS: &str = "$ARGUMENTS";

/// A boxed, sendable future (the same type as `futures::future::BoxFuture`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Runs one `` !`cmd` `` for [`expand`]: given the command line, returns its
/// output, or the host's error `E` when it could not run or was refused (only its
/// message is used: it goes into the expansion).
///
/// This crate never starts processes; the host implements this by running
/// the command through the `bash` tool, so the agent's permission rules
/// apply (a denied command is an `Err`). Whether a non-zero exit status is an
/// error, and whether stderr is included, is the host's choice.
pub type ShellFn<'a, E> = dyn Fn(String) -> BoxFuture<'a, Result<String, E>> + Send + Sync + 'a;

/// A command's template after [`expand`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    /// The prompt to send, with surrounding whitespace trimmed.
    pub text: String,
    /// The `@path` references in it, in order of first appearance, without
    /// duplicates and without the `@`; the caller attaches these files (and
    /// decides what to do with paths that do not exist). They stay in `text`
    /// as written.
    pub files: Vec<String>,
}

/// Expands `command`'s template with `arguments` (the text after the command
/// name). The steps, in order:
///
/// 1. **Arguments.** `arguments` is trimmed and split into words like a shell
///    does ([`split_arguments`]: `"a b" c` is `a b` and `c`). Then, in one
///    pass over the template (so text coming from the arguments is never
///    expanded again):
///    - `$ARGUMENTS` becomes the whole (trimmed) argument string;
///    - `$N` (N ≥ 1) becomes the N-th word, except that the highest `$N` in
///      the template takes that word and all the words after it, joined by
///      spaces (with `$1` and `$2` in the template, `a b c d` gives `$1` =
///      `a` and `$2` = `b c d`);
///    - a `$N` with no word becomes empty; `$0` and a lone `$` stay as
///      written; there is no escape for a literal `$1`.
///
///    If the template has neither `$ARGUMENTS` nor any `$N` and the
///    arguments are not empty, they are appended after a blank line, so
///    nothing the user typed is lost (OpenCode's behaviour).
/// 2. **Shell output.** Each `` !`cmd` `` in the template (a non-empty
///    command between backticks, found in the template before step 1, so an
///    argument can never introduce one; placeholders inside `cmd` are
///    substituted) is replaced by the output of `shell(cmd)`, trailing
///    whitespace removed. Commands run one at a time, in the order they
///    appear. A failure does not abort the expansion: it is replaced by
///    `` [command failed: `cmd`: message] `` so the model sees what went
///    wrong. A command that is empty after substitution is not run and
///    gives `[command failed: the command is empty]`.
/// 3. **File references.** `@path` is collected into [`Expanded::files`] when
///    the `@` starts the text or follows whitespace (so `me@example.com` is
///    not one) and a path-like token follows: up to whitespace or one of
///    `` ` , ; " ' ( ) [ ] { } < > ``, minus trailing `. : ! ?`, containing a
///    letter or digit and no further `@`. Tokens equal to a name in
///    `agents` are `@agent` mentions and are skipped. References inside the
///    output of shell commands are not collected (a `git log` full of
///    `@handles` attaches nothing); those in the arguments are.
pub async fn expand<E: std::fmt::Display>(
    command: &CommandInfo,
    arguments: &str,
    shell: &ShellFn<'_, E>,
    agents: &[&str],
) -> Expanded {
    let arguments = arguments.trim();
    let template = command.template.as_str();
    let words = split_arguments(arguments);
    let numbers = positions(template);
    let last = numbers.last().copied().unwrap_or(0);
    let uses_arguments = !numbers.is_empty() || template.contains(ARGUMENTS);

    let mut text = String::with_capacity(template.len() + arguments.len());
    let mut outputs: Vec<Range<usize>> = Vec::new();
    for segment in segments(template) {
        match segment {
            Segment::Text(part) => text.push_str(&args::substitute(part, &words, arguments, last)),
            Segment::Shell(part) => {
                let line = args::substitute(part, &words, arguments, last);
                let output = run(shell, line).await;
                let start = text.len();
                text.push_str(&output);
                outputs.push(start..text.len());
            }
        }
    }
    if !uses_arguments && !arguments.is_empty() {
        text.push_str("\n\n");
        text.push_str(arguments);
    }
    let files = files::references(&text, agents, &outputs);
    Expanded {
        text: text.trim().to_string(),
        files,
    }
}

/// The output of one shell command, or the note that replaces it.
async fn run<E: std::fmt::Display>(shell: &ShellFn<'_, E>, line: String) -> String {
    let line = line.trim().to_string();
    if line.is_empty() {
        return "[command failed: the command is empty]".to_string();
    }
    match shell(line.clone()).await {
        Ok(output) => output.trim_end().to_string(),
        Err(error) => format!("[command failed: `{line}`: {}]", error.to_string().trim()),
    }
}

/// A piece of a template: literal text, or the command of a `` !`cmd` ``.
#[derive(Debug, PartialEq, Eq)]
enum Segment<'a> {
    Text(&'a str),
    Shell(&'a str),
}

/// Splits `template` at each `` !`cmd` `` (non-empty `cmd`, no backtick in
/// it). An unclosed `` !` `` and an empty `` !`` `` are text.
fn segments(template: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut text_start = 0;
    let mut pos = 0;
    while let Some(found) = template[pos..].find("!`") {
        let body = pos + found + 2;
        match template[body..].find('`') {
            None => break,
            Some(0) => pos = body + 1,
            Some(len) => {
                let open = body - 2;
                if text_start < open {
                    out.push(Segment::Text(&template[text_start..open]));
                }
                out.push(Segment::Shell(&template[body..body + len]));
                pos = body + len + 1;
                text_start = pos;
            }
        }
    }
    if text_start < template.len() {
        out.push(Segment::Text(&template[text_start..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_shell_segments() {
        use Segment::{Shell, Text};
        assert_eq!(
            segments("a !`ls -l` b!`pwd`"),
            [Text("a "), Shell("ls -l"), Text(" b"), Shell("pwd")]
        );
        assert_eq!(segments("!`x`"), [Shell("x")]);
        assert_eq!(segments("no !`` cmd"), [Text("no !`` cmd")]);
        assert_eq!(segments("open !`ls"), [Text("open !`ls")]);
        assert_eq!(segments("plain `code` !"), [Text("plain `code` !")]);
    }
}
