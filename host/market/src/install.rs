//! Installing a package: find it in the configured sources ([`Market::resolve`]),
//! download and verify it into a staging directory ([`Market::stage`]), then —
//! after the caller has asked which capabilities to grant — move it into
//! `.ward/plugins/NAME/` and record it in `ward.lock` ([`Staged::commit`]).
//!
//! Verification, in order, before anything is placed where Ward loads plugins:
//! the archive's SHA-256 against the index; the signature when the source
//! requires one (or when one is given and keys are configured); a safe unpack;
//! the manifest's name and version against the index; every file against the
//! manifest's `[files]`; and the manifest's capabilities against the index's.
//! A staged package that is never committed is deleted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use ward_config::{Grant, Manifest, MarketplaceConfig, parse_manifest};

use crate::archive::{unpack, verify_files};
use crate::digest::sha256_hex;
use crate::index::{IndexPlugin, IndexVersion};
use crate::lock::{Lock, LockEntry};
use crate::source::{Location, Source, client, fetch};
use crate::words::{Requested, covers, requested};
use crate::{MarketError, PLUGINS_DIR};

/// Where packages are unpacked before they are moved into place, relative to the
/// project (on the same file system as `.ward/plugins`, so the move is a rename).
pub const STAGING_DIR: &str = ".ward/.staging";

/// The configured sources and keys, for one project.
pub struct Market {
    sources: Vec<Source>,
    keys: Vec<String>,
    client: reqwest::Client,
    project: PathBuf,
}

/// A plugin found by [`Market::search`].
#[derive(Debug, Clone)]
pub struct Found {
    /// The source's name.
    pub source: String,
    /// Its index entry.
    pub plugin: IndexPlugin,
}

/// A version chosen for install, not yet downloaded.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The source it is in.
    pub source: Source,
    /// The plugin's index entry.
    pub plugin: IndexPlugin,
    /// The version chosen.
    pub version: IndexVersion,
    /// Where its archive is.
    pub archive: Location,
}

impl Candidate {
    /// `NAME VERSION`.
    pub fn label(&self) -> String {
        format!("{} {}", self.plugin.name, self.version.version)
    }
}

impl Market {
    /// The market `config` describes for `project`.
    pub fn new(config: &MarketplaceConfig, project: &Path) -> Result<Market, MarketError> {
        let sources = config
            .sources
            .iter()
            .map(Source::from_config)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Market {
            sources,
            keys: config.keys.clone(),
            client: client(),
            project: project.to_path_buf(),
        })
    }

    /// The project root.
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// Plugins whose name or description contains `text` (case-insensitive; all
    /// without `text`), from every source, with the sources that failed.
    pub async fn search(&self, text: Option<&str>) -> (Vec<Found>, Vec<MarketError>) {
        let needle = text.map(str::to_lowercase);
        let mut found = Vec::new();
        let mut failed = Vec::new();
        for source in &self.sources {
            match source.fetch_index(&self.client).await {
                Ok(index) => found.extend(
                    index
                        .plugins
                        .into_iter()
                        .filter(|p| {
                            needle.as_deref().is_none_or(|n| {
                                p.name.to_lowercase().contains(n)
                                    || p.description.to_lowercase().contains(n)
                            })
                        })
                        .map(|plugin| Found {
                            source: source.name.clone(),
                            plugin,
                        }),
                ),
                Err(e) => failed.push(e),
            }
        }
        (found, failed)
    }

    /// The first source (in configured order, or only `only_source`) that has
    /// `name`, and its version `version` (default: the newest release).
    pub async fn resolve(
        &self,
        name: &str,
        version: Option<&str>,
        only_source: Option<&str>,
    ) -> Result<Candidate, MarketError> {
        let sources: Vec<&Source> = match only_source {
            Some(wanted) => {
                let s = self.sources.iter().find(|s| s.name == wanted);
                vec![s.ok_or_else(|| MarketError::Source {
                    name: wanted.to_owned(),
                    message: "not configured in ward.toml ([[marketplace.sources]])".to_owned(),
                })?]
            }
            None => self.sources.iter().collect(),
        };
        if sources.is_empty() {
            return Err(MarketError::NoSources);
        }
        let mut failures = Vec::new();
        for source in &sources {
            let index = match source.fetch_index(&self.client).await {
                Ok(index) => index,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            let Some(plugin) = index.plugin(name) else {
                continue;
            };
            let Some(chosen) = plugin.pick(version) else {
                return Err(MarketError::UnknownVersion {
                    name: name.to_owned(),
                    version: version.unwrap_or("(any release)").to_owned(),
                    source_name: source.name.clone(),
                    available: plugin.version_list(),
                });
            };
            return Ok(Candidate {
                archive: source.resolve(&chosen.url)?,
                source: (*source).clone(),
                version: chosen.clone(),
                plugin: plugin.clone(),
            });
        }
        if failures.len() == sources.len() && failures.len() == 1 {
            return Err(failures.remove(0));
        }
        let names: Vec<String> = sources.iter().map(|s| format!("`{}`", s.name)).collect();
        let mut searched = format!("source(s) {}", names.join(", "));
        for f in &failures {
            searched.push_str(&format!("; {f}"));
        }
        Err(MarketError::NotFound {
            name: name.to_owned(),
            searched,
        })
    }

    /// Downloads and verifies `candidate` into a staging directory.
    pub async fn stage(&self, candidate: &Candidate) -> Result<Staged, MarketError> {
        let label = candidate.label();
        let bytes = fetch(&self.client, &candidate.archive).await?;
        let sha256 = sha256_hex(&bytes);
        if !sha256.eq_ignore_ascii_case(&candidate.version.sha256) {
            return Err(MarketError::ArchiveDigest {
                location: candidate.archive.to_string(),
                expected: candidate.version.sha256.to_ascii_lowercase(),
                actual: sha256,
            });
        }
        let signed_by = self.check_signature(candidate, &sha256)?;

        let dir = staging_dir(&self.project, &candidate.plugin.name)?;
        let mut staged = Staged {
            dir: dir.clone(),
            project: self.project.clone(),
            manifest: None,
            sha256,
            files: BTreeMap::new(),
            requested: Vec::new(),
            source: candidate.source.name.clone(),
            url: candidate.archive.to_string(),
            signed_by,
        };
        staged.files = unpack(&bytes, &dir, &label)?;
        let manifest_path = dir.join("plugin.toml");
        let text =
            std::fs::read_to_string(&manifest_path).map_err(MarketError::io(&manifest_path))?;
        let shown = PathBuf::from(format!("{}/plugin.toml", candidate.archive));
        let manifest = parse_manifest(&shown, &text)?;
        let refuse = |message: String| MarketError::Package {
            package: label.clone(),
            message,
        };
        if manifest.name != candidate.plugin.name || manifest.version != candidate.version.version {
            return Err(refuse(format!(
                "its plugin.toml says {} {}, not what the index lists",
                manifest.name, manifest.version
            )));
        }
        verify_files(&manifest, &staged.files, &label)?;
        let asks = requested(&manifest.capabilities);
        if let Some(extra) = asks.iter().find(|r| {
            !candidate
                .version
                .capabilities
                .iter()
                .any(|c| covers(c, &r.grant))
        }) {
            return Err(refuse(format!(
                "it asks for `{}`, which its index entry does not list",
                extra.grant
            )));
        }
        staged.requested = asks;
        staged.manifest = Some(manifest);
        Ok(staged)
    }

    /// Checks the candidate's signature when its source requires one, or when one is
    /// given and keys are configured; the verifying key, if any.
    fn check_signature(
        &self,
        candidate: &Candidate,
        sha256: &str,
    ) -> Result<Option<String>, MarketError> {
        let fail = |message: String| MarketError::Signature {
            name: candidate.plugin.name.clone(),
            version: candidate.version.version.clone(),
            message,
        };
        match &candidate.version.signature {
            None if candidate.source.require_signature => Err(fail(format!(
                "source `{}` requires a signature and the index has none",
                candidate.source.name
            ))),
            None => Ok(None),
            Some(_) if self.keys.is_empty() && !candidate.source.require_signature => Ok(None),
            Some(signature) => crate::sign::verify(&self.keys, sha256, signature)
                .map(Some)
                .map_err(|why| fail(format!("bad signature: {why}"))),
        }
    }
}

/// A downloaded, verified package waiting in a staging directory.
pub struct Staged {
    dir: PathBuf,
    project: PathBuf,
    manifest: Option<Manifest>,
    /// The archive's SHA-256.
    pub sha256: String,
    /// Every file's SHA-256, `plugin.toml` included.
    pub files: BTreeMap<String, String>,
    /// What the manifest asks for, item by item.
    pub requested: Vec<Requested>,
    /// The source's name.
    pub source: String,
    /// Where the archive came from.
    pub url: String,
    /// The trusted key whose signature verified, if one was checked.
    pub signed_by: Option<String>,
}

impl Staged {
    /// The verified manifest.
    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_ref()
    }

    /// The staging directory holding the unpacked package (its `plugin.toml` and
    /// component), for checks made before [`Staged::commit`].
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Moves the package to `.ward/plugins/NAME/` (replacing the version recorded in
    /// `lock`, if any) and records it with `grant` in `lock`, which is saved.
    pub fn commit(self, lock: &mut Lock, grant: Vec<Grant>) -> Result<LockEntry, MarketError> {
        let Some(manifest) = &self.manifest else {
            return Err(MarketError::Package {
                package: self.url.clone(),
                message: "it was not verified".to_owned(),
            });
        };
        let name = manifest.name.clone();
        let dest = self.project.join(PLUGINS_DIR).join(&name);
        let replacing = dest.exists();
        if replacing && lock.get(&name).is_none() {
            return Err(not_ours(&dest, &name));
        }
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(MarketError::io(parent))?;
        }
        if replacing {
            let old = staging_dir(&self.project, &format!("{name}-old"))?;
            std::fs::remove_dir(&old).map_err(MarketError::io(&old))?;
            std::fs::rename(&dest, &old).map_err(MarketError::io(&dest))?;
            if let Err(e) = std::fs::rename(&self.dir, &dest) {
                let _ = std::fs::rename(&old, &dest);
                return Err(MarketError::io(&dest)(e));
            }
            let _ = std::fs::remove_dir_all(&old);
        } else {
            std::fs::rename(&self.dir, &dest).map_err(MarketError::io(&dest))?;
        }
        let entry = LockEntry {
            name,
            version: manifest.version.clone(),
            source: self.source.clone(),
            url: self.url.clone(),
            sha256: self.sha256.clone(),
            requested: self.requested.iter().map(|r| r.grant.clone()).collect(),
            grant,
            files: self.files.clone(),
        };
        lock.insert(entry.clone());
        lock.save(&self.project)?;
        Ok(entry)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        // After a commit the directory was renamed away and this does nothing.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Refuses to overwrite a plugin directory that `ward.lock` does not account for.
pub fn check_free(project: &Path, lock: &Lock, name: &str) -> Result<(), MarketError> {
    let dest = project.join(PLUGINS_DIR).join(name);
    if dest.exists() && lock.get(name).is_none() {
        return Err(not_ours(&dest, name));
    }
    Ok(())
}

fn not_ours(dest: &Path, name: &str) -> MarketError {
    MarketError::Package {
        package: name.to_owned(),
        message: format!(
            "{} exists and was not installed from a marketplace (not in ward.lock); move it away first",
            dest.display()
        ),
    }
}

/// A new, empty directory under the project's staging directory.
fn staging_dir(project: &Path, name: &str) -> Result<PathBuf, MarketError> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let base = project.join(STAGING_DIR);
    std::fs::create_dir_all(&base).map_err(MarketError::io(&base))?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = base.join(format!(
        "{name}-{}-{nanos}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir(&dir).map_err(MarketError::io(&dir))?;
    Ok(dir)
}

/// Deletes an installed plugin's files and its `ward.lock` entry (its grants go
/// with it); the removed entry.
pub fn remove(project: &Path, lock: &mut Lock, name: &str) -> Result<LockEntry, MarketError> {
    let entry = lock.remove(name).ok_or_else(|| MarketError::NotInstalled {
        name: name.to_owned(),
    })?;
    let dir = project.join(PLUGINS_DIR).join(name);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(MarketError::io(&dir)(e)),
    }
    lock.save(project)?;
    Ok(entry)
}
