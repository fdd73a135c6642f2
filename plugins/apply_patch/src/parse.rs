//! Parsing the patch format of OpenAI Codex's `apply_patch`:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path        every following line starts with `+`
//! *** Delete File: path
//! *** Update File: path
//! *** Move to: new/path     optional, right after Update File
//! @@ optional context line  starts a chunk; then ` ` context, `-` removed, `+` added lines
//! *** End of File           optional: the chunk ends at the end of the file
//! *** End Patch
//! ```

/// One file operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hunk {
    /// Create (or overwrite) a file.
    Add {
        /// Path as written in the patch.
        path: String,
        /// The whole content.
        contents: String,
    },
    /// Remove a file.
    Delete {
        /// Path as written in the patch.
        path: String,
    },
    /// Change a file in place, optionally renaming it.
    Update {
        /// Path as written in the patch.
        path: String,
        /// New path, for a rename.
        move_to: Option<String>,
        /// The changes, in file order.
        chunks: Vec<Chunk>,
    },
}

/// One `@@` section of an update.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunk {
    /// The line after `@@`, searched for before the chunk's lines.
    pub context: Option<String>,
    /// Context and removed lines: what the file has now.
    pub old: Vec<String>,
    /// Context and added lines: what it will have.
    pub new: Vec<String>,
    /// The chunk must match at the end of the file.
    pub eof: bool,
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// A malformed patch: the 1-based line of the patch text it was found on, when there is
/// one, and what is wrong there (for the model, which wrote the patch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The offending line, counted as [`parse`] describes.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl ParseError {
    fn at(line: usize, message: String) -> Self {
        ParseError {
            line: Some(line),
            message,
        }
    }

    fn whole(message: String) -> Self {
        ParseError {
            line: None,
            message,
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "Line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses a whole patch. Errors name the offending line (1-based, counted in the patch
/// text after any heredoc wrapper is removed).
pub fn parse(text: &str) -> Result<Vec<Hunk>, ParseError> {
    let text = strip_heredoc(text.trim());
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    if lines.first().map(|l| l.trim()) != Some(BEGIN) {
        return Err(ParseError::whole(format!(
            "The first line of the patch must be '{BEGIN}'"
        )));
    }
    if lines.len() < 2 || lines.last().map(|l| l.trim()) != Some(END) {
        return Err(ParseError::whole(format!(
            "The last line of the patch must be '{END}'"
        )));
    }
    let body = &lines[1..lines.len() - 1];
    let mut hunks = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let line = body[i];
        let number = i + 2;
        if line.trim().is_empty() {
            i += 1;
        } else if let Some(path) = header(line, ADD) {
            let path = path_of(path, number)?;
            i += 1;
            let mut contents = String::new();
            // Blank lines count as empty lines of the file only when more `+` lines
            // follow: before the next header they are separators.
            let mut blanks = 0;
            while i < body.len() && !is_file_header(body[i]) {
                match body[i].strip_prefix('+') {
                    Some(text) => {
                        contents.push_str(&"\n".repeat(blanks));
                        blanks = 0;
                        contents.push_str(text);
                        contents.push('\n');
                    }
                    None if body[i].trim().is_empty() => blanks += 1,
                    None => {
                        return Err(ParseError::at(
                            i + 2,
                            format!(
                                "every line of an added file must start with '+' ({path}): '{}'",
                                body[i]
                            ),
                        ));
                    }
                }
                i += 1;
            }
            hunks.push(Hunk::Add { path, contents });
        } else if let Some(path) = header(line, DELETE) {
            hunks.push(Hunk::Delete {
                path: path_of(path, number)?,
            });
            i += 1;
        } else if let Some(path) = header(line, UPDATE) {
            let path = path_of(path, number)?;
            i += 1;
            let mut move_to = None;
            if let Some(target) = body.get(i).and_then(|l| header(l, MOVE)) {
                move_to = Some(path_of(target, i + 2)?);
                i += 1;
            }
            let (chunks, next) = parse_chunks(body, i, &path)?;
            if chunks.is_empty() && move_to.is_none() {
                return Err(ParseError::at(
                    number,
                    format!("Update File {path} has no changes"),
                ));
            }
            hunks.push(Hunk::Update {
                path,
                move_to,
                chunks,
            });
            i = next;
        } else {
            return Err(ParseError::at(
                number,
                format!(
                    "expected a file header ('{ADD}', '{UPDATE}' or '{DELETE}'), found '{line}'"
                ),
            ));
        }
    }
    if hunks.is_empty() {
        return Err(ParseError::whole(
            "The patch contains no file operations".into(),
        ));
    }
    Ok(hunks)
}

/// Parses the chunks of an update starting at `body[start]`; returns them and the index
/// of the next file header.
fn parse_chunks(
    body: &[&str],
    start: usize,
    path: &str,
) -> Result<(Vec<Chunk>, usize), ParseError> {
    let mut chunks: Vec<Chunk> = Vec::new();
    let mut current: Option<Chunk> = None;
    // Bare empty lines at the end of the current chunk (see `finish`).
    let mut blanks = 0;
    let mut i = start;
    while i < body.len() && !is_file_header(body[i]) {
        let line = body[i];
        if let Some(context) = line.strip_prefix("@@") {
            chunks.extend(current.take().and_then(|c| finish(c, blanks)));
            blanks = 0;
            let context = context.trim();
            current = Some(Chunk {
                context: (!context.is_empty()).then(|| context.to_string()),
                ..Chunk::default()
            });
        } else if line.trim() == END_OF_FILE {
            let chunk = current.get_or_insert_with(Chunk::default);
            chunk.eof = true;
            chunks.extend(current.take().and_then(|c| finish(c, blanks)));
            blanks = 0;
        } else {
            // The first chunk may omit its `@@` line.
            let chunk = current.get_or_insert_with(Chunk::default);
            blanks = if line.is_empty() { blanks + 1 } else { 0 };
            match line.chars().next() {
                Some(' ') => {
                    chunk.old.push(line[1..].to_string());
                    chunk.new.push(line[1..].to_string());
                }
                Some('-') => chunk.old.push(line[1..].to_string()),
                Some('+') => chunk.new.push(line[1..].to_string()),
                // An empty line is an empty context line (editors strip the lone space).
                None => {
                    chunk.old.push(String::new());
                    chunk.new.push(String::new());
                }
                Some(_) => {
                    return Err(ParseError::at(
                        i + 2,
                        format!(
                            "unexpected line in the update of {path}: '{line}'. Lines of a \
change must start with ' ' (context), '-' (removed), '+' (added) or '@@'"
                        ),
                    ));
                }
            }
        }
        i += 1;
    }
    chunks.extend(current.and_then(|c| finish(c, blanks)));
    Ok((chunks, i))
}

/// Ends a chunk: drops its `blanks` trailing bare empty lines (most likely separators;
/// dropping context only makes the match looser) and discards it if nothing is left.
fn finish(mut chunk: Chunk, blanks: usize) -> Option<Chunk> {
    for _ in 0..blanks {
        chunk.old.pop();
        chunk.new.pop();
    }
    (!chunk.old.is_empty() || !chunk.new.is_empty()).then_some(chunk)
}

fn header<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    line.trim_start().strip_prefix(prefix).map(str::trim)
}

fn is_file_header(line: &str) -> bool {
    [ADD, DELETE, UPDATE]
        .iter()
        .any(|prefix| line.trim_start().starts_with(prefix))
}

fn path_of(path: &str, line: usize) -> Result<String, ParseError> {
    if path.is_empty() {
        Err(ParseError::at(line, "the file header has no path".into()))
    } else {
        Ok(path.to_string())
    }
}

/// Removes a shell heredoc wrapper (`cat <<'EOF'` … `EOF`, `apply_patch <<EOF` …) that
/// models sometimes copy from examples meant for a shell.
fn strip_heredoc(text: &str) -> &str {
    let Some((first, rest)) = text.split_once('\n') else {
        return text;
    };
    let Some(at) = first.find("<<") else {
        return text;
    };
    let tag = first[at + 2..]
        .trim()
        .trim_start_matches('-')
        .trim_matches(|c| c == '\'' || c == '"');
    if tag.is_empty() || !tag.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return text;
    }
    match rest.trim_end().rsplit_once('\n') {
        Some((body, last)) if last.trim() == tag => body,
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Vec<Hunk> {
        match parse(text) {
            Ok(h) => h,
            Err(e) => panic!("parse failed: {e}"),
        }
    }

    fn err(text: &str) -> String {
        match parse(text) {
            Ok(h) => panic!("expected an error, got {h:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn parses_every_kind_of_operation() {
        let hunks = ok("*** Begin Patch
*** Add File: hello.txt
+Hello
+world
*** Update File: src/a.rs
*** Move to: src/b.rs
@@ fn main() {
-    old();
+    new();
     keep();
*** Delete File: gone.txt
*** End Patch");
        assert_eq!(
            hunks,
            vec![
                Hunk::Add {
                    path: "hello.txt".into(),
                    contents: "Hello\nworld\n".into()
                },
                Hunk::Update {
                    path: "src/a.rs".into(),
                    move_to: Some("src/b.rs".into()),
                    chunks: vec![Chunk {
                        context: Some("fn main() {".into()),
                        old: vec!["    old();".into(), "    keep();".into()],
                        new: vec!["    new();".into(), "    keep();".into()],
                        eof: false,
                    }]
                },
                Hunk::Delete {
                    path: "gone.txt".into()
                },
            ]
        );
    }

    #[test]
    fn first_chunk_may_omit_its_header_and_chunks_split_on_at_at() {
        let hunks = ok("*** Begin Patch
*** Update File: f
 a
-b
+B
@@
 c
-d
*** End of File
*** End Patch");
        let Hunk::Update { chunks, .. } = &hunks[0] else {
            panic!("expected an update")
        };
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].old, vec!["a", "b"]);
        assert_eq!(chunks[1].context, None);
        assert!(chunks[1].eof);
    }

    #[test]
    fn blank_separator_lines_are_not_content() {
        let hunks = ok("*** Begin Patch
*** Add File: a
+x

+y

*** Update File: b
 keep

-drop

*** End Patch");
        assert_eq!(
            hunks[0],
            Hunk::Add {
                path: "a".into(),
                contents: "x\n\ny\n".into()
            }
        );
        let Hunk::Update { chunks, .. } = &hunks[1] else {
            panic!("expected an update")
        };
        assert_eq!(chunks[0].old, vec!["keep", "", "drop"]);
        assert_eq!(chunks[0].new, vec!["keep", ""]);
    }

    #[test]
    fn heredoc_wrappers_are_removed() {
        let hunks = ok("cat <<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n");
        assert_eq!(hunks, vec![Hunk::Delete { path: "x".into() }]);
    }

    #[test]
    fn malformed_patches_are_explained() {
        assert!(err("*** Add File: x\n+a\n*** End Patch").contains("first line"));
        assert!(err("*** Begin Patch\n*** Add File: x\n+a").contains("last line"));
        assert!(err("*** Begin Patch\n*** End Patch").contains("no file operations"));
        assert!(
            err("*** Begin Patch\n*** Add File: x\noops\n*** End Patch").starts_with("Line 3:")
        );
        assert!(err("*** Begin Patch\n*** Update File: x\n*** End Patch").contains("no changes"));
        assert!(
            err("*** Begin Patch\n*** Update File: x\n@@\n!bad\n*** End Patch")
                .starts_with("Line 4:")
        );
        assert!(err("*** Begin Patch\nrandom\n*** End Patch").contains("expected a file header"));
        assert!(err("*** Begin Patch\n*** Delete File:\n*** End Patch").contains("no path"));
    }
}
