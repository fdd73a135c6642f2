//! Typed errors end to end (issue #15): no public function, trait method, type alias or
//! trait impl of a library crate under `host/` has `String` as its error type. A
//! caller must be able to decide on an error by its variant, never by its text; only the
//! `ward` binary (`host/cli`), whose edge reports with `anyhow`, is exempt, and so is
//! test code.

mod scan;

use std::path::{Path, PathBuf};

use scan::{findings, has_string_error};

/// The repository root (this crate lives in `tests/`).
fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// The library sources: every `.rs` file under `host/<crate>/src`, but not the binary
/// crate, nor test modules kept in their own files.
fn library_sources() -> Vec<PathBuf> {
    let host = root().join("host");
    let mut crates: Vec<PathBuf> = std::fs::read_dir(&host)
        .expect("host/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("Cargo.toml").is_file())
        .filter(|p| p.file_name().is_some_and(|n| n != "cli"))
        .collect();
    crates.sort();
    let mut files = Vec::new();
    for krate in crates {
        walk(&krate.join("src"), &mut files);
    }
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            if name != "tests" {
                walk(&path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_public_library_api_returns_a_string_error() {
    let files = library_sources();
    assert!(
        files.len() > 100,
        "the scan found the library sources: {}",
        files.len()
    );
    let mut found = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).expect("readable source");
        for f in findings(&source) {
            let shown = file
                .strip_prefix(root())
                .unwrap_or(file)
                .display()
                .to_string();
            found.push(format!("{shown}:{}: {}", f.line, f.signature));
        }
    }
    assert!(
        found.is_empty(),
        "public API with a `String` error (give it a thiserror type):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scanner_finds_what_a_line_grep_would_miss() {
    let source = r#"
pub fn one() -> Result<(), String> { todo!() }
pub async fn two(
    a: u32,
) -> Result<
    Vec<u8>,
    String,
> {
    todo!()
}
pub trait Store {
    fn save(&self) -> Result<(), String>;
    fn load(&self) -> Vec<String>;
}
pub type Shell<'a> = dyn Fn(String) -> BoxFuture<'a, Result<String, String>> + 'a;
impl std::str::FromStr for Grant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> { todo!() }
}
pub const unsafe fn three() -> std::result::Result<u8, std::string::String> { todo!() }
"#;
    let found: Vec<usize> = findings(source).iter().map(|f| f.line).collect();
    assert_eq!(found, vec![2, 3, 11, 15, 17, 20], "{:?}", findings(source));
}

#[test]
fn the_scanner_ignores_what_is_not_public_api() {
    let source = r##"
pub(crate) fn internal() -> Result<(), String> { todo!() }
fn private() -> Result<(), String> { todo!() }
pub fn io() -> std::io::Result<String> { todo!() }
pub fn typed() -> Result<String, Error> { todo!() }
pub fn fs() -> FsResult<String> { todo!() }
pub fn callback(f: impl Fn() -> u8) -> Result<Box<dyn Fn(u8) -> String>, Error> { todo!() }
/// `pub fn doc() -> Result<(), String>` in a comment.
// pub fn commented() -> Result<(), String>
/* pub fn block() -> Result<(), String> */
pub fn text() -> &'static str { "pub fn quoted() -> Result<(), String>" }
pub fn raw() -> &'static str { r#"pub fn raw() -> Result<(), String>"# }
pub fn chars() -> [char; 3] { ['"', '\'', '{'] }
#[cfg(test)]
mod tests {
    pub fn helper() -> Result<(), String> { Ok(()) }
}
#[cfg(all(test, unix))]
pub fn unix_helper() -> Result<(), String> { Ok(()) }
pub fn after_tests() -> Result<u8, String> { todo!() }
"##;
    let found = findings(source);
    assert_eq!(
        found.iter().map(|f| f.line).collect::<Vec<_>>(),
        vec![20],
        "{found:?}"
    );
    assert!(has_string_error("Result<BTreeMap<String, String>, String>"));
    assert!(!has_string_error(
        "Result<BTreeMap<String, String>, ConfigError>"
    ));
    assert!(!has_string_error("Result<Option<String>, D::Error>"));
}
