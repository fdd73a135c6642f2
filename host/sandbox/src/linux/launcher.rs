//! Ward's side of the sandbox: the servers it keeps (one per mount-and-network setup)
//! and each launch through them, each with Ward's private state ([`Private`]) hidden
//! and its secrets taken out of the environment, whoever asked for the launch.
//!
//! A server is reused only while the paths it mounted are the same files: the key
//! holds the device and inode of every read-only and hidden path that exists (or that
//! it does not), so a protected path created, removed or replaced since the server
//! started gets a fresh server whose mounts cover it.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, PipeReader, PipeWriter, Read};
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::net::{AddressFamily, SocketFlags, SocketType};

use crate::linux::server::{FAILED, READY, Setup};
use crate::linux::wire::{Request, send_with_fds};
use crate::policy::{Policy, Private};
use crate::{SERVE_ARG, SandboxError};

/// Servers kept at once; the oldest is let go (once its programs end) beyond this.
const MAX_SERVERS: usize = 8;
/// How long a starting server may take to say it is ready.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Starts confined programs through sandbox servers, started on first use.
pub struct Launcher {
    helper: PathBuf,
    private: Private,
    servers: Mutex<Vec<(Key, Arc<Server>)>>,
}

/// One program to start.
#[derive(Clone, Debug)]
pub struct Program {
    /// Program and arguments (a name without `/` is looked up in `env`'s `PATH`).
    pub argv: Vec<OsString>,
    /// Its working directory.
    pub cwd: PathBuf,
    /// Its whole environment.
    pub env: Vec<(OsString, OsString)>,
    /// Whether Ward writes its standard input (else it reads `/dev/null`).
    pub stdin: bool,
}

/// A started program: its standard streams and its control.
pub struct Launched {
    /// Its standard input, when asked for.
    pub stdin: Option<PipeWriter>,
    /// Its standard output.
    pub stdout: PipeReader,
    /// Its standard error (where the sandbox says why it could not start it).
    pub stderr: PipeReader,
    /// Its exit status, and the way to cancel it.
    pub control: Control,
}

/// The control of one launched program. Dropping it (or [`cancel`](Self::cancel))
/// kills the program and everything it started.
pub struct Control {
    stream: UnixStream,
    _server: Arc<Server>,
}

/// Bytes of the exit status a monitor sends: an `i32`, little-endian.
pub const STATUS_LEN: usize = 4;

/// The exit status in a monitor's answer.
pub fn exit_status(answer: [u8; STATUS_LEN]) -> i32 {
    i32::from_le_bytes(answer)
}

impl Control {
    /// Kills the program (its answer, the exit status, still follows).
    pub fn cancel(&self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Write);
    }

    /// Waits for the exit status (blocking). `None`: the program's monitor went away
    /// without one.
    pub fn wait(&mut self) -> io::Result<Option<i32>> {
        let mut status = [0u8; STATUS_LEN];
        match self.stream.read_exact(&mut status) {
            Ok(()) => Ok(Some(exit_status(status))),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The socket the exit status arrives on (for an async reader), and what must
    /// live as long as it.
    pub fn into_parts(self) -> (UnixStream, KeepAlive) {
        (self.stream, KeepAlive(self._server))
    }
}

/// Keeps a program's server running while its control socket is read elsewhere.
pub struct KeepAlive(#[allow(dead_code)] Arc<Server>);

impl Launcher {
    /// A launcher whose servers run `helper` (`ward-sandbox`, or `ward` itself).
    pub fn new(helper: PathBuf) -> Launcher {
        Launcher {
            helper,
            private: Private::default(),
            servers: Mutex::new(Vec::new()),
        }
    }

    /// This launcher keeping `private` from every program it starts.
    pub fn hiding(mut self, private: Private) -> Launcher {
        self.private = private;
        self
    }

    /// The helper binary its servers run.
    pub fn helper(&self) -> &Path {
        &self.helper
    }

    /// Starts `program` confined by `policy` (blocking: at most a server's start, a few
    /// milliseconds, the first time a setup is used).
    pub fn launch(&self, policy: &Policy, program: &Program) -> Result<Launched, SandboxError> {
        let policy = &self.private.apply(policy);
        let mut program = program.clone();
        program
            .env
            .retain(|(name, _)| !self.private.withholds(name));
        let program = &program;
        let key = Key::of(policy);
        let server = self.server(&key)?;
        match server.launch(policy, program) {
            // The server died (killed from outside): start another, once.
            Err(SandboxError::Spawn(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.forget(&server);
                self.server(&key)?.launch(policy, program)
            }
            other => other,
        }
    }

    /// Starts the server `policy`'s programs will run in, if none is running, without
    /// launching anything (blocking, as [`Launcher::launch`]): done ahead of a first
    /// launch that should not wait for it.
    pub fn prepare(&self, policy: &Policy) -> Result<(), SandboxError> {
        self.server(&Key::of(&self.private.apply(policy)))
            .map(|_| ())
    }

    fn server(&self, key: &Key) -> Result<Arc<Server>, SandboxError> {
        let mut servers = self
            .servers
            .lock()
            .map_err(|_| SandboxError::Spawn(io::Error::other("launcher poisoned")))?;
        if let Some((_, s)) = servers.iter().find(|(k, _)| k == key) {
            return Ok(s.clone());
        }
        let server = Arc::new(Server::start(&self.helper, &key.setup)?);
        // A server for the same paths whose files changed is never used again.
        servers.retain(|(k, _)| k.setup != key.setup);
        if servers.len() >= MAX_SERVERS {
            servers.remove(0);
        }
        servers.push((key.clone(), server.clone()));
        Ok(server)
    }

    fn forget(&self, server: &Arc<Server>) {
        if let Ok(mut servers) = self.servers.lock() {
            servers.retain(|(_, s)| !Arc::ptr_eq(s, server));
        }
    }
}

/// What makes a server reusable: its setup, and the files its mounts cover.
#[derive(Clone, PartialEq, Eq)]
struct Key {
    setup: Setup,
    files: Vec<Option<FileId>>,
}

/// One file's identity: device and inode, and its birth time (its change time where
/// the file system keeps none), since a directory removed and made again often gets
/// the same inode number back.
#[derive(Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
    born: (i64, i64),
}

impl Key {
    fn of(policy: &Policy) -> Key {
        let setup = Setup::of(policy);
        let files = setup
            .read_only
            .iter()
            .chain(&setup.hidden)
            .map(|p| std::fs::metadata(p).ok().map(|m| FileId::of(&m)))
            .collect();
        Key { setup, files }
    }
}

impl FileId {
    fn of(m: &std::fs::Metadata) -> FileId {
        let born = m
            .created()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| (d.as_secs() as i64, i64::from(d.subsec_nanos())))
            .unwrap_or((m.ctime(), m.ctime_nsec()));
        FileId {
            dev: m.dev(),
            ino: m.ino(),
            born,
        }
    }
}

/// One running server.
struct Server {
    socket: OwnedFd,
    process: Mutex<Child>,
}

impl Server {
    fn start(helper: &Path, setup: &Setup) -> Result<Server, SandboxError> {
        let spawn_err = SandboxError::Spawn;
        let (ours, theirs) = rustix::net::socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )
        .map_err(|e| spawn_err(e.into()))?;
        let setup_json = serde_json::to_string(setup).map_err(|e| spawn_err(e.into()))?;
        let child = Command::new(helper)
            .arg(SERVE_ARG)
            .arg(setup_json)
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                spawn_err(io::Error::new(
                    e.kind(),
                    format!("{}: {e}", helper.display()),
                ))
            })?;
        let server = Server {
            socket: ours,
            process: Mutex::new(child),
        };
        rustix::net::sockopt::set_socket_timeout(
            &server.socket,
            rustix::net::sockopt::Timeout::Recv,
            Some(START_TIMEOUT),
        )
        .map_err(|e| spawn_err(e.into()))?;
        let mut answer = [0u8; 4096];
        let n = rustix::net::recv(&server.socket, &mut answer, rustix::net::RecvFlags::empty())
            .map_err(|e| spawn_err(e.into()))?
            .0;
        match answer[..n.min(answer.len())] {
            [READY] => Ok(server),
            [FAILED, ref why @ ..] => Err(SandboxError::Server(
                String::from_utf8_lossy(why).into_owned(),
            )),
            _ => Err(SandboxError::Server(format!(
                "{} did not start as a sandbox server",
                helper.display()
            ))),
        }
    }

    fn launch(
        self: &Arc<Self>,
        policy: &Policy,
        program: &Program,
    ) -> Result<Launched, SandboxError> {
        let io_err = SandboxError::Spawn;
        let (ours, theirs) = rustix::net::socketpair(
            AddressFamily::UNIX,
            SocketType::STREAM,
            SocketFlags::CLOEXEC,
            None,
        )
        .map_err(|e| io_err(e.into()))?;
        let (stdin_read, stdin): (OwnedFd, Option<PipeWriter>) = if program.stdin {
            let (r, w) = io::pipe().map_err(io_err)?;
            (r.into(), Some(w))
        } else {
            (File::open("/dev/null").map_err(io_err)?.into(), None)
        };
        let (stdout, stdout_write) = io::pipe().map_err(io_err)?;
        let (stderr, stderr_write) = io::pipe().map_err(io_err)?;
        let stdout_write: OwnedFd = stdout_write.into();
        let stderr_write: OwnedFd = stderr_write.into();
        send_with_fds(
            &self.socket,
            b"launch",
            &[&theirs, &stdin_read, &stdout_write, &stderr_write],
        )
        .map_err(|e| io_err(io::Error::new(e.kind(), format!("sandbox server: {e}"))))?;
        // Only the program may hold the write ends: its output ends when it does.
        drop((theirs, stdin_read, stdout_write, stderr_write));
        let mut stream = UnixStream::from(ours);
        let request = Request {
            policy: policy.clone(),
            cwd: program.cwd.clone(),
            argv: program.argv.clone(),
            env: program
                .env
                .iter()
                .map(|(k, v)| {
                    let mut kv = k.clone();
                    kv.push("=");
                    kv.push(v);
                    kv
                })
                .collect(),
        };
        request.write_to(&mut stream).map_err(io_err)?;
        Ok(Launched {
            stdin,
            stdout,
            stderr,
            control: Control {
                stream,
                _server: self.clone(),
            },
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Its socket closes with `self.socket` and it exits on its own; the kill only
        // spares the wait for that.
        if let Ok(mut child) = self.process.lock() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
