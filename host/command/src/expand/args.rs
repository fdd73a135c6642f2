//! Arguments: splitting the argument string into words, finding the `$N`
//! placeholders of a template, and substituting them and `$ARGUMENTS`.

use super::ARGUMENTS;

/// Splits `input` into words like a shell: whitespace separates words;
/// `"…"` and `'…'` group (the quotes are removed, `""` is an empty word, and
/// quoted and unquoted parts next to each other form one word, so
/// `a"b c"` is `ab c`); an unclosed quote runs to the end. A backslash
/// escapes a following quote (`\"`), outside single quotes; any other
/// backslash is kept as it is, so Windows paths survive. No other shell
/// syntax (variables, globs, `;`) is interpreted.
pub fn split_arguments(input: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '"' | '\'' => {
                let current = word.get_or_insert_with(String::new);
                while let Some(inner) = chars.next() {
                    if inner == c {
                        break;
                    }
                    if inner == '\\' && c == '"' && chars.peek() == Some(&'"') {
                        current.push('"');
                        chars.next();
                    } else {
                        current.push(inner);
                    }
                }
            }
            '\\' if matches!(chars.peek(), Some('"' | '\'')) => {
                let current = word.get_or_insert_with(String::new);
                current.extend(chars.next());
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// The distinct `N` of the `$N` placeholders (N ≥ 1) in `template`, in
/// increasing order.
pub(crate) fn positions(template: &str) -> Vec<usize> {
    let mut found: Vec<usize> = template
        .match_indices('$')
        .filter_map(|(at, _)| number_at(&template[at + 1..]).map(|(n, _)| n))
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// The placeholder number at the start of `text` and its length in bytes,
/// when `text` starts with digits making a number ≥ 1.
fn number_at(text: &str) -> Option<(usize, usize)> {
    let len = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let n: usize = text[..len].parse().ok()?;
    (n >= 1).then_some((n, len))
}

/// `text` with `$ARGUMENTS` replaced by `arguments` and each `$N` by its
/// word(s) from `words`; `last` is the highest `$N` of the whole template,
/// which takes the rest of the words.
pub(crate) fn substitute(text: &str, words: &[String], arguments: &str, last: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        if let Some(tail) = after.strip_prefix(ARGUMENTS) {
            out.push_str(arguments);
            rest = tail;
        } else if let Some((n, len)) = number_at(&after[1..]) {
            let index = n - 1;
            if let Some(word) = words.get(index) {
                if n == last {
                    out.push_str(&words[index..].join(" "));
                } else {
                    out.push_str(word);
                }
            }
            rest = &after[1 + len..];
        } else {
            out.push('$');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(split_arguments(r#""a b" c"#), ["a b", "c"]);
        assert_eq!(
            split_arguments("  one   two\tthree\n"),
            ["one", "two", "three"]
        );
        assert_eq!(split_arguments(r#"'it "is"' x"#), [r#"it "is""#, "x"]);
        assert_eq!(split_arguments(r#"a"b c"d e"#), ["ab cd", "e"]);
        assert_eq!(split_arguments(r#""" x"#), ["", "x"]);
        assert_eq!(
            split_arguments(r#""say \"hi\"" \'q"#),
            [r#"say "hi""#, "'q"]
        );
        assert_eq!(split_arguments(r"C:\dir\f.txt"), [r"C:\dir\f.txt"]);
        assert_eq!(split_arguments(r#"x "unclosed y"#), ["x", "unclosed y"]);
        assert!(split_arguments("   ").is_empty());
    }

    #[test]
    fn finds_positions() {
        assert_eq!(positions("$2 $1 $2 $10 $0 $ $x $ARGUMENTS"), [1, 2, 10]);
        assert!(positions("no placeholders $").is_empty());
    }

    #[test]
    fn substitutes_in_one_pass() {
        let words: Vec<String> = vec!["$ARGUMENTS".into(), "$2".into()];
        assert_eq!(
            substitute("[$1] [$ARGUMENTS]", &words, "raw", 2),
            "[$ARGUMENTS] [raw]"
        );
        assert_eq!(substitute("$0 $ $1x", &words, "", 1), "$0 $ $ARGUMENTS $2x");
    }
}
