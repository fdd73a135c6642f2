//! The `exec` import: running a process on the host for a plugin.
//!
//! The gates, in order: the plugin's effective `exec` patterns (ceiling ∩ grant) must
//! cover every simple command the shell parser finds (a command it is unsure about
//! needs a grant of `*`); the working directory, resolved through symlinks, must pass
//! `external_directory` when outside the project; files opened by redirections must
//! pass `external_directory` when outside it and `edit` when written; and the command
//! must pass the `bash` rules (which may ask the user; an unsure command is always
//! asked about as a whole, see [`BashQuestion`]). Then [`crate::process`] starts it, confined by the kernel.
//!
//! Each gate says what its refusal is: a missing grant or a rule is
//! [`HostError::Denied`], a request that cannot be run as asked (an empty command, a
//! working directory that is not one) [`HostError::Invalid`], a process that could not
//! be started [`HostError::Failed`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ward_permission::bash::BashQuestion;
use ward_permission::{PermissionError, path as rule_path};

use crate::bindings::host::{ExecOutput, ExecRequest};
use crate::host_error::HostError;
use crate::process::spawn;
use crate::state::{CallEnv, CallScope};

/// Redirection targets that are not files: writing to them changes nothing.
const DEVICES: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

pub(crate) async fn run(env: Arc<CallEnv>, req: ExecRequest) -> Result<ExecOutput, HostError> {
    let plugin = env.plugin.as_str();
    if env.caps.exec.is_empty() {
        let reason = format!("plugin `{plugin}` was not granted the `exec` capability");
        env.audit.deny(plugin, "exec", &req.command, &reason);
        return Err(HostError::Denied(reason));
    }
    let question = BashQuestion::new(&req.command);
    if question.is_empty() {
        return Err(HostError::Invalid("exec: the command is empty".to_string()));
    }
    check_grant(&env, &question)?;

    let project = &env.scope.project;
    let workdir = resolve_workdir(project, req.workdir.as_deref())?;
    // Compared resolved against resolved, so a symlinked project or temp dir is
    // still itself.
    let real_project = std::fs::canonicalize(project).unwrap_or_else(|_| project.clone());
    let temp = std::env::temp_dir();
    let also_allowed = [std::fs::canonicalize(&temp).unwrap_or(temp)];
    if rule_path::is_external(&workdir, &real_project, &also_allowed) {
        let pattern = format!("{}/*", workdir.display());
        check(
            &env,
            &env.scope,
            "external_directory",
            vec![pattern.clone()],
            vec![pattern],
        )
        .await?;
    }
    check_redirects(&env, &question, &workdir, &real_project, &also_allowed).await?;
    check_bash(&env, &question).await?;
    env.audit
        .allow(plugin, "exec", &req.command, "granted and permitted");

    // Everything was checked: what is left to go wrong is starting the process.
    // Every way of not getting to an exit status is the process failing to run, not
    // a refusal: the grant and the rules were checked above.
    spawn(&env, &req, workdir)
        .await
        .map_err(|e| HostError::Failed(e.to_string()))
}

/// The plugin's `exec` grant must cover every simple command. A command the
/// parser is unsure about has no parts a narrow grant could cover: only a plugin
/// granted (and allowed by its manifest) every command, `*`, may go on to the
/// `bash` rules with it.
fn check_grant(env: &CallEnv, question: &BashQuestion) -> Result<(), HostError> {
    let plugin = env.plugin.as_str();
    let granted = env.caps.exec.join(", ");
    if let Some(why) = question.unsure() {
        let everything = |pats: &[String]| pats.iter().any(|p| p == "*");
        if everything(&env.caps.exec) && everything(&env.caps.exec_ceiling) {
            return Ok(());
        }
        let reason = format!(
            "command `{}` cannot be checked against the exec patterns granted to plugin \
             `{plugin}` ({granted}): {why}",
            question.command
        );
        env.audit.deny(plugin, "exec", &question.command, &reason);
        return Err(HostError::Denied(reason));
    }
    if let Some(bad) = question.commands().find(|c| !env.caps.allows_exec(c)) {
        let reason = format!(
            "command `{bad}` is outside the exec patterns granted to plugin `{plugin}` ({granted})"
        );
        env.audit.deny(plugin, "exec", bad, &reason);
        return Err(HostError::Denied(reason));
    }
    Ok(())
}

/// The working directory, resolved through symlinks: the external-directory check
/// must see where the process will really run.
fn resolve_workdir(project: &Path, workdir: Option<&str>) -> Result<PathBuf, HostError> {
    let dir = match workdir {
        Some(w) => project.join(w),
        None => project.to_path_buf(),
    };
    match std::fs::canonicalize(&dir) {
        Ok(real) if real.is_dir() => Ok(real),
        Ok(real) => Err(HostError::Invalid(format!(
            "exec: the working directory {} is not a directory",
            real.display()
        ))),
        Err(e) => Err(HostError::Invalid(format!(
            "exec: cannot use the working directory {}: {e}",
            dir.display()
        ))),
    }
}

/// Files the command's redirections open: a write needs the `edit` rule for the
/// path, and any file outside the project needs `external_directory`, as if a file
/// tool had named it.
async fn check_redirects(
    env: &CallEnv,
    question: &BashQuestion,
    workdir: &Path,
    project: &Path,
    also_allowed: &[PathBuf],
) -> Result<(), HostError> {
    let mut external = Vec::new();
    let mut edits = Vec::new();
    for redirect in question.redirects() {
        if DEVICES.contains(&redirect.path.as_str()) {
            continue;
        }
        let path = rule_path::normalize(&workdir.join(&redirect.path));
        if rule_path::is_external(&path, project, also_allowed) {
            let dir = path.parent().unwrap_or(&path);
            external.push(format!("{}/*", dir.display()));
        }
        if redirect.write {
            edits.push(rule_path::relative_pattern(&path, project));
        }
    }
    external.dedup();
    edits.dedup();
    if !external.is_empty() {
        check(
            env,
            &env.scope,
            "external_directory",
            external.clone(),
            external,
        )
        .await?;
    }
    if !edits.is_empty() {
        check(env, &env.scope, "edit", edits.clone(), edits).await?;
    }
    Ok(())
}

/// The `bash` rules. An unsure command is checked as one marked pattern under the
/// question's extra guard layer (so no allow rule lets it through unasked), after a
/// deny matching any part of it has refused it outright.
async fn check_bash(env: &CallEnv, question: &BashQuestion) -> Result<(), HostError> {
    let Some(why) = question.unsure() else {
        return check(
            env,
            &env.scope,
            "bash",
            question.patterns.clone(),
            question.always.clone(),
        )
        .await;
    };
    if let Some(decision) = question.denied(&env.scope.rules) {
        let refusal = PermissionError::Denied {
            permission: "bash".to_string(),
            pattern: question.command.clone(),
            rule: decision.describe(),
        };
        env.audit
            .deny(&env.plugin, "bash", &question.command, &refusal.to_string());
        return Err(refusal.into());
    }
    let mut scope = env.scope.clone();
    scope.rules = Arc::new(question.layers(&env.scope.rules));
    // The question says why it is asked about as a whole.
    let metadata = serde_json::json!({ "plugin": env.plugin, "unchecked": why.to_string() });
    check_with(
        env,
        &scope,
        "bash",
        question.patterns.clone(),
        question.always.clone(),
        metadata,
    )
    .await
}

async fn check(
    env: &CallEnv,
    scope: &CallScope,
    permission: &str,
    patterns: Vec<String>,
    always: Vec<String>,
) -> Result<(), HostError> {
    let metadata = serde_json::json!({ "plugin": env.plugin });
    check_with(env, scope, permission, patterns, always, metadata).await
}

/// Asks `scope` about the need as a question of the plugin's; a refusal is audited.
async fn check_with(
    env: &CallEnv,
    scope: &CallScope,
    permission: &str,
    patterns: Vec<String>,
    always: Vec<String>,
    metadata: serde_json::Value,
) -> Result<(), HostError> {
    let target = patterns.join(" && ");
    env.check_in(scope, permission, patterns, always, metadata)
        .await
        .map_err(|e| {
            env.audit
                .deny(&env.plugin, permission, &target, &e.to_string());
            HostError::from(e)
        })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_workdir_is_resolved_through_symlinks() {
        let base = std::env::temp_dir().join(format!("ward-exec-workdir-{}", std::process::id()));
        let project = base.join("project");
        let outside = base.join("outside");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let _ = std::fs::remove_file(project.join("link"));
        std::os::unix::fs::symlink(&outside, project.join("link")).unwrap();
        let real_outside = std::fs::canonicalize(&outside).unwrap();
        let real_project = std::fs::canonicalize(&project).unwrap();

        let dir = resolve_workdir(&project, Some("link")).unwrap();
        assert_eq!(dir, real_outside);
        assert!(rule_path::is_external(&dir, &real_project, &[]));
        assert_eq!(resolve_workdir(&project, None).unwrap(), real_project);
        let err = resolve_workdir(&project, Some("missing")).unwrap_err();
        assert!(
            matches!(&err, HostError::Invalid(m) if m.contains("cannot use the working directory")),
            "{err:?}"
        );
        std::fs::write(project.join("file"), "").unwrap();
        assert!(resolve_workdir(&project, Some("file")).is_err());
        let _ = std::fs::remove_dir_all(&base);
    }
}
