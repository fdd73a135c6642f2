//! `{env:VAR}` and `{file:path}` substitution, done on the raw text before
//! TOML parsing, plus the [`SourceMap`] that maps positions in the substituted
//! text back to the file the user wrote.
//!
//! Tokens are found with a small TOML-aware scanner so a value is encoded for
//! where it lands: inside a basic string (`"…"`, `"""…"""`) it is escaped, so a
//! value can never end the string early and inject keys, and a multi-line file
//! keeps the string on one line; outside strings it is inserted raw
//! (`context = {env:CTX}`); inside a literal string (`'…'`) it is inserted raw
//! when that is representable and is an error otherwise. Comments are left
//! alone, so a commented-out `{env:UNSET}` is not an error. Substituted values
//! are never scanned again.

use std::path::{Path, PathBuf};

use crate::error::{ConfigError, Located};

/// Looks an environment variable up; `load` passes the process environment,
/// tests pass a fixed map.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The result of [`substitute`]: the text to parse and how to map its
/// positions back to the original.
#[derive(Debug, Clone)]
pub struct Substituted {
    /// The text with every token replaced.
    pub text: String,
    /// Maps byte offsets in `text` to byte offsets in the original.
    pub map: SourceMap,
}

/// Byte-offset mapping from substituted text to the original text.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    /// Replacements in increasing order.
    edits: Vec<Edit>,
}

/// One replaced token: `orig` in the original became `out` in the output.
#[derive(Debug, Clone, Copy)]
struct Edit {
    out_start: usize,
    out_end: usize,
    orig_start: usize,
    orig_end: usize,
}

impl SourceMap {
    /// Maps a byte offset in the substituted text to the original text.
    ///
    /// An offset inside a substituted value maps to the start of its token,
    /// the most useful place to point at when the value itself is at fault.
    pub fn original_offset(&self, offset: usize) -> usize {
        let mut mapped = offset;
        for edit in &self.edits {
            if offset < edit.out_start {
                break;
            }
            if offset < edit.out_end {
                return edit.orig_start;
            }
            mapped = edit.orig_end + (offset - edit.out_end);
        }
        mapped
    }

    /// Whether any substituted value lies (even partly) in the byte range
    /// `start..end` of the substituted text: the value spelt there came, at least
    /// in part, from a `{env:…}` or `{file:…}` token, so it may be a secret.
    pub(crate) fn substituted_within(&self, start: usize, end: usize) -> bool {
        self.edits
            .iter()
            .any(|edit| edit.out_start < end && start < edit.out_end)
    }
}

/// Where the scanner is in the TOML text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Bare,
    Comment,
    Basic,
    MultiBasic,
    Literal,
    MultiLiteral,
}

/// Replaces `{env:VAR}` and `{file:path}` tokens in `text`, the content of
/// `file`.
///
/// `{file:…}` paths are relative to `base_dir` (the config file's directory);
/// `~/` expands to `$HOME`. File contents are trimmed, as OpenCode does, so a
/// key file's trailing newline does not end up in the key.
pub fn substitute(
    file: &Path,
    text: &str,
    base_dir: &Path,
    env: EnvLookup<'_>,
) -> Result<Substituted, ConfigError> {
    substitute_with(file, text, base_dir, env, Tokens::Resolve)
}

/// What a `{env:…}` or `{file:…}` token becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tokens {
    /// Its value: the variable, or the file's content.
    Resolve,
    /// A held marker (the token between two [`HELD`] characters): nothing is read,
    /// for a layer not yet trusted, whose keys holding a marker are then set aside.
    Hold,
}

/// Brackets a held token in a value. A Unicode noncharacter: it never appears in
/// text a person wrote, so a marker cannot be forged or mistaken.
pub(crate) const HELD: char = '\u{FDD0}';

/// [`substitute`], resolving or holding tokens as `tokens` says.
pub(crate) fn substitute_with(
    file: &Path,
    text: &str,
    base_dir: &Path,
    env: EnvLookup<'_>,
    tokens: Tokens,
) -> Result<Substituted, ConfigError> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut map = SourceMap::default();
    let mut ctx = Ctx::Bare;
    // Start of the not-yet-copied run of original text.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        let (next_ctx, advance) = match (ctx, bytes[i]) {
            (Ctx::Bare, b'#') => (Ctx::Comment, 1),
            (Ctx::Bare, b'"') if rest.starts_with("\"\"\"") => (Ctx::MultiBasic, 3),
            (Ctx::Bare, b'"') => (Ctx::Basic, 1),
            (Ctx::Bare, b'\'') if rest.starts_with("'''") => (Ctx::MultiLiteral, 3),
            (Ctx::Bare, b'\'') => (Ctx::Literal, 1),
            (Ctx::Comment | Ctx::Basic | Ctx::Literal, b'\n') => (Ctx::Bare, 1),
            (Ctx::Basic | Ctx::MultiBasic, b'\\') => (ctx, 2),
            (Ctx::Basic, b'"') | (Ctx::Literal, b'\'') => (Ctx::Bare, 1),
            (Ctx::MultiBasic, b'"') if rest.starts_with("\"\"\"") => {
                (Ctx::Bare, closing_len(rest, b'"'))
            }
            (Ctx::MultiLiteral, b'\'') if rest.starts_with("'''") => {
                (Ctx::Bare, closing_len(rest, b'\''))
            }
            (c, b'{') if c != Ctx::Comment => {
                if let Some(token) = Token::parse(rest) {
                    let at = || Located::from_offset(file, text, i);
                    if tokens == Tokens::Hold && !matches!(ctx, Ctx::Basic | Ctx::MultiBasic) {
                        return Err(ConfigError::Substitution {
                            at: at(),
                            message: format!(
                                "{} outside a basic string (\"…\") in a project file that is \
                                 not trusted: run `ward trust` to use it",
                                token.describe()
                            ),
                        });
                    }
                    let value = match tokens {
                        Tokens::Resolve => token.resolve(base_dir, env, at)?,
                        Tokens::Hold => token.held(),
                    };
                    let encoded = encode(&value, ctx, &token, at)?;
                    out.push_str(&text[copied..i]);
                    let out_start = out.len();
                    out.push_str(&encoded);
                    map.edits.push(Edit {
                        out_start,
                        out_end: out.len(),
                        orig_start: i,
                        orig_end: i + token.len,
                    });
                    i += token.len;
                    copied = i;
                    continue;
                }
                (ctx, 1)
            }
            _ => (ctx, 1),
        };
        ctx = next_ctx;
        i = (i + advance).min(bytes.len());
        // Escapes skip a byte that may start a multi-byte character.
        while !text.is_char_boundary(i) {
            i += 1;
        }
    }
    out.push_str(&text[copied..]);
    Ok(Substituted { text: out, map })
}

/// Length of a multi-line string's closing delimiter: TOML lets up to two
/// quotes of content sit directly before the closing three.
fn closing_len(rest: &str, quote: u8) -> usize {
    rest.bytes().take(5).take_while(|b| *b == quote).count()
}

/// A `{env:…}` or `{file:…}` token at the start of some text.
struct Token<'a> {
    kind: TokenKind,
    /// The variable name or path, trimmed.
    arg: &'a str,
    /// Byte length of the whole token including braces.
    len: usize,
}

#[derive(Clone, Copy)]
enum TokenKind {
    Env,
    File,
}

impl<'a> Token<'a> {
    fn parse(rest: &'a str) -> Option<Self> {
        let (kind, prefix) = if rest.starts_with("{env:") {
            (TokenKind::Env, "{env:")
        } else if rest.starts_with("{file:") {
            (TokenKind::File, "{file:")
        } else {
            return None;
        };
        let body = &rest[prefix.len()..];
        let end = body.find(['}', '\n'])?;
        let arg = body[..end].trim();
        if !body[end..].starts_with('}') || arg.is_empty() {
            return None;
        }
        Some(Self {
            kind,
            arg,
            len: prefix.len() + end + 1,
        })
    }

    fn describe(&self) -> String {
        match self.kind {
            TokenKind::Env => format!("{{env:{}}}", self.arg),
            TokenKind::File => format!("{{file:{}}}", self.arg),
        }
    }

    /// The marker standing for this token in a held layer.
    fn held(&self) -> String {
        format!("{HELD}{}{HELD}", self.describe())
    }

    fn resolve(
        &self,
        base_dir: &Path,
        env: EnvLookup<'_>,
        at: impl Fn() -> Located,
    ) -> Result<String, ConfigError> {
        match self.kind {
            TokenKind::Env => env(self.arg).ok_or_else(|| ConfigError::EnvNotSet {
                at: at(),
                var: self.arg.to_owned(),
            }),
            TokenKind::File => {
                let path = resolve_path(self.arg, base_dir, env).ok_or_else(|| {
                    ConfigError::Substitution {
                        at: at(),
                        message: format!(
                            "cannot expand `~` in {}: HOME is not set",
                            self.describe()
                        ),
                    }
                })?;
                match std::fs::read_to_string(&path) {
                    Ok(content) => Ok(content.trim().to_owned()),
                    Err(source) => Err(ConfigError::FileNotReadable {
                        at: at(),
                        path,
                        source,
                    }),
                }
            }
        }
    }
}

/// Resolves a path written in configuration: `~/` is `$HOME`, absolute paths
/// stay, anything else is relative to `base_dir`. `None` when `~` is used but
/// `HOME` is unset.
pub(crate) fn resolve_path(path: &str, base_dir: &Path, env: EnvLookup<'_>) -> Option<PathBuf> {
    if path == "~" || path.starts_with("~/") {
        let home = env("HOME")?;
        return Some(
            PathBuf::from(home).join(path.trim_start_matches('~').trim_start_matches('/')),
        );
    }
    Some(base_dir.join(path))
}

/// Whether one already-decoded string value holds a `{env:…}` or `{file:…}`
/// token, i.e. whether [`substitute_value`] changes it.
pub(crate) fn has_token(value: &str) -> bool {
    value
        .match_indices('{')
        .any(|(start, _)| Token::parse(&value[start..]).is_some())
}

/// Replaces `{env:VAR}` and `{file:path}` tokens in one already-decoded string
/// value (of a JSON file, where there is no TOML string to escape for): the value
/// is inserted as it is, and never scanned again. `at` locates the value.
pub(crate) fn substitute_value(
    value: &str,
    base_dir: &Path,
    env: EnvLookup<'_>,
    tokens: Tokens,
    at: impl Fn() -> Located,
) -> Result<String, ConfigError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        match Token::parse(rest) {
            Some(token) => {
                match tokens {
                    Tokens::Resolve => out.push_str(&token.resolve(base_dir, env, &at)?),
                    Tokens::Hold => out.push_str(&token.held()),
                }
                rest = &rest[token.len..];
            }
            None => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// Encodes `value` for the context its token was found in.
fn encode(
    value: &str,
    ctx: Ctx,
    token: &Token<'_>,
    at: impl Fn() -> Located,
) -> Result<String, ConfigError> {
    let unfit = |why: &str| ConfigError::Substitution {
        at: at(),
        message: format!(
            "the value of {} {why}, so it cannot go in a literal string; use a basic string (\"…\")",
            token.describe()
        ),
    };
    match ctx {
        Ctx::Basic | Ctx::MultiBasic => Ok(escape_basic(value)),
        Ctx::Literal if value.contains(['\'', '\n', '\r']) => {
            Err(unfit("contains a quote or a line break"))
        }
        Ctx::MultiLiteral if value.contains("'''") => Err(unfit("contains `'''`")),
        Ctx::Bare | Ctx::Literal | Ctx::MultiLiteral | Ctx::Comment => Ok(value.to_owned()),
    }
}

/// Escapes `value` for a TOML basic string. Newlines become `\n` so a
/// multi-line value occupies one line and later line numbers stay true.
pub(crate) fn escape_basic(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
