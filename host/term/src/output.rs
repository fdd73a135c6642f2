//! Writing to the terminal: the only way the `ward` binary prints. Every write is
//! rendered inert whole, so an untrusted value interpolated anywhere in a line cannot
//! act on the terminal, whichever call site forgot to think about it. Ward's own text
//! has no control characters, so rendering a whole line changes only the untrusted
//! parts; values that must stay on one line still go through [`crate::inert_line`]
//! first.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};

use crate::inert;

/// A standard stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output: the command's result.
    Stdout,
    /// Standard error: progress, questions, warnings and errors.
    Stderr,
}

/// Formats `args`, renders it inert and writes it to `stream`, flushed (a question or
/// a streamed answer must show before the next line). Errors are dropped: a reader
/// that went away (`ward … | head`) is no reason to fail or panic.
pub fn write(stream: Stream, args: fmt::Arguments<'_>) {
    let text = match args.as_str() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(args.to_string()),
    };
    let text = inert(&text);
    let _ = match stream {
        Stream::Stdout => write_all(&mut io::stdout().lock(), &text),
        Stream::Stderr => write_all(&mut io::stderr().lock(), &text),
    };
}

/// Whether `stream` is a terminal (where a line may be rewritten in place) rather
/// than a pipe or a file.
pub fn is_terminal(stream: Stream) -> bool {
    use std::io::IsTerminal;
    match stream {
        Stream::Stdout => io::stdout().is_terminal(),
        Stream::Stderr => io::stderr().is_terminal(),
    }
}

/// Replaces the line the cursor is on, on `stream`, with `args` rendered inert on
/// one line, leaving the cursor at its end: a status that changes in place, such as
/// a countdown. Ward's own carriage return and erase-line sequence are written
/// around the inert text; for a terminal only (a pipe would keep every version).
pub fn rewrite_line(stream: Stream, args: fmt::Arguments<'_>) {
    let line = format!("\r\x1b[2K{}", crate::inert_line(&args.to_string()));
    let _ = match stream {
        Stream::Stdout => write_all(&mut io::stdout().lock(), &line),
        Stream::Stderr => write_all(&mut io::stderr().lock(), &line),
    };
}

fn write_all(out: &mut impl Write, text: &str) -> io::Result<()> {
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Standard error for a logger (`tracing_subscriber`'s writer): what is logged —
/// plugin log messages included — is rendered inert before it is written.
#[derive(Clone, Copy, Debug, Default)]
pub struct InertStderr;

impl Write for InertStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // A logger writes each record whole, so no character is split between calls.
        let text = String::from_utf8_lossy(buf);
        io::stderr().lock().write_all(inert(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

/// Like `print!`, rendered inert (see [`write`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write($crate::Stream::Stdout, format_args!($($arg)*))
    };
}

/// Like `println!`, rendered inert (see [`write`]).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::write($crate::Stream::Stdout, format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::write($crate::Stream::Stdout, format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Like `eprint!`, rendered inert (see [`write`]).
#[macro_export]
macro_rules! eout {
    ($($arg:tt)*) => {
        $crate::write($crate::Stream::Stderr, format_args!($($arg)*))
    };
}

/// Like `eprintln!`, rendered inert (see [`write`]).
#[macro_export]
macro_rules! eoutln {
    () => {
        $crate::write($crate::Stream::Stderr, format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::write($crate::Stream::Stderr, format_args!("{}\n", format_args!($($arg)*)))
    };
}
