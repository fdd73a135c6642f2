//! Deciding one filesystem access against the permission rules.
//!
//! Owns which patterns a host path is checked as (its lexical form and its
//! symlink-resolved form, both project-relative), the decision (deny refuses and is
//! audited, allow passes, ask goes to the user unless the caller already approved that
//! exact need for this call), and what the guest is told (`access`, never why: the
//! reason goes to the audit log).
//!
//! A [`Check`] can take its patterns in steps, so an open can be decided on the lexical
//! path before the file is opened and on the opened file's real path after, while
//! the user is still asked only once.
//!
//! Three things no rule changes: any access to Ward's private state (its data
//! directory) is refused for every plugin, Ward's own tools included; an `edit` of what
//! Ward reads as configuration or of its state (a protected path, see
//! [`ward_permission::protected`]), lexical or resolved, is refused for every plugin
//! whatever its grant, and only Ward's own tools get a person's question there
//! instead. And a directory operation is decided for what lies beneath the directory
//! too ([`Tree`]), so a rule on `dir/*` covers listing, renaming or removing `dir`.

use std::path::Path;

use ward_permission::path::relative_pattern;
use ward_permission::tree::{entries_pattern, evaluate_beneath};
use ward_permission::{Action, Decision, evaluate};
use wasmtime_wasi::p2::bindings::filesystem::types::ErrorCode;

use crate::state::CallEnv;

/// How much of a path an operation touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tree {
    /// The path alone.
    Path,
    /// The path and the names of its entries: listing, creating or removing (an empty)
    /// directory. Decided on the path and on an arbitrary entry (`dir/*`).
    Entries,
    /// The path and everything beneath it: renaming a directory moves all of it out
    /// from under its rules. Decided on the strictest rule any of it could meet.
    All,
}

/// One permission (`read` or `edit`) being checked for one host path.
pub(super) struct Check<'a> {
    env: &'a CallEnv,
    permission: &'static str,
    /// What the operation touches beneath the path.
    tree: Tree,
    /// The project root, normalised.
    project: &'a Path,
    /// The lexical host path, as the audit log names it.
    target: &'a Path,
    /// Patterns already evaluated, so a resolved path equal to the lexical one is not
    /// evaluated (or asked about) twice.
    seen: Vec<String>,
    /// Patterns whose rule says ask and that the caller has not approved yet.
    asks: Vec<String>,
}

impl<'a> Check<'a> {
    /// Starts checking `permission` for `path` (absolute, normalised) in a call whose
    /// normalised project root is `project`, and evaluates its lexical pattern.
    pub(super) fn new(
        env: &'a CallEnv,
        project: &'a Path,
        permission: &'static str,
        path: &'a Path,
    ) -> Result<Self, ErrorCode> {
        Self::over(env, project, permission, path, Tree::Path)
    }

    /// [`Check::new`] for an operation touching `tree` of `path`.
    pub(super) fn over(
        env: &'a CallEnv,
        project: &'a Path,
        permission: &'static str,
        path: &'a Path,
        tree: Tree,
    ) -> Result<Self, ErrorCode> {
        let mut check = Check {
            env,
            permission,
            tree,
            project,
            target: path,
            seen: Vec::with_capacity(2),
            asks: Vec::new(),
        };
        check.pattern(pattern_of(path, project), path)?;
        Ok(check)
    }

    /// Evaluates the pattern of `real`, the path resolved with its symlinks;
    /// `real_project` is the project root resolved, so a resolved path inside the
    /// project is still a project-relative pattern.
    pub(super) fn resolved(&mut self, real: &Path, real_project: &Path) -> Result<(), ErrorCode> {
        if real == self.target && real_project == self.project {
            // The same path under the same root: the lexical pattern, already decided.
            return Ok(());
        }
        let root = if real.starts_with(real_project) {
            real_project
        } else {
            self.project
        };
        self.pattern(pattern_of(real, root), real)
    }

    /// Evaluates one pattern, that of host path `path`: deny refuses at once (audited),
    /// ask is kept for [`Check::confirm`] unless already approved for this call.
    fn pattern(&mut self, pattern: String, path: &Path) -> Result<(), ErrorCode> {
        if self.seen.contains(&pattern) {
            return Ok(());
        }
        if let Some(what) = self.env.protected.find_private(path) {
            // Hidden from every plugin, Ward's own tools too: the token, the database
            // and the approvals there are Ward's alone, whatever a grant reaches.
            let reason = format!(
                "`{}` is {what}: no plugin reads or writes Ward's private state",
                path.display()
            );
            return Err(self.refuse(&reason));
        }
        let mut decision = self.decide(&pattern);
        if self.permission == "edit" {
            let protected = &self.env.protected;
            let found = match self.tree {
                Tree::All => protected.find_within(path),
                Tree::Path | Tree::Entries => protected.find_lexical(path),
            };
            if let Some(what) = found {
                if !self.env.config_writer {
                    let reason = format!(
                        "`{}` is {what}: no plugin grant covers writing Ward's configuration \
                         or state",
                        path.display()
                    );
                    return Err(self.refuse(&reason));
                }
                // Ward's own tools change it only with a person's answer.
                if decision.action == Action::Allow {
                    decision.action = Action::Ask;
                }
            }
        }
        match decision.action {
            Action::Allow => {}
            Action::Deny => {
                let reason = format!(
                    "{} `{pattern}` is denied by rule {}",
                    self.permission,
                    decision.describe()
                );
                return Err(self.refuse(&reason));
            }
            Action::Ask if self.approved(&pattern) => {}
            Action::Ask => self.asks.push(pattern.clone()),
        }
        self.seen.push(pattern);
        Ok(())
    }

    /// The decision for `pattern` over what the operation touches.
    fn decide(&self, pattern: &str) -> Decision<'a> {
        let env: &'a CallEnv = self.env;
        let rules = &env.scope.rules;
        let own = evaluate(self.permission, pattern, rules);
        match self.tree {
            Tree::Path => own,
            Tree::Entries => {
                let entries = evaluate(self.permission, &entries_pattern(pattern), rules);
                if strictness(entries.action) > strictness(own.action) {
                    entries
                } else {
                    own
                }
            }
            Tree::All => evaluate_beneath(self.permission, pattern, rules),
        }
    }

    /// Audits a refusal of this access for `reason`; the guest is told `access` only.
    fn refuse(&self, reason: &str) -> ErrorCode {
        let target = self.target.display().to_string();
        self.env.audit.deny(&self.env.plugin, "fs", &target, reason);
        ErrorCode::Access
    }

    /// Whether the caller already approved (`permission`, `pattern`) for this call.
    fn approved(&self, pattern: &str) -> bool {
        self.env.scope.approved.lock().is_ok_and(|list| {
            list.iter()
                .any(|(perm, pat)| perm == self.permission && pat == pattern)
        })
    }

    /// Puts the patterns that still need asking to the user, all in one question.
    pub(super) async fn confirm(&mut self) -> Result<(), ErrorCode> {
        if self.asks.is_empty() {
            return Ok(());
        }
        let asks = std::mem::take(&mut self.asks);
        let env = self.env;
        let target = self.target.display().to_string();
        let metadata = serde_json::json!({ "plugin": env.plugin, "path": target });
        // `check` remembers the answer for the rest of the call: a plugin reading a file
        // stats, opens and reads it, and the user should be asked once.
        match env
            .check(self.permission, asks.clone(), asks.clone(), metadata)
            .await
        {
            Ok(()) => {
                let reason = format!("{} `{}` approved", self.permission, asks.join(" "));
                env.audit.allow(&env.plugin, "fs", &target, &reason);
                Ok(())
            }
            Err(e) => {
                env.audit.deny(&env.plugin, "fs", &target, &e.to_string());
                Err(ErrorCode::Access)
            }
        }
    }
}

fn strictness(action: Action) -> u8 {
    match action {
        Action::Allow => 0,
        Action::Ask => 1,
        Action::Deny => 2,
    }
}

/// The rule pattern for `path` relative to `root`: what [`relative_pattern`] gives,
/// without normalising both paths again when they already are (every path the guard
/// checks is, and this runs for every filesystem access).
fn pattern_of(path: &Path, root: &Path) -> String {
    if !path.is_absolute() {
        return relative_pattern(path, root);
    }
    let rel = match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => return ".".to_string(),
        Ok(rel) => rel,
        Err(_) => path,
    };
    let text = rel.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        text.into_owned()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_relative_pattern_for_normalised_paths() {
        let root = Path::new("/work/proj");
        for path in [
            "/work/proj",
            "/work/proj/.env",
            "/work/proj/src/main.rs",
            "/work/proj2/x",
            "/etc/passwd",
            "src/lib.rs",
        ] {
            let path = Path::new(path);
            assert_eq!(
                pattern_of(path, root),
                relative_pattern(path, root),
                "{path:?}"
            );
        }
    }
}
