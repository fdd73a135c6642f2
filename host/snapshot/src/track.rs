//! Taking a snapshot: asking git which paths to look at (every file, or those under
//! what the watcher saw change), bringing the store's index up to date with them and
//! with their modes (the `modes` module), and writing the tree.

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;

use crate::error::SnapshotError;
use crate::git::{Held, nul_fields};
use crate::modes::{self, Known, MANIFEST, Manifest};
use crate::watch::Scope;
use crate::{Skipped, Snapshots, Tracked, under_symlink};

/// What `git ls-files` said a snapshot must look at.
#[derive(Default)]
struct Listing {
    /// Whether git was asked at all (a snapshot the watcher says nothing changed
    /// for asks nothing).
    asked: bool,
    /// Paths to look at again: new, changed or deleted (a full scan), or under a
    /// path the watcher saw change.
    candidates: BTreeSet<String>,
    /// Every regular file the index holds, when listed (a full scan): their modes
    /// are looked at too, since git reports no change of mode alone.
    cached: Vec<String>,
    /// The manifest's blob in the index, if it holds one.
    manifest: Option<String>,
}

impl Snapshots {
    /// Takes the snapshot [`Snapshots::track`] describes, holding the store's lock.
    pub(crate) fn track_in(
        &self,
        store: &Held<'_>,
        scope: &Scope,
    ) -> Result<Tracked, SnapshotError> {
        let full_scan = matches!(scope, Scope::Everything { .. });
        let mut listing = list(store, scope)?;
        let mut previous = self.modes.take();
        // The manifest is built afresh by a full scan, and by a snapshot that has
        // none to build on (the last one failed).
        let rebuild = full_scan || previous.is_none();
        if rebuild && !full_scan {
            let all = parse(&store.run(&["ls-files", "-z", "-t", "-s"], None)?, true)?;
            listing.cached = all.cached;
            listing.manifest = all.manifest;
            listing.asked = true;
        }
        let mut manifest = match (&mut previous, rebuild) {
            (Some(known), false) => std::mem::take(&mut known.manifest),
            _ => Manifest::new(),
        };
        let root = &self.git.work_tree;
        if rebuild {
            // The candidates are looked at below.
            modes::look(root, &listing.cached, &listing.candidates, &mut manifest);
        }
        let mut dirty = false;
        let mut update = Vec::new();
        let mut gone = Vec::new();
        let mut skipped = Vec::new();
        for path in listing.candidates {
            // A path under a symlink is not in the project (whatever the link points
            // at): it is gone from the snapshot, and nothing is read through the link.
            let meta = if under_symlink(root, &path) {
                None
            } else {
                std::fs::symlink_metadata(root.join(&path)).ok()
            };
            // Its mode as the snapshot records it: only a file the snapshot takes
            // has one.
            let mut mode = None;
            let list = match meta {
                None => &mut gone,
                // A nested repository or a directory git lists whole: not ours to take.
                Some(meta) if meta.is_dir() => {
                    dirty |= modes::set(&mut manifest, &path, None);
                    continue;
                }
                Some(meta) if meta.is_file() && meta.len() > self.max_file_size => {
                    tracing::warn!(
                        path,
                        size = meta.len(),
                        limit = self.max_file_size,
                        "snapshot: file left out, over the size limit (undo will not restore it)"
                    );
                    dirty |= modes::set(&mut manifest, &path, None);
                    skipped.push(Skipped {
                        path,
                        size: meta.len(),
                    });
                    continue;
                }
                Some(meta) => {
                    mode = meta
                        .is_file()
                        .then(|| modes::recorded(meta.mode()))
                        .flatten();
                    &mut update
                }
            };
            dirty |= modes::set(&mut manifest, &path, mode);
            list.extend_from_slice(path.as_bytes());
            list.push(0);
        }

        if rebuild {
            dirty = previous
                .as_ref()
                .is_none_or(|known| known.manifest != manifest);
        }
        let previous_oid = previous.and_then(|known| known.oid);
        // Not asked: nothing changed since the last snapshot, which left the index's
        // manifest as `previous_oid`.
        let in_index = if listing.asked {
            listing.manifest
        } else {
            previous_oid.clone()
        };
        let mut new_entry = None;
        let oid = if manifest.is_empty() || !modes::has_room(root) {
            if in_index.is_some() {
                gone.extend_from_slice(MANIFEST.as_bytes());
                gone.push(0);
            }
            None
        } else if !dirty && previous_oid.is_some() && previous_oid == in_index {
            previous_oid
        } else {
            let oid = write_blob(store, &modes::encode(&manifest))?;
            if in_index.as_deref() != Some(oid.as_str()) {
                new_entry = Some(oid.clone());
            }
            Some(oid)
        };

        if !gone.is_empty() {
            store.run(
                &["update-index", "--force-remove", "-z", "--stdin"],
                Some(&gone),
            )?;
        }
        let entry_changed = new_entry.is_some();
        if !update.is_empty() || entry_changed {
            let cacheinfo = new_entry.map(|oid| format!("100644,{oid},{MANIFEST}"));
            let mut args = vec!["update-index", "--add", "--remove", "--replace"];
            if let Some(cacheinfo) = &cacheinfo {
                args.extend(["--cacheinfo", cacheinfo.as_str()]);
            }
            args.extend(["-z", "--stdin"]);
            store.run(&args, Some(&update))?;
        }
        let known = Known { manifest, oid };
        // Nothing changed since the last tree was written from this very index: that
        // tree is the snapshot, and a `write-tree` process is saved.
        let unchanged = gone.is_empty() && update.is_empty() && !entry_changed;
        if unchanged && let Some(hash) = self.last_tree.read() {
            self.modes.put(known);
            return Ok(Tracked {
                hash,
                skipped,
                full_scan,
            });
        }
        let out = store.run(&["write-tree"], None)?;
        let hash = String::from_utf8_lossy(&out).trim().to_string();
        if hash.is_empty() {
            return Err(SnapshotError::Output {
                args: "write-tree".into(),
                detail: "no tree hash".into(),
            });
        }
        self.last_tree.write(&hash);
        self.modes.put(known);
        Ok(Tracked {
            hash,
            skipped,
            full_scan,
        })
    }
}

/// Writes `content` as a blob in the store; returns its id.
fn write_blob(store: &Held<'_>, content: &[u8]) -> Result<String, SnapshotError> {
    let args = ["hash-object", "-w", "--no-filters", "--stdin"];
    let out = store.run(&args, Some(content))?;
    let oid = String::from_utf8_lossy(&out).trim().to_string();
    if oid.len() < 40 || !oid.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(SnapshotError::Output {
            args: args.join(" "),
            detail: format!("`{oid}` is not an object id"),
        });
    }
    Ok(oid)
}

/// Asks git what a snapshot in `scope` must look at.
fn list(store: &Held<'_>, scope: &Scope) -> Result<Listing, SnapshotError> {
    match scope {
        Scope::Everything { .. } => {
            let args = [
                "ls-files",
                "-z",
                "-t",
                "-s",
                "--others",
                "--modified",
                "--deleted",
                "--exclude-standard",
            ];
            parse(&store.run(&args, None)?, true)
        }
        Scope::Paths(paths) if paths.is_empty() => Ok(Listing::default()),
        // What git has under the changed paths (a deleted file among them) and what
        // it would take there: everything to look at again; and the manifest's entry.
        // (A path now under a symlink is listed from the index, and found gone.)
        Scope::Paths(paths) => {
            let mut args = vec![
                "ls-files",
                "-z",
                "-t",
                "-s",
                "--cached",
                "--others",
                "--exclude-standard",
                "--",
            ];
            args.extend(paths.iter().map(String::as_str));
            args.push(MANIFEST);
            parse(&store.run(&args, None)?, false)
        }
    }
}

/// Reads `ls-files -t -s` output: `? <path>` for a file the index lacks, else
/// `<tag> <mode> <object> <stage> TAB <path>` (tag `H` for what the index holds,
/// listed once more as `C` if changed, `R` if deleted). With `full`, what the index
/// holds is listed as [`Listing::cached`]; else it is a candidate.
fn parse(out: &[u8], full: bool) -> Result<Listing, SnapshotError> {
    let mut listing = Listing {
        asked: true,
        ..Listing::default()
    };
    for record in nul_fields(out) {
        let unreadable = || SnapshotError::Output {
            args: "ls-files -t -s".into(),
            detail: format!("unreadable entry `{record}`"),
        };
        let (tag, rest) = record.split_at_checked(2).ok_or_else(unreadable)?;
        if tag == "? " {
            if rest != MANIFEST {
                listing.candidates.insert(rest.to_string());
            }
            continue;
        }
        let (meta, path) = rest.split_once('\t').ok_or_else(unreadable)?;
        let mut meta = meta.split(' ');
        let (Some(mode), Some(oid)) = (meta.next(), meta.next()) else {
            return Err(unreadable());
        };
        let mode = u32::from_str_radix(mode, 8).map_err(|_| unreadable())?;
        let held = matches!(tag, "H " | "S ");
        if path == MANIFEST {
            if held {
                listing.manifest = Some(oid.to_string());
            }
        } else if held && full {
            if mode & 0o170000 == 0o100000 {
                listing.cached.push(path.to_string());
            }
        } else {
            listing.candidates.insert(path.to_string());
        }
    }
    Ok(listing)
}
