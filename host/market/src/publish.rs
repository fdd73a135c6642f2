//! Publishing to a local index: `ward plugin index INDEX ARCHIVE…` adds packed
//! archives to a JSON index file (creating it), with their digest, requested
//! capabilities and, given a key, signature.

use std::path::{Path, PathBuf};

use crate::MarketError;
use crate::archive::manifest_of;
use crate::digest::sha256_hex;
use crate::index::{Index, IndexVersion};
use crate::sign::Key;
use crate::words::requested;

/// Adds `archive` to the index file `index_path` (created if missing) and writes it
/// back; the entry added. The archive's URL is `base_url/FILE-NAME` when given,
/// else its path relative to the index's directory when it is under it, else its
/// absolute path.
pub fn add_to_index(
    index_path: &Path,
    archive: &Path,
    base_url: Option<&str>,
    key: Option<&Key>,
) -> Result<IndexVersion, MarketError> {
    let mut index = match std::fs::read_to_string(index_path) {
        Ok(text) => Index::parse(&text).map_err(|e| MarketError::Index {
            source_name: "local".to_owned(),
            location: index_path.display().to_string(),
            message: e.to_string(),
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Index::default(),
        Err(e) => return Err(MarketError::io(index_path)(e)),
    };
    let bytes = std::fs::read(archive).map_err(MarketError::io(archive))?;
    let label = archive.display().to_string();
    let manifest = manifest_of(&bytes, &label)?;
    let sha256 = sha256_hex(&bytes);
    let url = archive_url(index_path, archive, base_url)?;
    let entry = IndexVersion {
        version: manifest.version.clone(),
        capabilities: requested(&manifest.capabilities)
            .into_iter()
            .map(|r| r.grant)
            .collect(),
        url,
        sha256: sha256.clone(),
        signature: key.and_then(|k| k.sign(&sha256)),
    };
    index.upsert(
        &manifest.name,
        &manifest.description,
        &manifest.kinds,
        entry.clone(),
    );
    let tmp = index_path.with_extension("json.tmp");
    std::fs::write(&tmp, index.to_json()).map_err(MarketError::io(&tmp))?;
    std::fs::rename(&tmp, index_path).map_err(MarketError::io(index_path))?;
    Ok(entry)
}

fn archive_url(
    index: &Path,
    archive: &Path,
    base_url: Option<&str>,
) -> Result<String, MarketError> {
    let file_name = archive
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| MarketError::Pack {
            path: archive.to_path_buf(),
            message: "the archive's file name must be UTF-8".to_owned(),
        })?;
    if let Some(base) = base_url {
        return Ok(format!("{}/{file_name}", base.trim_end_matches('/')));
    }
    let absolute = |p: &Path| -> PathBuf {
        std::fs::canonicalize(p)
            .unwrap_or_else(|_| std::path::absolute(p).unwrap_or(p.to_path_buf()))
    };
    let archive = absolute(archive);
    let index_dir = absolute(
        index
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new(".")),
    );
    Ok(match archive.strip_prefix(&index_dir) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => archive.display().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_archives_join_an_index_signed() {
        let base = std::env::temp_dir().join(format!("ward-publish-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let src = base.join("src");
        let market = base.join("market");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::create_dir_all(&market).unwrap();
        std::fs::write(
            src.join("plugin.toml"),
            "[plugin]\nname = \"hello\"\nversion = \"1.0.0\"\napi = \"0.1.0\"\ndescription = \"Greets\"\nkinds = [\"tool\"]\ncomponent = \"hello.wasm\"\n[capabilities]\nnet = [\"https://api.example.com\"]\n",
        )
        .unwrap();
        std::fs::write(src.join("hello.wasm"), b"\0asm").unwrap();
        let packed = crate::pack(&src, &market).unwrap();
        let key = Key::from_seed([3; 32]);
        let index_path = market.join("index.json");
        let entry = add_to_index(&index_path, &packed.path, None, Some(&key)).unwrap();
        assert_eq!(entry.url, "hello-1.0.0.wardpkg", "relative to the index");
        assert_eq!(entry.sha256, packed.sha256);
        assert_eq!(
            entry.capabilities[0].to_string(),
            "net:https://api.example.com"
        );
        let signature = entry.signature.clone().unwrap();
        assert!(crate::sign::verify(&[key.public_hex()], &entry.sha256, &signature).is_ok());
        let index = Index::parse(&std::fs::read_to_string(&index_path).unwrap()).unwrap();
        assert_eq!(index.plugin("hello").unwrap().description, "Greets");
        let with_base = add_to_index(
            &index_path,
            &packed.path,
            Some("https://cdn.example.com/p/"),
            None,
        )
        .unwrap();
        assert_eq!(
            with_base.url,
            "https://cdn.example.com/p/hello-1.0.0.wardpkg"
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}
