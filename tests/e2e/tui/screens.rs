//! The terminal UI's screenshots in the book: how a pty screen is written for it
//! (`Tui::screenshot`, with `WARD_UPDATE_SCREENSHOT` set by `scripts/tui-screenshots.sh`),
//! and the check that the book's terminal UI chapter (`docs/frontends/tui.md`) embeds
//! every one as generated.

/// A screen as the book shows it: trailing blanks cut, runs of empty rows
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

/// The chapter of the book that shows the screens, from the repository root.
const CHAPTER: &str = "docs/frontends/tui.md";

/// Every `docs/tui-*.txt` screen is in the book's terminal UI chapter as generated, in a
/// `text` block after its `<!-- screen: docs/tui-NAME.txt -->` marker.
#[test]
fn the_readme_embeds_the_generated_screens() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let chapter = std::fs::read_to_string(format!("{root}/{CHAPTER}")).unwrap();
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
            chapter.contains(&block),
            "{CHAPTER} does not embed docs/{name} as generated: run scripts/tui-screenshots.sh"
        );
        screens += 1;
    }
    assert!(screens >= 4, "{screens} screens");
}
