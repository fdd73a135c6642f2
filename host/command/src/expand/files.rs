//! `@path` file references in an expanded template (see
//! [`expand`](crate::expand()) for the rules).

use std::ops::Range;

/// Characters that end a reference.
const DELIMITERS: &[char] = &[
    '`', ',', ';', '"', '\'', '(', ')', '[', ']', '{', '}', '<', '>',
];
/// Characters dropped from the end of a reference (sentence punctuation).
const TRAILING: &[char] = &['.', ':', '!', '?'];

/// The file references in `text`, in order, without duplicates, skipping
/// names in `agents` and `@`s inside the byte ranges `skip`.
pub(crate) fn references(text: &str, agents: &[&str], skip: &[Range<usize>]) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for (at, _) in text.match_indices('@') {
        let starts_word = text[..at]
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace);
        if !starts_word || skip.iter().any(|range| range.contains(&at)) {
            continue;
        }
        let rest = &text[at + 1..];
        let end = rest
            .find(|c: char| c.is_whitespace() || DELIMITERS.contains(&c))
            .unwrap_or(rest.len());
        let token = rest[..end].trim_end_matches(TRAILING);
        let path_like = !token.contains('@') && token.chars().any(char::is_alphanumeric);
        if path_like && !agents.contains(&token) && !files.iter().any(|f| f == token) {
            files.push(token.to_string());
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_paths_not_emails_or_agents() {
        let text = "@README.md first.\nSee @src/main.rs, and (@ignored) mail me@x.com \
                    or @general: ask @explore; `@code` @a/b.rs: @src/main.rs again @ @@x @...";
        assert_eq!(
            references(text, &["general", "explore"], &[]),
            ["README.md", "src/main.rs", "a/b.rs"]
        );
    }

    #[test]
    fn skips_ranges() {
        let text = "@a.rs @b.rs @c.rs";
        assert_eq!(references(text, &[], &[6..11, 100..101]), ["a.rs", "c.rs"]);
    }
}
