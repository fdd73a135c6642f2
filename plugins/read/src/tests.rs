//! Unit tests of `read` on temporary directories.

use super::*;
use ward_tool_common::testing::TempDir;

fn args(path: &str, offset: Option<usize>, limit: Option<usize>) -> Args {
    Args {
        file_path: path.to_string(),
        offset,
        limit,
    }
}

fn failed(result: Result<Output, ToolError>) -> String {
    match result {
        Err(ToolError::Failed(m)) | Err(ToolError::InvalidArguments(m)) => m,
        Err(ToolError::Denied(m)) => panic!("unexpected denial: {m}"),
        Ok(out) => panic!("expected an error, got {}", out.output),
    }
}

#[test]
fn reads_a_file_with_line_numbers() -> std::io::Result<()> {
    let t = TempDir::new("read")?;
    t.write("a.txt", "one\ntwo\r\nthree\n")?;
    let out = read(&t.dir(), &args("a.txt", None, None)).map_err(std::io::Error::other)?;
    assert_eq!(
        out.output,
        "<file>\n1: one\n2: two\n3: three\n\n(End of file - total 3 lines)\n</file>"
    );
    assert_eq!(out.title, "a.txt");
    assert_eq!(out.metadata["lines"], 3);
    assert_eq!(out.metadata["truncated"], false);
    Ok(())
}

#[test]
fn offset_and_limit_select_a_window() -> std::io::Result<()> {
    let t = TempDir::new("read-window")?;
    let text: String = (1..=10).map(|i| format!("line{i}\n")).collect();
    let path = t.write("a.txt", text)?;
    let abs = path.to_string_lossy().into_owned();
    let out = read(&t.dir(), &args(&abs, Some(4), Some(2))).map_err(std::io::Error::other)?;
    assert_eq!(
        out.output,
        "<file>\n4: line4\n5: line5\n\n(File has more lines. Use 'offset' parameter to read beyond line 5)\n</file>"
    );
    assert_eq!(out.metadata["truncated"], true);
    let tail = read(&t.dir(), &args(&abs, Some(9), None)).map_err(std::io::Error::other)?;
    assert!(
        tail.output
            .ends_with("10: line10\n\n(End of file - total 10 lines)\n</file>")
    );
    let msg = failed(read(&t.dir(), &args(&abs, Some(11), None)));
    assert_eq!(msg, "Offset 11 is out of range for this file (10 lines)");
    assert!(failed(read(&t.dir(), &args(&abs, Some(0), None))).contains("offset"));
    Ok(())
}

#[test]
fn long_lines_are_cut() -> std::io::Result<()> {
    let t = TempDir::new("read-long")?;
    t.write("a.txt", format!("{}\nshort", "x".repeat(2500)))?;
    let out = read(&t.dir(), &args("a.txt", None, None)).map_err(std::io::Error::other)?;
    let first = out.output.lines().nth(1).unwrap_or_default();
    assert_eq!(first, format!("1: {}...", "x".repeat(2000)));
    assert!(out.output.contains("2: short"));
    Ok(())
}

#[test]
fn output_is_capped_at_50_kb() -> std::io::Result<()> {
    let t = TempDir::new("read-cap")?;
    let text: String = (0..1000)
        .map(|_| format!("{}\n", "y".repeat(100)))
        .collect();
    t.write("big.txt", text)?;
    let out = read(&t.dir(), &args("big.txt", None, None)).map_err(std::io::Error::other)?;
    assert!(out.output.len() <= MAX_BYTES + 200);
    assert!(
        out.output
            .contains("(Output capped at 50 KB. Use 'offset' parameter")
    );
    assert_eq!(out.metadata["truncated"], true);
    let shown = out.metadata["lines"].as_u64().unwrap_or(0);
    assert!(shown > 400 && shown < 1000);
    Ok(())
}

#[test]
fn empty_file_reads_as_zero_lines() -> std::io::Result<()> {
    let t = TempDir::new("read-empty")?;
    t.write("e.txt", "")?;
    let out = read(&t.dir(), &args("e.txt", None, None)).map_err(std::io::Error::other)?;
    assert!(out.output.contains("(End of file - total 0 lines)"));
    Ok(())
}

#[test]
fn binary_files_are_refused() -> std::io::Result<()> {
    let t = TempDir::new("read-bin")?;
    t.write("blob", b"abc\0def")?;
    t.write("lib.so", "text really")?;
    assert!(
        failed(read(&t.dir(), &args("blob", None, None))).starts_with("Cannot read binary file: ")
    );
    assert!(
        failed(read(&t.dir(), &args("lib.so", None, None)))
            .starts_with("Cannot read binary file: ")
    );
    Ok(())
}

#[test]
fn images_are_attached() -> std::io::Result<()> {
    let t = TempDir::new("read-img")?;
    t.write("p.png", b"\x89PNG\r\n")?;
    let out = read(&t.dir(), &args("p.png", None, None)).map_err(std::io::Error::other)?;
    assert_eq!(out.output, "Image read successfully");
    assert_eq!(out.attachments.len(), 1);
    assert!(
        out.attachments[0]
            .url
            .starts_with("data:image/png;base64,iVBORw0K")
    );
    Ok(())
}

#[test]
fn a_file_named_like_an_image_is_judged_by_its_bytes() -> std::io::Result<()> {
    let t = TempDir::new("read-fake-img")?;
    t.write("fake.png", "just some text")?;
    t.write("real.jpg", b"\x89PNG\r\n\x1a\n")?;
    let err = failed(read(&t.dir(), &args("fake.png", None, None)));
    assert!(
        err.ends_with(
            "fake.png is named like image/png but its content is not (text); nothing was attached"
        ),
        "{err}"
    );
    // A PNG named .jpg is attached as what it is.
    let out = read(&t.dir(), &args("real.jpg", None, None)).map_err(std::io::Error::other)?;
    assert!(out.attachments[0].url.starts_with("data:image/png;base64,"));
    Ok(())
}

#[test]
fn directories_are_listed_sorted() -> std::io::Result<()> {
    let t = TempDir::new("read-dir")?;
    t.write("b.txt", "")?;
    t.write("a/x", "")?;
    t.write("C.md", "")?;
    let out = read(&t.dir(), &args(".", None, None)).map_err(std::io::Error::other)?;
    assert!(
        out.output
            .contains("\nC.md\na/\nb.txt\n\n(3 entries)\n</directory>")
    );
    let page = read(&t.dir(), &args(".", Some(2), Some(1))).map_err(std::io::Error::other)?;
    assert!(page.output.contains("\na/\n\n(Showing 1 of 3 entries."));
    Ok(())
}

#[test]
fn missing_files_suggest_near_names() -> std::io::Result<()> {
    let t = TempDir::new("read-miss")?;
    t.write("config.toml", "")?;
    t.write("Config.json", "")?;
    t.write("other.txt", "")?;
    let msg = failed(read(&t.dir(), &args("config", None, None)));
    assert!(msg.starts_with(&format!("File not found: {}/config", t.dir())));
    assert!(msg.contains("Did you mean one of these?"));
    assert!(msg.contains("config.toml") && msg.contains("Config.json"));
    assert!(!msg.contains("other.txt"));
    let typo = failed(read(&t.dir(), &args("cnofig.toml", None, None)));
    assert!(typo.contains("config.toml"), "{typo}");
    let plain = failed(read(&t.dir(), &args("zzz", None, None)));
    assert_eq!(plain, format!("File not found: {}/zzz", t.dir()));
    Ok(())
}

#[test]
fn a_window_counts_lines_split_across_reads() -> std::io::Result<()> {
    let text = "ab\ncdefg\n\nh\r\nlast";
    let window = read_window(std::io::BufReader::with_capacity(3, text.as_bytes()), 2, 2)?;
    assert_eq!(window.text, "<file>\n2: cdefg\n3: \n");
    assert!(window.more && !window.capped);
    Ok(())
}
