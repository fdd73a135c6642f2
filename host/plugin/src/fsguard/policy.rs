//! Deciding one filesystem access against the permission rules.
//!
//! Owns which patterns a host path is checked as (its lexical form and, when it
//! resolves differently, its symlink-resolved form, both project-relative), the
//! decision (deny refuses and is audited, allow passes, ask goes to the user unless
//! the caller already approved that exact need for this call), and what the guest is
//! told (`access`, never why: the reason goes to the audit log).

use std::path::{Path, PathBuf};

use ward_permission::path::{normalize, relative_pattern};
use ward_permission::{Action, evaluate};
use wasmtime_wasi::p2::bindings::filesystem::types::ErrorCode;

use crate::state::CallEnv;

/// Symlinks followed while resolving one path before giving up on resolving it (the
/// lexical pattern is still checked). Matches Linux's `MAXSYMLINKS`.
const MAX_LINKS: u8 = 40;

/// Checks `permission` for host path `path` in the call `env`.
///
/// Both the lexical path and the path with symlinks resolved are checked, so
/// `innocent.txt -> .env` is refused under `read *.env = deny`. Resolving happens here,
/// before wasmtime-wasi opens the path, so a plugin that can write inside its grant
/// could swap a checked path for a symlink between the two (a TOCTOU race). Its
/// reach stays within its preopens either way (wasmtime-wasi refuses links that leave
/// them); only the rules inside the grant can be raced, and only by a plugin granted
/// `fs-write`.
pub(super) async fn check(
    env: &CallEnv,
    real_project: &Path,
    permission: &str,
    path: &Path,
) -> Result<(), ErrorCode> {
    let scope = &env.scope;
    let target = path.display().to_string();
    let mut asks = Vec::new();
    for pattern in patterns(path, &scope.project, real_project) {
        let decision = evaluate(permission, &pattern, &scope.rules);
        match decision.action {
            Action::Allow => {}
            Action::Deny => {
                let reason = format!(
                    "{permission} `{pattern}` is denied by rule {}",
                    decision.describe()
                );
                env.audit.deny(&env.plugin, "fs", &target, &reason);
                return Err(ErrorCode::Access);
            }
            Action::Ask if approved(env, permission, &pattern) => {}
            Action::Ask => asks.push(pattern),
        }
    }
    if asks.is_empty() {
        return Ok(());
    }
    let metadata = serde_json::json!({ "plugin": env.plugin, "path": target });
    // `check` remembers the answer for the rest of the call: a plugin reading a file
    // stats, opens and reads it, and the user should be asked once.
    match scope
        .check(permission, asks.clone(), asks.clone(), metadata)
        .await
    {
        Ok(()) => {
            let reason = format!("{permission} `{}` approved", asks.join(" "));
            env.audit.allow(&env.plugin, "fs", &target, &reason);
            Ok(())
        }
        Err(e) => {
            env.audit.deny(&env.plugin, "fs", &target, &e.to_string());
            Err(ErrorCode::Access)
        }
    }
}

/// Whether the caller already approved (`permission`, `pattern`) for this call.
fn approved(env: &CallEnv, permission: &str, pattern: &str) -> bool {
    env.scope.approved.lock().is_ok_and(|list| {
        list.iter()
            .any(|(perm, pat)| perm == permission && pat == pattern)
    })
}

/// The patterns `path` is checked as: lexical first, then resolved if different.
fn patterns(path: &Path, project: &Path, real_project: &Path) -> Vec<String> {
    let lexical = normalize(path);
    let mut out = vec![relative_pattern(&lexical, project)];
    if let Some(real) = resolve(&lexical, 0) {
        let root = if real.starts_with(real_project) {
            real_project
        } else {
            project
        };
        let pattern = relative_pattern(&real, root);
        if !out.contains(&pattern) {
            out.push(pattern);
        }
    }
    out
}

/// `path` with every symlink resolved, as far as it exists: an existing path is
/// canonicalised; a missing one is its resolved parent joined with its name (a file
/// about to be created); a dangling symlink is resolved through its target. `None`
/// when it cannot be resolved (a loop, unreadable directories).
fn resolve(path: &Path, depth: u8) -> Option<PathBuf> {
    if depth > MAX_LINKS {
        return None;
    }
    if let Ok(real) = std::fs::canonicalize(path) {
        return Some(real);
    }
    let parent = path.parent()?;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = std::fs::read_link(path).ok()?;
            let base = resolve(parent, depth + 1)?;
            resolve(&normalize(&base.join(target)), depth + 1)
        }
        Ok(_) => None,
        Err(_) => Some(resolve(parent, depth + 1)?.join(path.file_name()?)),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ward-fsguard-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    #[test]
    fn a_symlink_is_checked_as_its_target_too() {
        let root = temp("link");
        std::fs::write(root.join(".env"), "SECRET").unwrap();
        std::os::unix::fs::symlink(root.join(".env"), root.join("innocent.txt")).unwrap();
        assert_eq!(
            patterns(&root.join("innocent.txt"), &root, &root),
            ["innocent.txt", ".env"]
        );
        assert_eq!(patterns(&root.join("a/../.env"), &root, &root), [".env"]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn missing_files_resolve_through_their_directory() {
        let root = temp("missing");
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
        assert_eq!(
            patterns(&root.join("alias/new.txt"), &root, &root),
            ["alias/new.txt", "real/new.txt"]
        );
        // A dangling link is checked as where it would create the file.
        std::os::unix::fs::symlink(root.join("real/later.env"), root.join("dangling")).unwrap();
        assert_eq!(
            patterns(&root.join("dangling"), &root, &root),
            ["dangling", "real/later.env"]
        );
        // A loop cannot be resolved; the lexical pattern still is checked.
        std::os::unix::fs::symlink(root.join("loop"), root.join("loop")).unwrap();
        assert_eq!(patterns(&root.join("loop"), &root, &root), ["loop"]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
