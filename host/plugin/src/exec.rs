//! The `exec` import: running a process on the host for a plugin.
//!
//! Three gates, in order: the plugin's effective `exec` patterns (ceiling ∩ grant)
//! must cover every sub-command; a working directory outside the project must pass the
//! `external_directory` rule; and every sub-command must pass the `bash` rules (which may
//! ask the user). The process gets a scrubbed environment, its own process group (so a
//! timeout kills the whole tree), and its output is capped at the plugin's output limit,
//! keeping the tail.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use ward_permission::{bash, path as rule_path};

use crate::bindings::host::{ExecOutput, ExecRequest};
use crate::state::CallEnv;

const DEFAULT_TIMEOUT_MS: u32 = 120_000;
/// Variables every process inherits; everything else must be granted with `env`.
/// The shell every `exec` runs under.
const SHELL: &str = "/bin/sh";

const BASE_ENV: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER"];

pub(crate) async fn run(env: Arc<CallEnv>, req: ExecRequest) -> Result<ExecOutput, String> {
    let plugin = env.plugin.as_str();
    if env.caps.exec.is_empty() {
        let reason = format!("plugin `{plugin}` was not granted the `exec` capability");
        env.audit.deny(plugin, "exec", &req.command, &reason);
        return Err(reason);
    }
    let commands = bash::split_commands(&req.command);
    if commands.is_empty() {
        return Err("exec: the command is empty".to_string());
    }
    if let Some(bad) = commands.iter().find(|c| !env.caps.allows_exec(c)) {
        let reason = format!(
            "command `{bad}` is outside the exec patterns granted to plugin `{plugin}` ({})",
            env.caps.exec.join(", ")
        );
        env.audit.deny(plugin, "exec", bad, &reason);
        return Err(reason);
    }

    let project = &env.scope.project;
    let workdir = match &req.workdir {
        Some(w) => rule_path::normalize(&project.join(w)),
        None => project.clone(),
    };
    if rule_path::is_external(&workdir, project, &[std::env::temp_dir()]) {
        let pattern = format!("{}/*", workdir.display());
        check(
            &env,
            "external_directory",
            vec![pattern.clone()],
            vec![pattern],
        )
        .await?;
    }
    let always = commands.iter().map(|c| bash::always_pattern(c)).collect();
    check(&env, "bash", commands, always).await?;
    env.audit
        .allow(plugin, "exec", &req.command, "granted and permitted");

    spawn(&env, &req, workdir).await
}

async fn check(
    env: &CallEnv,
    permission: &str,
    patterns: Vec<String>,
    always: Vec<String>,
) -> Result<(), String> {
    let target = patterns.join(" && ");
    env.scope
        .check(
            permission,
            patterns,
            always,
            serde_json::json!({ "plugin": env.plugin }),
        )
        .await
        .map_err(|e| {
            let reason = e.to_string();
            env.audit.deny(&env.plugin, permission, &target, &reason);
            reason
        })
}

async fn spawn(env: &CallEnv, req: &ExecRequest, workdir: PathBuf) -> Result<ExecOutput, String> {
    // An absolute program path matters for speed: with a bare name and a PATH set in the
    // child's environment, std falls back from posix_spawn (vfork) to fork, whose page-table
    // copy grows with the host's address space (the wasm instance pool) — 7 ms a spawn and
    // rising in a long-lived process.
    let mut cmd = Command::new(SHELL);
    cmd.arg("-c")
        .arg(&req.command)
        .current_dir(&workdir)
        .env_clear()
        .stdin(if req.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for name in BASE_ENV
        .iter()
        .copied()
        .chain(env.caps.env.iter().map(String::as_str))
    {
        if let Ok(v) = std::env::var(name) {
            cmd.env(name, v);
        }
    }
    for (k, v) in &req.env {
        cmd.env(k, v);
    }
    #[cfg(unix)]
    cmd.process_group(0);

    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run `{}` in {}: {e}", req.command, workdir.display()))?;
    if let (Some(input), Some(mut stdin)) = (&req.stdin, child.stdin.take()) {
        let input = input.clone();
        tokio::spawn(async move {
            let _ = stdin.write_all(input.as_bytes()).await;
        });
    }
    let mut group = GroupKill(child.id());
    let cap = env.limits.output_bytes;
    let out = tokio::spawn(read_tail(child.stdout.take(), cap));
    let err = tokio::spawn(read_tail(child.stderr.take(), cap));

    let remaining = env
        .deadline
        .saturating_duration_since(std::time::Instant::now());
    let asked = Duration::from_millis(u64::from(req.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)));
    let timeout = asked.min(remaining);
    let (exit_code, timed_out) = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(Ok(status)) => {
            group.0 = None;
            (status.code(), false)
        }
        Ok(Err(e)) => return Err(format!("waiting for `{}`: {e}", req.command)),
        Err(_) => {
            // Disarmed first: once reaped, the pid may belong to someone else.
            group.0 = None;
            kill_tree(&mut child).await;
            (None, true)
        }
    };
    let (stdout, t1) = out.await.unwrap_or_default();
    let (stderr, t2) = err.await.unwrap_or_default();
    Ok(ExecOutput {
        exit_code,
        stdout,
        stderr,
        timed_out,
        truncated: t1 || t2,
    })
}

/// Kills the child's process group when dropped while the child still runs: an
/// aborted session drops the tool call mid-`wait`, and `kill_on_drop` alone would leave
/// the shell's children running.
struct GroupKill(Option<u32>);

impl Drop for GroupKill {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self.0 {
            // SAFETY: kill(2) with a negative pid has no memory-safety preconditions.
            unsafe {
                libc::kill(-(pid as i32), libc::SIGKILL);
            }
        }
    }
}

async fn kill_tree(child: &mut tokio::process::Child) {
    #[cfg(unix)]
    if let Some(pid) = child.id() {
        // The child leads its own process group; signal the group so grandchildren die too.
        // SAFETY: kill(2) with a negative pid has no memory-safety preconditions.
        unsafe {
            libc::kill(-(pid as i32), libc::SIGKILL);
        }
    }
    let _ = child.kill().await;
}

/// Reads a pipe to the end, keeping at most `cap` bytes from the tail.
async fn read_tail<R: AsyncRead + Unpin>(pipe: Option<R>, cap: usize) -> (String, bool) {
    let Some(mut pipe) = pipe else {
        return (String::new(), false);
    };
    let mut kept: Vec<u8> = Vec::new();
    let mut truncated = false;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > cap.saturating_mul(2) {
                    let cut = kept.len() - cap;
                    kept.drain(..cut);
                    truncated = true;
                }
            }
        }
    }
    if kept.len() > cap {
        let cut = kept.len() - cap;
        kept.drain(..cut);
        truncated = true;
    }
    (String::from_utf8_lossy(&kept).into_owned(), truncated)
}
