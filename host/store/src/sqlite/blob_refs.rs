//! Which stored blobs a session deletion leaves unreferenced.
//!
//! A part refers to a blob by a `ward-blob:sha256:<hex>` URL anywhere in its JSON (a
//! file part's `url`, a tool result's attachments), so references are found by that
//! text rather than by one JSON path: a part kind added later that carries files is
//! covered without a change here. The candidates are read from the doomed sessions'
//! parts, and after their rows are deleted, each is kept only if no remaining part
//! names it — in the same write transaction, so the answer cannot be stale against
//! another writer of this database.

use std::collections::BTreeSet;

use rusqlite::Connection;

use super::{SqliteStore, sessions};
use crate::blobs::BLOB_SCHEME;
use crate::bus::Event;
use crate::error::{Context, Result, StoreError};

impl SqliteStore {
    /// Deletes session `id` and its descendants (as [`crate::Store::delete_session`])
    /// and returns the blob URLs their parts named that no remaining part names —
    /// decided in the deleting transaction. The caller removes those files after the
    /// commit: a crash in between leaves unreferenced files (space, never a part
    /// whose bytes are gone).
    pub fn delete_session_freeing(&self, id: &str) -> Result<Vec<String>> {
        let (deleted, freed) = self.shared.write(|conn| {
            let doomed = sessions::with_descendants(conn, id)?;
            if doomed.is_empty() {
                return Err(StoreError::NotFound {
                    kind: "session",
                    id: id.to_string(),
                });
            }
            let ids: Vec<String> = doomed.iter().map(|s| s.id.clone()).collect();
            let named = named_by(conn, &ids)?;
            sessions::delete(conn, id)?;
            let freed = unreferenced(conn, named)?;
            Ok((doomed, freed))
        })?;
        // Children first, so no subscriber sees a child whose parent is already gone.
        for info in deleted.into_iter().rev() {
            self.publish(Event::SessionDeleted { info });
        }
        Ok(freed)
    }
}

/// Length of a blob URL's hash.
const HASH_LEN: usize = 64;

/// The blob URLs named in the parts of the sessions `ids`.
pub(crate) fn named_by(conn: &Connection, ids: &[String]) -> Result<BTreeSet<String>> {
    let mut urls = BTreeSet::new();
    let mut statement = conn
        .prepare_cached("SELECT data FROM part WHERE session_id = ?1 AND instr(data, ?2) > 0")
        .context(|| "find the blobs of a session".into())?;
    for id in ids {
        let rows = statement
            .query_map([id.as_str(), BLOB_SCHEME], |row| row.get::<_, String>(0))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .context(|| format!("find the blobs of session {id}"))?;
        for data in rows {
            urls.extend(urls_in(&data));
        }
    }
    Ok(urls)
}

/// Those of `urls` no part names any more.
pub(crate) fn unreferenced(conn: &Connection, urls: BTreeSet<String>) -> Result<Vec<String>> {
    let mut statement = conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM part WHERE instr(data, ?1) > 0)")
        .context(|| "look for a blob's other references".into())?;
    let mut gone = Vec::new();
    for url in urls {
        let used: bool = statement
            .query_row([url.as_str()], |row| row.get(0))
            .context(|| format!("look for references to {url}"))?;
        if !used {
            gone.push(url);
        }
    }
    Ok(gone)
}

/// Every well-formed blob URL in `text`.
fn urls_in(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(BLOB_SCHEME) {
        let after = &rest[at + BLOB_SCHEME.len()..];
        let hash: String = after
            .chars()
            .take_while(|c| matches!(c, '0'..='9' | 'a'..='f'))
            .collect();
        if hash.len() == HASH_LEN {
            found.push(format!("{BLOB_SCHEME}{hash}"));
        }
        rest = after;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_urls_are_found_wherever_they_are_and_only_when_well_formed() {
        let a = "a".repeat(64);
        let b = "0123456789abcdef".repeat(4);
        let text = format!(
            r#"{{"url":"{BLOB_SCHEME}{a}","state":{{"attachments":[{{"url":"{BLOB_SCHEME}{b}"}}]}},"x":"{BLOB_SCHEME}abc","y":"{BLOB_SCHEME}{}"}}"#,
            "A".repeat(64)
        );
        assert_eq!(
            urls_in(&text),
            [format!("{BLOB_SCHEME}{a}"), format!("{BLOB_SCHEME}{b}")]
        );
    }
}
