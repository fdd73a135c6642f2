//! Grant bookkeeping in `ward.lock`: which grants fit what a plugin requests,
//! `ward plugin grant` / `revoke`, and what an update newly asks for.

use ward_config::Grant;

use crate::MarketError;
use crate::lock::{Lock, LockEntry};
use crate::words::{Requested, covers};

/// Whether `grant` fits something in `requested`: it allows one of the items, or
/// narrows one (e.g. `fs-read:$WORKSPACE/docs` for `fs-read:$WORKSPACE`).
pub fn fits(grant: &Grant, requested: &[Grant]) -> bool {
    requested
        .iter()
        .any(|r| covers(grant, r) || covers(r, grant))
}

/// Refuses the first of `grants` that fits nothing `name` requests.
pub fn check_fit(name: &str, grants: &[Grant], requested: &[Grant]) -> Result<(), MarketError> {
    match grants.iter().find(|g| !fits(g, requested)) {
        None => Ok(()),
        Some(g) => {
            let asks: Vec<String> = requested.iter().map(ToString::to_string).collect();
            Err(MarketError::Grant {
                message: format!(
                    "{name} does not ask for `{g}` (it asks for: {})",
                    if asks.is_empty() {
                        "nothing".to_owned()
                    } else {
                        asks.join(", ")
                    }
                ),
            })
        }
    }
}

/// Adds `grants` to `name`'s entry (each must fit what it requests) and saves.
pub fn grant(
    project: &std::path::Path,
    lock: &mut Lock,
    name: &str,
    grants: &[Grant],
) -> Result<LockEntry, MarketError> {
    let entry = lock.entry_mut(name)?;
    // What the installed manifest asks for now may have grown since it was granted
    // ([`pinned`]); a person granting one of those items here approves it.
    let since: Vec<Grant> = installed_requests(project, name)
        .into_iter()
        .filter(|item| !entry.requested.contains(item))
        .collect();
    let asks: Vec<Grant> = entry.requested.iter().chain(&since).cloned().collect();
    check_fit(name, grants, &asks)?;
    for item in since {
        if grants.iter().any(|g| covers(g, &item)) {
            entry.requested.push(item);
        }
    }
    for g in grants {
        if !entry.grant.contains(g) {
            entry.grant.push(g.clone());
        }
    }
    let entry = entry.clone();
    lock.save(project)?;
    Ok(entry)
}

/// What the manifest installed for `name` in `project` asks for; nothing when it
/// cannot be read.
fn installed_requests(project: &std::path::Path, name: &str) -> Vec<Grant> {
    let path = project
        .join(crate::PLUGINS_DIR)
        .join(name)
        .join("plugin.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    match ward_config::parse_manifest(&path, &text) {
        Ok(manifest) => crate::words::requested(&manifest.capabilities)
            .into_iter()
            .map(|r| r.grant)
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Removes `grants` from `name`'s entry and saves. A bare capability (`net`)
/// removes every grant of it; a scoped one removes that grant only.
pub fn revoke(
    project: &std::path::Path,
    lock: &mut Lock,
    name: &str,
    grants: &[Grant],
) -> Result<LockEntry, MarketError> {
    let entry = lock.entry_mut(name)?;
    for g in grants {
        let before = entry.grant.len();
        entry.grant.retain(|have| {
            let same = match &g.scope {
                None => have.capability == g.capability,
                Some(_) => have == g,
            };
            !same
        });
        if entry.grant.len() == before {
            let have: Vec<String> = entry.grant.iter().map(ToString::to_string).collect();
            return Err(MarketError::Grant {
                message: format!(
                    "{name} has no grant `{g}` (its grants: {})",
                    if have.is_empty() {
                        "none".to_owned()
                    } else {
                        have.join(", ")
                    }
                ),
            });
        }
    }
    let entry = entry.clone();
    lock.save(project)?;
    Ok(entry)
}

/// What an update asks for that the installed version did not, and that its
/// grants do not already allow: these need a person's yes before the update.
pub fn new_requests(installed: &LockEntry, requested: &[Requested]) -> Vec<Requested> {
    requested
        .iter()
        .filter(|r| !installed.requested.contains(&r.grant))
        .filter(|r| !installed.grant.iter().any(|g| covers(g, &r.grant)))
        .cloned()
        .collect()
}

/// The installed version's grants that still fit what the update requests.
pub fn carried(installed: &LockEntry, requested: &[Requested]) -> Vec<Grant> {
    let asks: Vec<Grant> = requested.iter().map(|r| r.grant.clone()).collect();
    installed
        .grant
        .iter()
        .filter(|g| fits(g, &asks))
        .cloned()
        .collect()
}

/// An installed plugin's grants as they apply to the manifest it has `now`: a grant of
/// a whole capability (`net`) covers only the items the manifest asked for when it was
/// granted (`entry.requested`), so a manifest changed since then — by anyone, the
/// plugin included — gains nothing until a person grants the new items (`ward plugin
/// grant`). Returns the grants to apply and the items asked for since.
pub fn pinned(entry: &LockEntry, now: &[Grant]) -> (Vec<Grant>, Vec<Grant>) {
    let since: Vec<Grant> = now
        .iter()
        .filter(|item| !entry.requested.contains(item))
        .filter(|item| {
            !entry
                .grant
                .iter()
                .any(|g| g.scope.is_some() && covers(g, item))
        })
        .cloned()
        .collect();
    if since.is_empty() {
        return (entry.grant.clone(), since);
    }
    let mut grants: Vec<Grant> = Vec::new();
    for g in &entry.grant {
        let items: Vec<Grant> = match g.scope {
            Some(_) => vec![g.clone()],
            // The items of this capability that were approved and are still asked for.
            None => entry
                .requested
                .iter()
                .filter(|r| covers(g, r) && now.iter().any(|n| covers(n, r)))
                .cloned()
                .collect(),
        };
        for item in items {
            if !grants.contains(&item) {
                grants.push(item);
            }
        }
    }
    (grants, since)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(text: &str) -> Grant {
        text.parse().unwrap()
    }

    fn req(text: &str) -> Requested {
        Requested {
            grant: g(text),
            words: String::new(),
        }
    }

    fn entry(requested: &[&str], grant: &[&str]) -> LockEntry {
        LockEntry {
            name: "p".into(),
            version: "1.0.0".into(),
            source: "s".into(),
            url: "u".into(),
            sha256: "0".repeat(64),
            requested: requested.iter().map(|r| g(r)).collect(),
            grant: grant.iter().map(|r| g(r)).collect(),
            files: Default::default(),
        }
    }

    #[test]
    fn grants_must_fit_the_request() {
        let asks = [g("fs-read:$WORKSPACE"), g("net:https://a.com")];
        assert!(fits(&g("fs-read"), &asks));
        assert!(fits(&g("fs-read:$WORKSPACE/docs"), &asks));
        assert!(fits(&g("net:https://a.com"), &asks));
        assert!(!fits(&g("net:https://b.com"), &asks));
        assert!(!fits(&g("env:HOME"), &asks));
        let e = check_fit("p", &[g("env:HOME")], &asks)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "p does not ask for `env:HOME` (it asks for: fs-read:$WORKSPACE, net:https://a.com)"
        );
    }

    #[test]
    fn a_changed_manifest_gains_nothing_from_a_broad_grant() {
        let installed = entry(
            &["fs-write:$WORKSPACE/out", "net:https://a.com"],
            &["fs-write", "net:https://a.com"],
        );
        let same = [g("fs-write:$WORKSPACE/out"), g("net:https://a.com")];
        assert_eq!(pinned(&installed, &same), (installed.grant.clone(), vec![]));
        // The manifest now also asks for the home directory and another host.
        let wider = [
            g("fs-write:$WORKSPACE/out"),
            g("fs-write:~"),
            g("net:https://a.com"),
            g("net:https://evil.com"),
        ];
        let (grants, since) = pinned(&installed, &wider);
        let grants: Vec<String> = grants.iter().map(ToString::to_string).collect();
        assert_eq!(grants, ["fs-write:$WORKSPACE/out", "net:https://a.com"]);
        let since: Vec<String> = since.iter().map(ToString::to_string).collect();
        assert_eq!(since, ["fs-write:~", "net:https://evil.com"]);
    }

    #[test]
    fn only_new_and_ungranted_requests_need_asking() {
        let installed = entry(&["env:A", "env:B"], &["env:A"]);
        let update = [req("env:A"), req("env:B"), req("fs-read:$WORKSPACE")];
        let new: Vec<String> = new_requests(&installed, &update)
            .iter()
            .map(|r| r.grant.to_string())
            .collect();
        assert_eq!(
            new,
            ["fs-read:$WORKSPACE"],
            "env:B was declined before, not new"
        );
        let carried: Vec<String> = carried(&entry(&["env:A"], &["env:A", "net:x"]), &update)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            carried,
            ["env:A"],
            "a grant the update no longer fits is dropped"
        );
    }
}
