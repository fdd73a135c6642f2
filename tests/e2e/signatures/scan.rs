//! A small Rust source scanner for the signature check: blanks comments and literals,
//! drops `#[cfg(test)]` items, then finds the public signatures — `pub fn` (not
//! `pub(crate)`), every method of a `pub trait`, `pub type` aliases, and the `Err` /
//! `Error` associated types of trait impls — whose text holds a `Result<_, String>`.
//!
//! It is not a parser; it is exact about what can fool a line grep: signatures spread
//! over several lines, `->` inside generic arguments, `Result<…>` in comments, strings
//! and doc examples, single-argument aliases such as `io::Result<String>`, and test code.

/// One public signature whose error type is a `String`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// 1-based line where the signature starts.
    pub line: usize,
    /// The signature, whitespace collapsed.
    pub signature: String,
}

/// The findings in one file's `source`.
pub fn findings(source: &str) -> Vec<Finding> {
    let code = without_tests(&blank_comments_and_literals(source));
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // `pub(crate)`, `pub(super)`, `pub(in …)`: not public API.
        let public = keyword_at(&code, i, "pub")
            .map(|after| skip_space(&code, after))
            .filter(|rest| bytes.get(*rest) != Some(&b'('))
            .and_then(|rest| public_item(&code, rest));
        if let Some((end, signature)) = public {
            if let Some(sig) = signature.filter(|s| has_string_error(s)) {
                out.push(Finding {
                    line: line_of(&code, i),
                    signature: collapse(&sig),
                });
            }
            i = end.max(i + 1);
            continue;
        }
        // Associated error types of trait impls (`impl FromStr for X { type Err = String; }`).
        for name in ["Err", "Error"] {
            if let Some(after) = keyword_at(&code, i, "type") {
                let rest = skip_space(&code, after);
                if let Some(after_name) = keyword_at(&code, rest, name) {
                    let end = code[after_name..]
                        .find(';')
                        .map_or(code.len(), |e| after_name + e);
                    let value = code[after_name..end].trim_start().trim_start_matches('=');
                    if is_string(value) {
                        out.push(Finding {
                            line: line_of(&code, i),
                            signature: collapse(&code[i..end]),
                        });
                    }
                }
            }
        }
        i += 1;
    }
    out.dedup();
    out
}

/// What follows `pub ` at `at`: the item's end, and the text to check (a function's
/// signature, a type alias, or every method signature of a trait joined), if any.
fn public_item(code: &str, at: usize) -> Option<(usize, Option<String>)> {
    let mut at = at;
    // Qualifiers before `fn`.
    loop {
        let next = ["async", "const", "unsafe", "extern"]
            .iter()
            .find_map(|q| keyword_at(code, at, q));
        match next {
            Some(after) => {
                at = skip_space(code, after);
                // `extern "C"`: the ABI string was blanked to `""`.
                if code[at..].starts_with("\"") {
                    at = code[at + 1..].find('"').map_or(code.len(), |e| at + e + 2);
                    at = skip_space(code, at);
                }
            }
            None => break,
        }
    }
    if let Some(after) = keyword_at(code, at, "fn") {
        let end = signature_end(code, after);
        return Some((end, Some(code[at..end].to_string())));
    }
    if let Some(after) = keyword_at(code, at, "type") {
        let end = code[after..].find(';').map_or(code.len(), |e| after + e);
        return Some((end, Some(code[at..end].to_string())));
    }
    if let Some(after) = keyword_at(code, at, "trait") {
        let open = code[after..].find('{').map(|e| after + e)?;
        let close = matching_brace(code, open);
        let body = &code[open + 1..close.saturating_sub(1).max(open + 1)];
        let mut sigs = Vec::new();
        let mut j = 0;
        while j < body.len() {
            if let Some(after_fn) = keyword_at(body, j, "fn") {
                let end = signature_end(body, after_fn);
                sigs.push(body[j..end].to_string());
                j = end.max(j + 1);
            } else {
                j += 1;
            }
        }
        let flagged: Vec<String> = sigs.into_iter().filter(|s| has_string_error(s)).collect();
        return Some((close, (!flagged.is_empty()).then(|| flagged.join(" / "))));
    }
    None
}

/// Where the signature starting after `fn` ends: the body's `{` or the `;` of a
/// declaration, outside any parentheses or generic brackets.
fn signature_end(code: &str, from: usize) -> usize {
    let bytes = code.as_bytes();
    let mut depth = 0i32;
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'<' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' => depth -= 1,
            b'{' | b';' if depth <= 0 => return i,
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// Whether `text` holds a `Result<…>` of two arguments whose second is `String`.
pub fn has_string_error(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find("Result<") {
        let at = from + found;
        from = at + 1;
        let ident_before =
            at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if ident_before {
            continue;
        }
        let args = generic_args(text, at + "Result<".len());
        if args.len() == 2 && is_string(&args[1]) {
            return true;
        }
    }
    false
}

/// The top-level generic arguments starting at `from` (just past the `<`).
fn generic_args(text: &str, from: usize) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    let mut args = Vec::new();
    let mut start = from;
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' | b')' | b']' if depth == 0 => {
                // A trailing comma leaves no argument after it.
                if !text[start..i].trim().is_empty() {
                    args.push(text[start..i].to_string());
                }
                return args;
            }
            b'>' | b')' | b']' => depth -= 1,
            b',' if depth == 0 => {
                args.push(text[start..i].to_string());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    args
}

fn is_string(ty: &str) -> bool {
    let compact: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let compact = compact.trim_end_matches(',');
    matches!(
        compact,
        "String" | "std::string::String" | "alloc::string::String" | "::std::string::String"
    )
}

/// `code` with `#[cfg(test)]` (and `#[cfg(all(test, …))]`) items removed.
fn without_tests(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        if rest.starts_with("#[cfg(test)]") || rest.starts_with("#[cfg(all(test") {
            let item_end = item_end(code, i);
            // Keep the line count, so reported lines stay right.
            out.extend(code[i..item_end].chars().filter(|c| *c == '\n'));
            i = item_end;
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// The end of the item whose attribute starts at `at`: after its braces, or its `;`.
fn item_end(code: &str, at: usize) -> usize {
    let attr_end = code[at..].find(']').map_or(code.len(), |e| at + e + 1);
    let brace = code[attr_end..].find('{').map(|e| attr_end + e);
    let semi = code[attr_end..].find(';').map(|e| attr_end + e);
    match (brace, semi) {
        (Some(b), Some(s)) if s < b => s + 1,
        (Some(b), _) => matching_brace(code, b),
        (None, Some(s)) => s + 1,
        (None, None) => code.len(),
    }
}

/// Just past the `}` matching the `{` at `open`.
fn matching_brace(code: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (i, b) in code.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// `source` with comments replaced by spaces and string and char literals emptied
/// (`"…"` → `""`), newlines kept.
pub fn blank_comments_and_literals(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let keep_newlines = |out: &mut String, from: &[char]| {
        out.extend(from.iter().map(|c| if *c == '\n' { '\n' } else { ' ' }));
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = chars[i..]
                .iter()
                .position(|c| *c == '\n')
                .map_or(chars.len(), |e| i + e);
            keep_newlines(&mut out, &chars[i..end]);
            i = end;
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            let mut j = i;
            while j < chars.len() {
                if chars[j] == '/' && chars.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if chars[j] == '*' && chars.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            keep_newlines(&mut out, &chars[i..j.min(chars.len())]);
            i = j;
        } else if let Some(end) = raw_string_end(&chars, i) {
            out.push_str("\"\"");
            keep_newlines(&mut out, &chars[i..end]);
            i = end;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            keep_newlines(&mut out, &chars[i..(j + 1).min(chars.len())]);
            i = j + 1;
        } else if c == '\'' {
            // A char literal (`'x'`, `'\n'`, `'\u{1F600}'`), else a lifetime.
            let end = if next == Some('\\') {
                // Past the escaped character, so `'\''` ends at its last quote.
                chars
                    .get(i + 3..)
                    .and_then(|rest| rest.iter().position(|c| *c == '\''))
                    .map(|e| i + 3 + e + 1)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.push_str("' '");
                    i = end;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The end of a raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `i`.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    if ident_before {
        return None;
    }
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|c| **c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"'
            && chars[j + 1..]
                .iter()
                .take(hashes)
                .filter(|c| **c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// The end of keyword `word` at `at`, when it stands there as a whole word.
fn keyword_at(code: &str, at: usize, word: &str) -> Option<usize> {
    let bytes = code.as_bytes();
    if !code.is_char_boundary(at) || !code[at..].starts_with(word) {
        return None;
    }
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    if at > 0 && ident(bytes[at - 1]) {
        return None;
    }
    let end = at + word.len();
    if bytes.get(end).is_some_and(|b| ident(*b)) {
        return None;
    }
    Some(end)
}

fn skip_space(code: &str, at: usize) -> usize {
    at + code[at..].len() - code[at..].trim_start().len()
}

fn line_of(code: &str, at: usize) -> usize {
    code[..at].bytes().filter(|b| *b == b'\n').count() + 1
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
