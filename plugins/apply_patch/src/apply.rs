//! Applying the chunks of an update to a file's text: each chunk's old lines are found
//! (after its `@@` context line, searching forward) exactly, then ignoring trailing
//! whitespace, then ignoring surrounding whitespace, then with typographic punctuation
//! folded to ASCII — and replaced by its new lines.

use crate::parse::Chunk;

/// A chunk whose place in the file could not be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyError {
    /// The chunk's `@@` context line is not in the file (after the previous chunk).
    ContextNotFound {
        /// The context line.
        context: String,
        /// The file, as the error shows it.
        label: String,
    },
    /// The chunk's old lines are not in the file, even compared loosely.
    LinesNotFound {
        /// The lines looked for.
        lines: Vec<String>,
        /// The file, as the error shows it.
        label: String,
    },
}

impl std::fmt::Display for ApplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApplyError::ContextNotFound { context, label } => {
                write!(f, "Failed to find context '{context}' in {label}")
            }
            ApplyError::LinesNotFound { lines, label } => write!(
                f,
                "Failed to find expected lines in {label}:\n{}",
                lines.join("\n")
            ),
        }
    }
}

impl std::error::Error for ApplyError {}

/// The new text of a file after `chunks`, or an error naming `label` and the lines that
/// could not be found. Line endings (`\n` or `\r\n`) are kept; the result ends with a
/// newline.
pub fn apply_chunks(original: &str, chunks: &[Chunk], label: &str) -> Result<String, ApplyError> {
    let crlf = original.contains("\r\n");
    let text = original.replace("\r\n", "\n");
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let mut replacements: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut cursor = 0;
    for chunk in chunks {
        if let Some(context) = &chunk.context {
            let found =
                seek(&lines, std::slice::from_ref(context), cursor, false).ok_or_else(|| {
                    ApplyError::ContextNotFound {
                        context: context.clone(),
                        label: label.to_string(),
                    }
                })?;
            cursor = found + 1;
        }
        if chunk.old.is_empty() {
            // Pure addition: right after the context line when there is one, else at the end.
            let at = if chunk.context.is_some() && !chunk.eof {
                cursor
            } else {
                lines.len()
            };
            replacements.push((at, 0, chunk.new.clone()));
            continue;
        }
        let mut old: &[String] = &chunk.old;
        let mut new: &[String] = &chunk.new;
        let mut found = seek(&lines, old, cursor, chunk.eof);
        if found.is_none() && old.last().is_some_and(|l| l.is_empty()) {
            // A trailing empty line is often an artefact of how the patch was written.
            old = &old[..old.len() - 1];
            if new.last().is_some_and(|l| l.is_empty()) {
                new = &new[..new.len() - 1];
            }
            found = seek(&lines, old, cursor, chunk.eof);
        }
        let at = found.ok_or_else(|| ApplyError::LinesNotFound {
            lines: chunk.old.clone(),
            label: label.to_string(),
        })?;
        replacements.push((at, old.len(), new.to_vec()));
        cursor = at + old.len();
    }
    replacements.sort_by_key(|r| r.0);
    for (at, len, new) in replacements.into_iter().rev() {
        lines.splice(at..at + len, new);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    Ok(if crlf { out.replace('\n', "\r\n") } else { out })
}

/// Where `pattern` occurs in `lines` at or after `from`, trying ever looser comparisons;
/// with `eof`, a match ending at the last line is preferred.
fn seek(lines: &[String], pattern: &[String], from: usize, eof: bool) -> Option<usize> {
    if pattern.is_empty() || pattern.len() > lines.len() {
        return None;
    }
    let comparisons: [fn(&str, &str) -> bool; 4] = [
        |a, b| a == b,
        |a, b| a.trim_end() == b.trim_end(),
        |a, b| a.trim() == b.trim(),
        |a, b| fold_punctuation(a.trim()) == fold_punctuation(b.trim()),
    ];
    let last_start = lines.len() - pattern.len();
    let matches_at = |at: usize, same: fn(&str, &str) -> bool| {
        pattern
            .iter()
            .zip(&lines[at..])
            .all(|(p, l)| same(l.as_str(), p.as_str()))
    };
    for same in comparisons {
        if eof && last_start >= from && matches_at(last_start, same) {
            return Some(last_start);
        }
        if let Some(at) = (from..=last_start).find(|&at| matches_at(at, same)) {
            return Some(at);
        }
    }
    None
}

/// Typographic quotes, dashes, ellipses and non-breaking spaces as ASCII.
fn fold_punctuation(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => out.push('\''),
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => out.push('"'),
            '\u{2010}'..='\u{2015}' => out.push('-'),
            '\u{2026}' => out.push_str("..."),
            '\u{00A0}' => out.push(' '),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(context: Option<&str>, old: &[&str], new: &[&str], eof: bool) -> Chunk {
        Chunk {
            context: context.map(str::to_string),
            old: old.iter().map(|s| s.to_string()).collect(),
            new: new.iter().map(|s| s.to_string()).collect(),
            eof,
        }
    }

    #[test]
    fn replaces_after_the_context_line() {
        let text = "fn a() {\n    x();\n}\nfn b() {\n    x();\n}\n";
        let c = chunk(Some("fn b() {"), &["    x();"], &["    y();"], false);
        assert_eq!(
            apply_chunks(text, &[c], "f").ok().as_deref(),
            Some("fn a() {\n    x();\n}\nfn b() {\n    y();\n}\n")
        );
    }

    #[test]
    fn several_chunks_apply_in_order() {
        let text = "a\nb\nc\nd\ne\n";
        let chunks = [
            chunk(None, &["a", "b"], &["a", "B"], false),
            chunk(None, &["d"], &["D", "D2"], false),
        ];
        assert_eq!(
            apply_chunks(text, &chunks, "f").ok().as_deref(),
            Some("a\nB\nc\nD\nD2\ne\n")
        );
    }

    #[test]
    fn whitespace_and_punctuation_differences_are_tolerated() {
        let text = "  let s = \u{201C}hi\u{201D};   \nnext\n";
        let c = chunk(None, &["let s = \"hi\";"], &["let s = \"bye\";"], false);
        assert_eq!(
            apply_chunks(text, &[c], "f").ok().as_deref(),
            Some("let s = \"bye\";\nnext\n")
        );
    }

    #[test]
    fn end_of_file_prefers_the_last_occurrence() {
        let text = "x\ny\nx\n";
        let c = chunk(None, &["x"], &["z"], true);
        assert_eq!(
            apply_chunks(text, &[c], "f").ok().as_deref(),
            Some("x\ny\nz\n")
        );
    }

    #[test]
    fn pure_additions_go_after_context_or_at_the_end() {
        let text = "one\ntwo\n";
        let after = chunk(Some("one"), &[], &["1.5"], false);
        assert_eq!(
            apply_chunks(text, &[after], "f").ok().as_deref(),
            Some("one\n1.5\ntwo\n")
        );
        let end = chunk(None, &[], &["three"], false);
        assert_eq!(
            apply_chunks(text, &[end], "f").ok().as_deref(),
            Some("one\ntwo\nthree\n")
        );
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let c = chunk(None, &["b"], &["B"], false);
        assert_eq!(
            apply_chunks("a\r\nb\r\n", &[c], "f").ok().as_deref(),
            Some("a\r\nB\r\n")
        );
    }

    #[test]
    fn missing_lines_are_reported() {
        let c = chunk(None, &["nope"], &["x"], false);
        let err = apply_chunks("a\n", &[c], "src/f.rs");
        assert_eq!(
            err,
            Err(ApplyError::LinesNotFound {
                lines: vec!["nope".into()],
                label: "src/f.rs".into()
            })
        );
        assert_eq!(
            err.map_err(|e| e.to_string()),
            Err("Failed to find expected lines in src/f.rs:\nnope".to_string())
        );
        let c = chunk(Some("missing ctx"), &["a"], &["b"], false);
        assert_eq!(
            apply_chunks("a\n", &[c], "f"),
            Err(ApplyError::ContextNotFound {
                context: "missing ctx".into(),
                label: "f".into()
            })
        );
    }

    #[test]
    fn trailing_empty_pattern_line_is_retried_without_it() {
        let c = chunk(None, &["a", ""], &["b", ""], false);
        assert_eq!(apply_chunks("a", &[c], "f").ok().as_deref(), Some("b\n"));
    }
}
