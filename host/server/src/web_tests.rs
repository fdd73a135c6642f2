//! The page shows untrusted text exactly as the terminal does: its script (run in
//! node by `web/app.test.js`, with a stand-in for the DOM) renders every case of a
//! corpus — each character of the ranges that hold the controls, bidi and format
//! characters, plus flags, emoji and line endings — as `ward_term::inert` and
//! `inert_line` do, and what it renders from a model, a tool, a session title and
//! a permission question goes through that rendering.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// One case per character of ranges whose categories are long settled (so node's
/// Unicode tables and ward-term's agree), and the sequences that need context.
fn corpus() -> Vec<String> {
    let ranges = [
        // ASCII, C1 controls, Latin, and the Arabic and Syriac format characters
        // (U+0600–U+0605, U+061C ALM, U+06DD, U+070F).
        0x0000..=0x07ff,
        // Hangul and Khmer fillers, the Mongolian vowel separator.
        0x115f..=0x1160,
        0x17b4..=0x17b5,
        0x180e..=0x180e,
        // Spaces, zero-width characters, LRM/RLM, the line and paragraph
        // separators, the bidi embeddings, overrides and isolates, invisible
        // operators.
        0x2000..=0x206f,
        0x3164..=0x3164,
        // Variation selectors, the BOM, the Hangul half-width filler, the
        // interlinear annotation characters, specials.
        0xfe00..=0xffff,
        // Tag characters.
        0xe0000..=0xe007f,
    ];
    let mut cases: Vec<String> = ranges
        .into_iter()
        .flatten()
        .filter_map(char::from_u32)
        .map(|c| format!("a{c}b"))
        .collect();
    let flag = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}";
    cases.extend(
        [
            "fail\rpass\r\nok\n",
            "a\nb\r\n\r",
            "tab\there",
            flag,
            // Eight tags: hidden text, not a flag.
            "\u{1F3F4}\u{E0061}\u{E0062}\u{E0063}\u{E0064}\u{E0065}\u{E0066}\u{E0067}\u{E0068}\u{E007F}",
            // No cancel tag.
            "\u{1F3F4}\u{E0067}\u{E0062}x",
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} می\u{200C}خواهم 日本語 ✅",
            "evil\u{202E}txt.sh \u{2066}isolated\u{2069} \u{061C}",
        ]
        .map(str::to_owned),
    );
    cases
}

#[test]
fn the_page_renders_untrusted_text_inert_as_the_terminal_does() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/app.test.js");
    let mut node = Command::new("node")
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node is needed to run the page's script (as for the e2e SDK tests)");
    let cases = corpus();
    let input = serde_json::json!({ "cases": cases }).to_string();
    node.stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write the cases");
    let out = node.wait_with_output().expect("node ran");
    assert!(
        out.status.success(),
        "the page's rendering checks failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON from node");
    let mut wrong = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let text = ward_term::inert(case);
        let line = ward_term::inert_line(case);
        if shown["text"][i] != *text || shown["line"][i] != *line {
            wrong.push(format!(
                "{case:?}: page {} / {}, terminal {text:?} / {line:?}",
                shown["text"][i], shown["line"][i]
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases differ:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}
