//! Packing and unpacking: what goes in, what the manifest records, and every kind
//! of hostile or altered archive refused with the offending file named.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::*;
use crate::archive::{unpack, verify_files};

struct Tmp(PathBuf);

impl Tmp {
    fn new(name: &str) -> Tmp {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ward-pack-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Tmp(dir)
    }
    fn write(&self, rel: &str, bytes: &[u8]) {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const MANIFEST: &str = "# the author's comment stays\n[plugin]\nname = \"hello\"\nversion = \"1.2.0\"\napi = \"0.1.0\"\nkinds = [\"tool\", \"skill\"]\ncomponent = \"hello.wasm\"\n\n[capabilities]\nenv = [\"GITHUB_TOKEN\"]\n";

fn plugin_dir() -> Tmp {
    let t = Tmp::new("src");
    t.write("plugin.toml", MANIFEST.as_bytes());
    t.write("hello.wasm", b"\0asm fake component");
    t.write(
        "skills/greet/SKILL.md",
        b"---\nname: greet\n---\nSay hello.\n",
    );
    t.write("target/release/junk.o", b"build output");
    t.write("node_modules/x/index.js", b"dependency");
    t.write(".git/HEAD", b"ref: refs/heads/main");
    t.write("old-0.1.0.wardpkg", b"an earlier package");
    t
}

fn unpacked(archive: &Path) -> (Tmp, BTreeMap<String, String>) {
    let dest = Tmp::new("dest");
    let bytes = std::fs::read(archive).unwrap();
    let digests = unpack(&bytes, &dest.0, "hello 1.2.0").unwrap();
    (dest, digests)
}

#[test]
fn pack_records_every_file_and_skips_build_dirs() {
    let src = plugin_dir();
    let out = Tmp::new("out");
    let packed = pack(&src.0, &out.0).unwrap();
    assert_eq!(packed.path, out.0.join("hello-1.2.0.wardpkg"));
    assert_eq!(
        packed.sha256,
        crate::digest::sha256_file(&packed.path).unwrap()
    );
    let files: Vec<&str> = packed.manifest.files.keys().map(String::as_str).collect();
    assert_eq!(files, ["hello.wasm", "skills/greet/SKILL.md"]);
    assert_eq!(
        packed.manifest.sha256.as_deref(),
        Some(packed.manifest.files["hello.wasm"].as_str()),
        "the component's digest is recorded for the runtime"
    );

    let (dest, digests) = unpacked(&packed.path);
    let names: Vec<&str> = digests.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["hello.wasm", "plugin.toml", "skills/greet/SKILL.md"]
    );
    verify_files(&packed.manifest, &digests, "hello 1.2.0").unwrap();
    let text = std::fs::read_to_string(dest.0.join("plugin.toml")).unwrap();
    assert!(text.starts_with("# the author's comment stays\n"), "{text}");
    assert!(text.contains("[files]"), "{text}");

    // The same files pack to the same archive.
    let again = pack(&src.0, &out.0.join("again.wardpkg")).unwrap();
    assert_eq!(again.sha256, packed.sha256);
}

#[test]
fn pack_refuses_what_install_would() {
    let src = plugin_dir();
    std::os::unix::fs::symlink("/etc/passwd", src.0.join("link")).unwrap();
    let e = pack(&src.0, &src.0).unwrap_err().to_string();
    assert!(e.contains("link: symbolic links cannot be packed"), "{e}");

    let src = plugin_dir();
    std::fs::remove_file(src.0.join("hello.wasm")).unwrap();
    let e = pack(&src.0, &src.0).unwrap_err().to_string();
    assert!(e.contains("the component is missing"), "{e}");

    let src = plugin_dir();
    let stale = MANIFEST.replace(
        "component = \"hello.wasm\"",
        &format!(
            "component = \"hello.wasm\"\nsha256 = \"{}\"",
            "0".repeat(64)
        ),
    );
    src.write("plugin.toml", stale.as_bytes());
    let e = pack(&src.0, &src.0).unwrap_err().to_string();
    assert!(e.contains("rebuild with `ward plugin build`"), "{e}");
}

/// A tar.gz of raw entries: (name, type, data), names written into the header
/// as they are (so hostile names get through).
fn raw_archive(entries: &[(&str, tar::EntryType, &[u8])]) -> Vec<u8> {
    let mut tar = tar::Builder::new(Vec::new());
    for (name, kind, data) in entries {
        let mut header = tar::Header::new_gnu();
        let raw = &mut header.as_gnu_mut().unwrap().name;
        raw[..name.len()].copy_from_slice(name.as_bytes());
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(*kind);
        if *kind == tar::EntryType::Symlink {
            header.set_link_name("/etc/passwd").unwrap();
        }
        header.set_cksum();
        tar.append(&header, *data).unwrap();
    }
    let bytes = tar.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(&bytes).unwrap();
    gz.finish().unwrap()
}

#[test]
fn hostile_entries_are_refused_by_name() {
    let file = tar::EntryType::Regular;
    for (entries, expect) in [
        (
            vec![("../evil", file, &b"x"[..])],
            "entry `../evil` is refused: its path is absolute, uses `.`, `..`",
        ),
        (
            vec![("/etc/evil", file, &b"x"[..])],
            "entry `/etc/evil` is refused",
        ),
        (
            vec![("a/../../evil", file, &b"x"[..])],
            "entry `a/../../evil` is refused",
        ),
        (
            vec![("link", tar::EntryType::Symlink, &b""[..])],
            "entry `link` is refused: symbolic links are not allowed",
        ),
        (
            vec![("hard", tar::EntryType::Link, &b""[..])],
            "entry `hard` is refused: hard links are not allowed",
        ),
        (
            vec![("dev", tar::EntryType::Char, &b""[..])],
            "entry `dev` is refused: only regular files and directories",
        ),
        (
            vec![("a", file, &b"1"[..]), ("a", file, &b"2"[..])],
            "entry `a` is refused: it appears twice",
        ),
    ] {
        let dest = Tmp::new("hostile");
        let e = unpack(&raw_archive(&entries), &dest.0, "evil 1.0.0")
            .unwrap_err()
            .to_string();
        assert!(e.contains(expect), "{expect}: {e}");
        assert!(e.starts_with("package evil 1.0.0: "), "{e}");
        assert!(!dest.0.parent().unwrap().join("evil").exists());
    }
    let e = unpack(b"not gzip", &Tmp::new("junk").0, "junk")
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a readable tar.gz archive"), "{e}");
}

#[test]
fn altered_unlisted_and_missing_files_are_named() {
    let src = plugin_dir();
    let out = Tmp::new("out");
    let packed = pack(&src.0, &out.0).unwrap();
    let m = &packed.manifest;
    let manifest_text = b"[plugin]\n";

    let check = |entries: Vec<(&str, tar::EntryType, &[u8])>| {
        let dest = Tmp::new("alter");
        let digests = unpack(&raw_archive(&entries), &dest.0, "hello 1.2.0").unwrap();
        verify_files(m, &digests, "hello 1.2.0")
            .unwrap_err()
            .to_string()
    };
    let file = tar::EntryType::Regular;
    let skill = std::fs::read(src.0.join("skills/greet/SKILL.md")).unwrap();
    let e = check(vec![
        ("plugin.toml", file, manifest_text),
        ("hello.wasm", file, b"\0asm EVIL component"),
        ("skills/greet/SKILL.md", file, &skill),
    ]);
    assert!(
        e.starts_with("package file `hello.wasm` has sha256 "),
        "the altered file is named: {e}"
    );
    let e = check(vec![
        ("plugin.toml", file, manifest_text),
        ("hello.wasm", file, b"\0asm fake component"),
        ("skills/greet/SKILL.md", file, &skill),
        ("extra.sh", file, b"rm -rf /"),
    ]);
    assert!(
        e.contains("file `extra.sh` is not listed in plugin.toml's [files]"),
        "{e}"
    );
    let e = check(vec![
        ("plugin.toml", file, manifest_text),
        ("hello.wasm", file, b"\0asm fake component"),
    ]);
    assert!(
        e.contains(
            "`skills/greet/SKILL.md` is listed in plugin.toml's [files] but not in the archive"
        ),
        "{e}"
    );
    let e = check(vec![("hello.wasm", file, b"\0asm fake component")]);
    assert!(e.contains("it has no plugin.toml"), "{e}");
}
