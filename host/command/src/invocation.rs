//! Recognising a command in a prompt: `/name arguments`.
//!
//! The rules, checked in order:
//!
//! 1. Leading whitespace is ignored; the input must then start with one `/`.
//! 2. The name runs from after the `/` to the first whitespace (or the end)
//!    and must satisfy [`is_valid_name`]: so `/ x`,
//!    `//x`, `/a//b`, `/x/` and `/$HOME` are not invocations.
//! 3. [`parse_invocation`] also rejects a name with a `/` whose first segment
//!    is a top-level directory of a Unix or macOS filesystem (`usr`, `etc`,
//!    `home`, `tmp`, `Users`, …): `/usr/bin is in PATH` is a prompt about a
//!    path, not the command `usr/bin`. [`CommandRegistry::resolve`] skips
//!    this rule, since it only accepts names that exist.
//! 4. The arguments are the rest of the input with surrounding whitespace
//!    removed (inner newlines are kept).
//!
//! A name that passes is only *known-looking*: the caller still looks it up
//! (or uses [`CommandRegistry::resolve`]) and treats an unknown name as it
//! chooses.
//!
//! [`CommandRegistry::resolve`]: crate::CommandRegistry::resolve

use crate::info::is_valid_name;

/// A command invocation: `/name arguments`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invocation<'a> {
    /// The command name, without the `/`.
    pub name: &'a str,
    /// Everything after the name, trimmed; empty when there is nothing.
    pub arguments: &'a str,
}

/// Top-level directories of Unix and macOS filesystems; a `/`-separated name
/// starting with one of them is taken for a path.
const ROOT_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib32",
    "lib64",
    "media",
    "mnt",
    "nix",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "snap",
    "srv",
    "sys",
    "tmp",
    "usr",
    "var",
    "Applications",
    "Library",
    "System",
    "Users",
    "Volumes",
    "private",
];

/// `input` as a command invocation, or `None` when it is not one (see the
/// module documentation for the rules).
pub fn parse_invocation(input: &str) -> Option<Invocation<'_>> {
    let invocation = split_invocation(input)?;
    let looks_like_path = invocation
        .name
        .split_once('/')
        .is_some_and(|(first, _)| ROOT_DIRS.contains(&first));
    (!looks_like_path).then_some(invocation)
}

/// Rules 1, 2 and 4: the syntax alone.
pub(crate) fn split_invocation(input: &str) -> Option<Invocation<'_>> {
    let rest = input.trim_start().strip_prefix('/')?;
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (name, arguments) = rest.split_at(end);
    is_valid_name(name).then_some(Invocation {
        name,
        arguments: arguments.trim(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(input: &str) -> Option<(&str, &str)> {
        parse_invocation(input).map(|i| (i.name, i.arguments))
    }

    #[test]
    fn commands_with_and_without_arguments() {
        assert_eq!(parsed("/init"), Some(("init", "")));
        assert_eq!(parsed("/review HEAD~1"), Some(("review", "HEAD~1")));
        assert_eq!(
            parsed("  /git/commit  \"fix: x\" now \n"),
            Some(("git/commit", "\"fix: x\" now"))
        );
        assert_eq!(
            parsed("/review\nline one\nline two"),
            Some(("review", "line one\nline two"))
        );
        assert_eq!(parsed("/v1.2\targ"), Some(("v1.2", "arg")));
    }

    #[test]
    fn not_commands() {
        for input in [
            "",
            "init",
            "hello /init",
            "/",
            "/ x",
            "//x",
            "/x/",
            "/a//b",
            "/.x",
            "/$HOME",
            "/a,b",
            "/usr/bin",
            "/usr/bin is in PATH",
            "/etc/hosts",
            "/Users/me/x.rs",
        ] {
            assert_eq!(parsed(input), None, "{input:?}");
        }
    }

    #[test]
    fn syntax_alone_accepts_path_like_names() {
        let invocation = split_invocation("/usr/bin x").expect("syntactically fine");
        assert_eq!((invocation.name, invocation.arguments), ("usr/bin", "x"));
        assert_eq!(split_invocation("// x"), None);
    }
}
