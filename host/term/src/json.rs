//! JSON for a terminal or a pipe: exact data, and nothing a terminal acts on.
//!
//! serde_json escapes the C0 controls, but writes DEL, the C1 controls (U+009B is CSI
//! on some terminals), bidi controls and invisible format characters raw. This
//! formatter writes those as `\uXXXX` escapes too, which every JSON reader decodes to
//! the same string: the data is unchanged, only its spelling is.

use std::io;

use serde::Serialize;
use serde_json::ser::Formatter;

use crate::inert::{Hazards, Shape};

/// `value` as one line of JSON in which every character [`crate::inert`] would escape
/// is a `\uXXXX` escape.
///
/// ```
/// let line = ward_term::json_line(&"a\u{9b}2J\u{202e}").unwrap();
/// assert_eq!(line, r#""a\u009b2J\u202e""#);
/// ```
pub fn json_line<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    let mut buf = Vec::new();
    value.serialize(&mut serde_json::Serializer::with_formatter(
        &mut buf, InertJson,
    ))?;
    // serde_json writes UTF-8, and the escapes added here are ASCII.
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// serde_json's compact format, with the terminal hazards in strings escaped.
struct InertJson;

impl Formatter for InertJson {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut done = 0;
        // serde_json has already escaped `\n`, `\r` and the other C0 controls, so the
        // one-line shape finds only what it leaves raw.
        for (at, c) in Hazards::new(fragment, Shape::Line) {
            writer.write_all(&fragment.as_bytes()[done..at])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
            done = at + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[done..])
    }
}

#[cfg(test)]
mod tests {
    use super::json_line;
    use serde_json::{Value, json};

    #[test]
    fn hazards_are_escaped_and_the_data_is_exact() {
        let value = json!({
            "title": "\x1b]52;c;eA==\x07ok\r",
            "output": "\u{9b}2J\x7f \u{202e}gpj.exe \u{200b}\u{FEFF} \u{E0041} 日本 ✅",
            "n": 1,
        });
        let line = json_line(&value).unwrap();
        assert!(line.is_ascii() || !line.chars().any(|c| c.is_control()));
        for bad in [
            '\x1b',
            '\x07',
            '\r',
            '\x7f',
            '\u{9b}',
            '\u{202e}',
            '\u{200b}',
            '\u{feff}',
            '\u{E0041}',
        ] {
            assert!(!line.contains(bad), "{bad:?} raw in {line}");
        }
        assert!(line.contains("\\u007f") && line.contains("\\u009b") && line.contains("\\u202e"));
        // A tag character is outside the BMP: a surrogate pair.
        assert!(line.contains("\\udb40\\udc41"), "{line}");
        assert!(line.contains("日本 ✅"), "{line}");
        let back: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back, value);
        assert!(!line.contains('\n'));
    }

    #[test]
    fn clean_data_is_what_serde_json_writes() {
        let value = json!({"a": [1, "two", null], "b": "日本 ✅\n"});
        assert_eq!(
            json_line(&value).unwrap(),
            serde_json::to_string(&value).unwrap()
        );
    }
}
