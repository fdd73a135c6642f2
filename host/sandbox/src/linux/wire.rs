//! What passes between Ward and its sandbox server: the descriptors of one launch over
//! the server's socket, and the launch itself over that launch's control socket.
//!
//! A launch is sent in two parts so that neither has a size limit to negotiate: one
//! `SOCK_SEQPACKET` message to the server carries only the four descriptors (control
//! socket, stdin, stdout, stderr); the forked monitor then reads the request itself —
//! policy, directory, argv, environment — from the control socket as length-prefixed
//! fields, and answers on it with the program's exit status.

use std::ffi::OsString;
use std::io::{self, IoSlice, IoSliceMut, Read, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags,
};

use crate::policy::Policy;

/// Descriptors in one launch message: control, stdin, stdout, stderr.
pub const LAUNCH_FDS: usize = 4;
/// The largest request a monitor accepts (a command line and environment far beyond
/// what `execve` takes).
const MAX_REQUEST: usize = 64 << 20;

/// One program to start, as the monitor receives it.
#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    /// Its confinement (the server already applied the mount and network parts).
    pub policy: Policy,
    /// Its working directory.
    pub cwd: PathBuf,
    /// Program and arguments (`argv[0]` is the program, looked up in `PATH`).
    pub argv: Vec<OsString>,
    /// Its whole environment, as `NAME=value`.
    pub env: Vec<OsString>,
}

impl Request {
    /// Writes the request to `out`: counts, then every field with its length.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let policy = serde_json::to_vec(&self.policy).map_err(io::Error::other)?;
        let mut buf = Vec::new();
        put(&mut buf, &(self.argv.len() as u32).to_le_bytes());
        put(&mut buf, &(self.env.len() as u32).to_le_bytes());
        put(&mut buf, &policy);
        put(&mut buf, self.cwd.as_os_str().as_bytes());
        for field in self.argv.iter().chain(&self.env) {
            put(&mut buf, field.as_bytes());
        }
        out.write_all(&(buf.len() as u64).to_le_bytes())?;
        out.write_all(&buf)
    }

    /// Reads a request written by [`write_to`](Self::write_to).
    pub fn read_from(input: &mut impl Read) -> io::Result<Request> {
        let mut len = [0u8; 8];
        input.read_exact(&mut len)?;
        let len = usize::try_from(u64::from_le_bytes(len)).unwrap_or(usize::MAX);
        if len > MAX_REQUEST {
            return Err(invalid("request too large"));
        }
        let mut buf = vec![0u8; len];
        input.read_exact(&mut buf)?;
        let mut fields = Fields(&buf);
        let argc = fields.count()?;
        let envc = fields.count()?;
        let policy = serde_json::from_slice(fields.next()?)
            .map_err(|e| invalid(&format!("invalid sandbox policy: {e}")))?;
        let cwd = PathBuf::from(OsString::from_vec(fields.next()?.to_vec()));
        let mut take = |n: usize| -> io::Result<Vec<OsString>> {
            (0..n)
                .map(|_| Ok(OsString::from_vec(fields.next()?.to_vec())))
                .collect()
        };
        let argv = take(argc)?;
        let env = take(envc)?;
        if argv.is_empty() {
            return Err(invalid("no program"));
        }
        Ok(Request {
            policy,
            cwd,
            argv,
            env,
        })
    }
}

fn put(buf: &mut Vec<u8>, field: &[u8]) {
    buf.extend_from_slice(&(field.len() as u32).to_le_bytes());
    buf.extend_from_slice(field);
}

/// Length-prefixed fields of a request body.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn next(&mut self) -> io::Result<&'a [u8]> {
        let (len, rest) = self
            .0
            .split_first_chunk::<4>()
            .ok_or_else(|| invalid("truncated request"))?;
        let len = u32::from_le_bytes(*len) as usize;
        if rest.len() < len {
            return Err(invalid("truncated request"));
        }
        let (field, rest) = rest.split_at(len);
        self.0 = rest;
        Ok(field)
    }

    fn count(&mut self) -> io::Result<usize> {
        let n: [u8; 4] = self.next()?.try_into().map_err(|_| invalid("bad count"))?;
        Ok(u32::from_le_bytes(n) as usize)
    }
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// Sends `payload` with `fds` as one message on a `SOCK_SEQPACKET` socket.
pub fn send_with_fds(socket: impl AsFd, payload: &[u8], fds: &[&OwnedFd]) -> io::Result<()> {
    let borrowed: Vec<_> = fds.iter().map(|f| f.as_fd()).collect();
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(LAUNCH_FDS))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !control.push(SendAncillaryMessage::ScmRights(&borrowed)) {
        return Err(invalid("too many descriptors"));
    }
    rustix::net::sendmsg(
        socket,
        &[IoSlice::new(payload)],
        &mut control,
        SendFlags::NOSIGNAL,
    )?;
    Ok(())
}

/// Receives one message and the descriptors sent with it (close-on-exec). An empty
/// payload with no descriptors means the other end is gone.
pub fn recv_with_fds(socket: impl AsFd, payload: &mut [u8]) -> io::Result<(usize, Vec<OwnedFd>)> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(LAUNCH_FDS))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let msg = rustix::net::recvmsg(
        socket,
        &mut [IoSliceMut::new(payload)],
        &mut control,
        RecvFlags::CMSG_CLOEXEC,
    )?;
    let mut fds = Vec::new();
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(received) = message {
            fds.extend(received);
        }
    }
    Ok((msg.bytes, fds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Mode;

    #[test]
    fn a_request_survives_the_wire() {
        let req = Request {
            policy: Policy::for_commands(
                Mode::WorkspaceWrite,
                std::path::Path::new("/p"),
                std::path::Path::new("/tmp"),
                &[],
                &[],
                &[],
                false,
            ),
            cwd: PathBuf::from("/p/sub dir"),
            argv: vec!["/bin/sh".into(), "-c".into(), "echo 'ü'\n".into()],
            env: vec!["A=1".into(), OsString::from_vec(b"B=\xff".to_vec())],
        };
        let mut buf = Vec::new();
        req.write_to(&mut buf).unwrap();
        assert_eq!(Request::read_from(&mut buf.as_slice()).unwrap(), req);
        for cut in [0, 3, 9, buf.len() - 1] {
            assert!(
                Request::read_from(&mut &buf[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        let mut huge = (u64::MAX).to_le_bytes().to_vec();
        huge.extend_from_slice(&buf[8..]);
        assert!(Request::read_from(&mut huge.as_slice()).is_err());
    }
}
