//! The README's screenshots: how a pty screen is written for it (`Tui::screenshot`,
//! with `WARD_UPDATE_SCREENSHOT` set by `scripts/tui-screenshots.sh`), and the check
//! that the README embeds every one as generated.

/// A screen as the README shows it: trailing blanks cut, runs of empty rows
/// shortened to one.
pub(super) fn shortened(screen: &str) -> String {
    let mut out = String::new();
    let mut empty = false;
    for row in screen.lines().map(str::trim_end) {
        if row.is_empty() && empty {
            continue;
        }
        empty = row.is_empty();
        out.push_str(row);
        out.push('\n');
    }
    out
}

/// Every `docs/tui-*.txt` screen is in the README as generated, in a `text` block.
#[test]
fn the_readme_embeds_the_generated_screens() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let mut screens = 0;
    for entry in std::fs::read_dir(format!("{root}/docs")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("tui-") && name.ends_with(".txt")) {
            continue;
        }
        let screen = std::fs::read_to_string(&path).unwrap();
        let block = format!("<!-- screen: docs/{name} -->\n```text\n{screen}```\n");
        assert!(
            readme.contains(&block),
            "README.md does not embed docs/{name} as generated: run scripts/tui-screenshots.sh"
        );
        screens += 1;
    }
    assert!(screens >= 4, "{screens} screens");
}
