//! Starting the process an `exec` call asked for, confined by the kernel, and collecting
//! its output within the call's deadline.
//!
//! The process is started by a sandbox server ([`ward_sandbox::Launcher`]) under a policy built
//! from who asked: the standard `bash` tool's commands get the configured command mode
//! (`read-only` | `workspace-write` | `full`), every other plugin's processes get its
//! own grants — the system directories, the paths it was granted, a private temporary
//! directory, the network only with a `net` grant, and no inherited environment. What
//! Ward reads as configuration and its state stay read-only for all of them, and its
//! data directory hidden (the launcher adds it to every policy). The server puts the process
//! in its own PID namespace, so nothing it starts outlives it (a cancelled or timed-out
//! call kills that namespace), and the call's deadline bounds the wait for its output.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio::net::unix::pipe;
use ward_sandbox::{Launched, Mode, Policy, Program};

use crate::bindings::host::{ExecOutput, ExecRequest};
use crate::sandbox::{Confinement, MissingConfig};
use crate::state::CallEnv;

/// The shell every `exec` runs under, by absolute path (no `PATH` the request sets can
/// swap it).
const SHELL: &str = "/bin/sh";
/// Timeout when the request gives none.
const DEFAULT_TIMEOUT_MS: u32 = 120_000;
/// How long a cancelled program's monitor gets to confirm the kill.
const CANCEL_GRACE: Duration = Duration::from_millis(500);
/// Variables the `bash` tool's commands inherit from Ward (the user's own shell
/// setup); everything else must be granted with `env`.
const COMMAND_ENV: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER"];
/// `PATH` of a plugin's processes: the system's, never the user's.
const PLUGIN_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Why a process an `exec` call asked for did not run to an exit status. Each message
/// names the command.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SpawnError {
    /// A plugin's private temporary directory could not be made.
    #[error("cannot create a temporary directory for `{command}`: {source}")]
    Scratch {
        /// The command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// No sandbox helper is configured, so nothing can be confined.
    #[error("no sandbox helper is configured: processes cannot be confined, so none is started")]
    NoLauncher,
    /// The launch's blocking task failed.
    #[error("cannot run `{command}`: {source}")]
    Task {
        /// The command.
        command: String,
        /// Why.
        source: tokio::task::JoinError,
    },
    /// The sandbox could not start the command.
    #[error("cannot run `{command}` in {}: {source}", .dir.display())]
    Launch {
        /// The command.
        command: String,
        /// Its working directory.
        dir: PathBuf,
        /// Why.
        source: ward_sandbox::SandboxError,
    },
    /// The command's input pipe, or its control socket, could not be set up.
    #[error("waiting for `{command}`: {source}")]
    Wait {
        /// The command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The helper started, and could not confine the command, so it was not run.
    #[error("`{command}` was not run: {reason} (exit {code})")]
    NotConfined {
        /// The command.
        command: String,
        /// The helper's own report.
        reason: String,
        /// The helper's exit status ([`ward_sandbox::CONFINE_FAILED`]).
        code: i32,
    },
}

/// Runs `req` in `workdir`, confined as `env` says, and waits for it within the call's
/// deadline.
pub(crate) async fn spawn(
    env: &CallEnv,
    req: &ExecRequest,
    workdir: PathBuf,
) -> Result<ExecOutput, SpawnError> {
    let command = || req.command.clone();
    let confinement = env.confinement;
    let scratch = match confinement {
        Confinement::Plugin => Some(Scratch::create().map_err(|source| SpawnError::Scratch {
            command: command(),
            source,
        })?),
        Confinement::Commands { .. } => None,
    };
    let policy = policy_for(env, confinement, scratch.as_ref().map(|s| s.0.as_path()));
    let missing = policy
        .confine_files
        .then(|| MissingConfig::note(&env.protected, &policy.write));
    let launcher = env.launcher.clone().ok_or(SpawnError::NoLauncher)?;

    let program = Program {
        argv: vec![
            OsString::from(SHELL),
            OsString::from("-c"),
            OsString::from(&req.command),
        ],
        cwd: workdir.clone(),
        env: environment(env, req, scratch.as_ref()),
        stdin: req.stdin.is_some(),
    };
    // Blocking (a server's start, the first time a setup is used): off the async workers.
    let launched = tokio::task::spawn_blocking(move || launcher.launch(&policy, &program))
        .await
        .map_err(|source| SpawnError::Task {
            command: command(),
            source,
        })?
        .map_err(|source| SpawnError::Launch {
            command: command(),
            dir: workdir,
            source,
        })?;
    let waiting = |source| SpawnError::Wait {
        command: command(),
        source,
    };
    let Launched {
        stdin,
        stdout,
        stderr,
        control,
    } = launched;
    if let (Some(input), Some(stdin)) = (&req.stdin, stdin) {
        let input = input.clone();
        let mut stdin = pipe::Sender::from_owned_fd(stdin.into()).map_err(waiting)?;
        tokio::spawn(async move {
            let _ = stdin.write_all(input.as_bytes()).await;
        });
    }
    let receiver = |r: std::io::PipeReader| pipe::Receiver::from_owned_fd(r.into()).ok();
    let cap = env.limits.output_bytes;
    let out = tokio::spawn(read_tail(receiver(stdout), cap));
    let err = tokio::spawn(read_tail(receiver(stderr), cap));

    let asked = Duration::from_millis(u64::from(req.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)));
    let until = (Instant::now() + asked).min(env.deadline);
    let remaining = until.saturating_duration_since(Instant::now());
    // Dropping the control (an aborted call drops this future) kills the program and
    // everything it started.
    let (control, _server) = control.into_parts();
    control.set_nonblocking(true).map_err(waiting)?;
    let mut control = UnixStream::from_std(control).map_err(waiting)?;
    let (exit_code, timed_out) =
        match tokio::time::timeout(remaining, exit_status(&mut control)).await {
            Ok(status) => (status, false),
            Err(_) => {
                // Cancel: the monitor kills the program's PID namespace, then answers.
                let _ = control.shutdown().await;
                let _ = tokio::time::timeout(CANCEL_GRACE, exit_status(&mut control)).await;
                (None, true)
            }
        };
    // The pipes close when the last process holding them dies; never wait past the
    // deadline for that.
    let grace = until
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    let (stdout, t1) = collect(out, grace).await;
    let (mut stderr, t2) = collect(err, grace).await;
    for created in missing.iter().flat_map(MissingConfig::remove_created) {
        stderr.push_str(&format!(
            "\nward: removed {}, which the command created: Ward's configuration cannot be changed from a sandboxed command\n",
            created.display()
        ));
    }
    if let Some(code) = exit_code.filter(|c| *c == ward_sandbox::CONFINE_FAILED) {
        // The helper reports why it could not confine the command on stderr.
        if stdout.is_empty() && stderr.starts_with("ward sandbox:") {
            return Err(SpawnError::NotConfined {
                command: command(),
                reason: stderr.trim_end().to_string(),
                code,
            });
        }
    }
    Ok(ExecOutput {
        exit_code,
        stdout,
        stderr,
        timed_out,
        truncated: t1 || t2,
    })
}

/// The program's whole environment: for the `bash` tool the user's own basics, for a
/// plugin a fixed `PATH` and its private home; then the granted variables and the
/// request's own.
fn environment(
    env: &CallEnv,
    req: &ExecRequest,
    scratch: Option<&Scratch>,
) -> Vec<(OsString, OsString)> {
    let mut vars: Vec<(OsString, OsString)> = Vec::new();
    let mut set = |k: &str, v: OsString| {
        vars.retain(|(name, _)| name != k);
        vars.push((k.into(), v));
    };
    match scratch {
        None => {
            for name in COMMAND_ENV {
                if let Some(v) = std::env::var_os(name) {
                    set(name, v);
                }
            }
        }
        Some(dir) => {
            set("PATH", PLUGIN_PATH.into());
            set("HOME", dir.0.clone().into());
            set("TMPDIR", dir.0.clone().into());
            set("LANG", "C.UTF-8".into());
        }
    }
    for name in &env.caps.env {
        if let Some(v) = std::env::var_os(name) {
            set(name, v);
        }
    }
    for (k, v) in &req.env {
        set(k, v.into());
    }
    vars
}

/// Reads the exit status a launch's monitor answers with; `None` when it went away
/// without one.
async fn exit_status(control: &mut UnixStream) -> Option<i32> {
    let mut status = [0u8; ward_sandbox::STATUS_LEN];
    control.read_exact(&mut status).await.ok()?;
    Some(ward_sandbox::exit_status(status))
}

/// The policy for this call's process.
/// Starts, on a blocking thread, the sandbox server the processes of a call made under
/// `env` will run in, so the first one does not wait for it (a server's start is the
/// helper's exec, its namespaces and its mounts: a few milliseconds). Only where the
/// policy needs nothing made per call (not a plugin's own, which has a fresh scratch
/// directory each time); a failure is left for the launch itself to report.
pub(crate) fn prepare_server(env: &CallEnv) {
    if env.confinement == Confinement::Plugin {
        return;
    }
    let Some(launcher) = env.launcher.clone() else {
        return;
    };
    let policy = policy_for(env, env.confinement, None);
    tokio::task::spawn_blocking(move || {
        if let Err(e) = launcher.prepare(&policy) {
            tracing::debug!("sandbox server not started ahead: {e}");
        }
    });
}

fn policy_for(env: &CallEnv, confinement: Confinement, scratch: Option<&Path>) -> Policy {
    let settings = &env.sandbox;
    let project = &env.scope.project;
    match confinement {
        Confinement::Commands { unsandboxed: true } => Policy::unconfined(),
        Confinement::Commands { unsandboxed: false } => Policy::for_commands(
            settings.mode,
            project,
            &std::env::temp_dir(),
            &settings.writable,
            &settings.protected_for(&env.protected, project, confinement),
            &settings.hidden,
            settings.network || settings.mode == Mode::Full,
        ),
        Confinement::Plugin => {
            let mut write = env.caps.fs_write.clone();
            write.extend(scratch.map(Path::to_path_buf));
            Policy::for_plugin(
                &env.caps.fs_read,
                &write,
                &settings.protected_for(&env.protected, project, confinement),
                !env.caps.net.is_empty(),
            )
        }
    }
}

/// A private temporary directory for one plugin process, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn create() -> std::io::Result<Scratch> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ward-exec-{}-{n}", std::process::id()));
        std::fs::create_dir(&dir)?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Waits at most `grace` for a pipe reader, giving up (empty) after that.
async fn collect(
    reader: tokio::task::JoinHandle<(String, bool)>,
    grace: Duration,
) -> (String, bool) {
    let abort = reader.abort_handle();
    match tokio::time::timeout(grace, reader).await {
        Ok(joined) => joined.unwrap_or_default(),
        Err(_) => {
            abort.abort();
            (String::new(), true)
        }
    }
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
