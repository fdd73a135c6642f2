//! Finding which key a byte span belongs to.
//!
//! toml's deserialization errors carry a byte span but no public key path, so
//! the document is re-parsed into toml's spanned `DeTable` and searched for the
//! narrowest key or value that encloses the span. That yields paths such as
//! `provider.local.kind` for messages and `[provider.local]` for tables.

use std::ops::Range;

use toml::de::{DeTable, DeValue};

/// One step of a key path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    /// A table key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// A key path from the document root, e.g. `provider.local.models.qwen`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KeyPath(pub(crate) Vec<Segment>);

impl KeyPath {
    /// Builds a path of plain keys.
    pub(crate) fn of(keys: &[&str]) -> Self {
        Self(keys.iter().map(|k| Segment::Key((*k).to_owned())).collect())
    }

    /// The path without its last segment.
    pub(crate) fn parent(&self) -> Self {
        let mut parent = self.0.clone();
        parent.pop();
        Self(parent)
    }

    /// The path as the table it names: `the top level` or `[a.b]`.
    pub(crate) fn table_name(&self) -> String {
        if self.0.is_empty() {
            "the top level".to_owned()
        } else {
            format!("[{self}]")
        }
    }
}

impl std::fmt::Display for KeyPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Index(n) => write!(f, "[{n}]")?,
                Segment::Key(key) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    if !key.is_empty()
                        && key
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                    {
                        f.write_str(key)?;
                    } else {
                        write!(f, "\"{}\"", crate::substitute::escape_basic(key))?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The entry found for a span.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    /// Path of the key or value.
    pub(crate) path: KeyPath,
    /// The span fell on the key itself (as for unknown keys), not its value.
    pub(crate) on_key: bool,
    /// TOML type of the value, e.g. `integer`.
    pub(crate) value_type: &'static str,
}

/// Finds the key or value in `text` whose span most tightly encloses `span`.
///
/// `None` when the text does not parse or nothing encloses the span (the error
/// is then about the document as a whole).
pub(crate) fn find(text: &str, span: &Range<usize>) -> Option<Hit> {
    let doc = DeTable::parse(text).ok()?;
    let mut best: Option<(usize, Hit)> = None;
    walk_table(doc.get_ref(), &mut Vec::new(), span, &mut best);
    best.map(|(_, hit)| hit)
}

/// Candidate width for ranking; the narrowest enclosing candidate wins, and
/// on a tie the deeper (later visited) one.
fn offer(
    best: &mut Option<(usize, Hit)>,
    candidate: &Range<usize>,
    span: &Range<usize>,
    hit: impl FnOnce() -> Hit,
) {
    if candidate.start > span.start || span.end > candidate.end {
        return;
    }
    let width = candidate.end - candidate.start;
    if best.as_ref().is_none_or(|(w, _)| width <= *w) {
        *best = Some((width, hit()));
    }
}

fn walk_table(
    table: &DeTable<'_>,
    path: &mut Vec<Segment>,
    span: &Range<usize>,
    best: &mut Option<(usize, Hit)>,
) {
    for (key, value) in table.iter() {
        path.push(Segment::Key(key.get_ref().to_string()));
        let value_type = value.get_ref().type_str();
        offer(best, &value.span(), span, || Hit {
            path: KeyPath(path.clone()),
            on_key: false,
            value_type,
        });
        // After the value so an exact key hit wins a width tie.
        offer(best, &key.span(), span, || Hit {
            path: KeyPath(path.clone()),
            on_key: true,
            value_type,
        });
        walk_value(value.get_ref(), path, span, best);
        path.pop();
    }
}

fn walk_value(
    value: &DeValue<'_>,
    path: &mut Vec<Segment>,
    span: &Range<usize>,
    best: &mut Option<(usize, Hit)>,
) {
    match value {
        DeValue::Table(table) => walk_table(table, path, span, best),
        DeValue::Array(array) => {
            for (i, item) in array.iter().enumerate() {
                path.push(Segment::Index(i));
                let value_type = item.get_ref().type_str();
                offer(best, &item.span(), span, || Hit {
                    path: KeyPath(path.clone()),
                    on_key: false,
                    value_type,
                });
                walk_value(item.get_ref(), path, span, best);
                path.pop();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, needle: &str) -> Hit {
        let start = text.find(needle).unwrap_or(0);
        find(text, &(start..start + needle.len())).unwrap_or_else(|| panic!("no hit for {needle}"))
    }

    #[test]
    fn finds_keys_values_and_headers() {
        let text = "a = 1\n[provider.local]\nkindd = 'x'\n[x.\"odd key\"]\ny = [1, { q = 2 }]\n";
        let hit = at(text, "kindd");
        assert!(hit.on_key);
        assert_eq!(hit.path.to_string(), "provider.local.kindd");
        assert_eq!(hit.path.parent().table_name(), "[provider.local]");

        let hit = at(text, "'x'");
        assert!(!hit.on_key);
        assert_eq!(hit.value_type, "string");

        let hit = at(text, "[provider.local]");
        assert_eq!(hit.path.to_string(), "provider.local");

        let hit = at(text, "q = 2");
        assert_eq!(hit.path.to_string(), "x.\"odd key\".y[1]");
        let hit = at(text, "2");
        assert_eq!(hit.path.to_string(), "x.\"odd key\".y[1].q");
        assert_eq!(KeyPath::default().table_name(), "the top level");
    }
}
