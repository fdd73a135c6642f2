//! Syntax highlighting of code blocks with `syntect`'s default syntaxes and themes,
//! done entirely on a thread of its own ([`start`]): loading the syntaxes, and each
//! language's first use (tens of milliseconds compiling its patterns), never run on
//! the keystroke path — and never in `ward run`, which does not start the UI. A
//! frame asks for a block ([`lookup`]); until the worker has answered, the block is
//! drawn plain, and the worker's signal makes the UI draw again.
//!
//! What is highlighted is untrusted: each highlighted piece is made inert
//! ([`crate::safe::line`]) before it becomes a cell, so a code block cannot smuggle
//! an escape sequence through the highlighter.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use ratatui::style::{Color, Style};
use ratatui::text::Span;
use syntect::easy::HighlightLines;
use syntect::highlighting::{Theme, ThemeSet};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::safe;

/// The theme code is coloured with (one of syntect's defaults, for a dark terminal).
const THEME: &str = "base16-ocean.dark";

/// Highlighted blocks kept before the oldest are dropped (a block streaming in is
/// asked for once per version of its text).
const KEPT: usize = 256;

/// A block's lines of coloured, inert spans.
pub type Lines = Arc<Vec<Vec<Span<'static>>>>;

/// The worker's side shared with the frames.
struct Worker {
    jobs: Mutex<Sender<(u64, String, String)>>,
    /// Answers by block: `None` when the language is unknown.
    done: Mutex<HashMap<u64, Option<Lines>>>,
    asked: Mutex<HashSet<u64>>,
    /// Answers so far: a rendering made before the last one may be stale.
    answers: AtomicU64,
}

static WORKER: OnceLock<Worker> = OnceLock::new();

/// Starts the worker; the receiver gets a signal each time it has something new
/// to show (the first when it has loaded, with the milliseconds that took).
pub fn start() -> UnboundedReceiver<u64> {
    let (signal, signals) = unbounded_channel();
    let (jobs, queue) = channel::<(u64, String, String)>();
    let worker = Worker {
        jobs: Mutex::new(jobs),
        done: Mutex::new(HashMap::new()),
        asked: Mutex::new(HashSet::new()),
        answers: AtomicU64::new(0),
    };
    if WORKER.set(worker).is_err() {
        // Started already (one UI per process): its signals go to the first caller.
        return signals;
    }
    std::thread::spawn(move || {
        let started = Instant::now();
        let loaded = load();
        let took = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let _ = signal.send(took);
        while let Ok((key, lang, code)) = queue.recv() {
            // A highlighter bug on some input costs that block its colours, not the
            // worker (and with it every later block).
            let lines = std::panic::catch_unwind(|| {
                loaded
                    .as_ref()
                    .and_then(|(syntaxes, theme)| highlight(syntaxes, theme, &lang, &code))
            })
            .ok()
            .flatten();
            answer(key, lines, &signal);
        }
    });
    signals
}

fn answer(key: u64, lines: Option<Lines>, signal: &UnboundedSender<u64>) {
    let Some(worker) = WORKER.get() else { return };
    if let Ok(mut done) = worker.done.lock() {
        if done.len() >= KEPT {
            done.clear();
            if let Ok(mut asked) = worker.asked.lock() {
                asked.clear();
            }
        }
        done.insert(key, lines);
    }
    worker.answers.fetch_add(1, Ordering::Release);
    let _ = signal.send(0);
}

/// How many blocks the worker has answered: part of a rendering's cache key.
pub fn answers() -> u64 {
    WORKER
        .get()
        .map_or(0, |w| w.answers.load(Ordering::Acquire))
}

/// `code` in language `lang` (a fence's info word: `rust`, `py`, …) highlighted,
/// if the worker has done it; otherwise it is asked to and `None` is returned
/// (draw it plain for now), as it is for an unknown language.
pub fn lookup(lang: &str, code: &str) -> Option<Lines> {
    let worker = WORKER.get()?;
    let mut hasher = DefaultHasher::new();
    (lang, code).hash(&mut hasher);
    let key = hasher.finish();
    if let Some(answer) = worker.done.lock().ok()?.get(&key) {
        return answer.clone();
    }
    if worker.asked.lock().ok()?.insert(key) {
        let _ = worker
            .jobs
            .lock()
            .ok()?
            .send((key, lang.to_string(), code.to_string()));
    }
    None
}

/// Loads syntect's bundled syntaxes and the theme; `None` if the theme is missing.
fn load() -> Option<(SyntaxSet, Theme)> {
    let syntaxes = SyntaxSet::load_defaults_newlines();
    let theme = ThemeSet::load_defaults().themes.remove(THEME)?;
    Some((syntaxes, theme))
}

/// `code` as coloured, inert spans; `None` for an unknown language or a failure.
fn highlight(syntaxes: &SyntaxSet, theme: &Theme, lang: &str, code: &str) -> Option<Lines> {
    let syntax = syntaxes.find_syntax_by_token(lang)?;
    let mut lines = HighlightLines::new(syntax, theme);
    let mut out = Vec::new();
    for line in LinesWithEndings::from(code) {
        let pieces = lines.highlight_line(line, syntaxes).ok()?;
        let spans = pieces
            .into_iter()
            .filter_map(|(style, text)| {
                let text = text.trim_end_matches(['\n', '\r']);
                if text.is_empty() {
                    return None;
                }
                let fg = style.foreground;
                Some(Span::styled(
                    safe::line(text),
                    Style::default().fg(Color::Rgb(fg.r, fg.g, fg.b)),
                ))
            })
            .collect();
        out.push(spans);
    }
    Some(Arc::new(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_rust_off_the_caller_and_keeps_escapes_inert() {
        let mut signals = start();
        // The figures the README quotes come from here (`--nocapture`).
        let loaded = signals.blocking_recv().unwrap();
        println!("syntect load: {loaded} ms");
        let code = "fn main() {\n    let s = \"\x1b]0;pwned\x07\";\n}\n";
        let asked = Instant::now();
        assert!(lookup("rust", code).is_none(), "answered on the caller");
        // Other tests' blocks may be answered meanwhile: wait for this one.
        let lines = loop {
            signals.blocking_recv().unwrap();
            if let Some(lines) = lookup("rust", code) {
                break lines;
            }
        };
        println!("first rust block, on the worker: {:?}", asked.elapsed());
        assert_eq!(lines.len(), 3);
        let colours: HashSet<_> = lines.iter().flatten().map(|s| s.style.fg).collect();
        assert!(colours.len() > 2, "{colours:?}");
        for span in lines.iter().flatten() {
            assert!(!span.content.chars().any(char::is_control), "{span:?}");
        }
        let text: String = lines[1].iter().map(|s| s.content.as_ref()).collect();
        assert!(text.contains("\\x1b]0;pwned\\x07"), "{text}");
        assert!(lookup("no-such-language", "x").is_none());
        // Answered (as unknown) rather than still waiting.
        let answered = || {
            let mut hasher = DefaultHasher::new();
            ("no-such-language", "x").hash(&mut hasher);
            let key = hasher.finish();
            WORKER
                .get()
                .unwrap()
                .done
                .lock()
                .unwrap()
                .contains_key(&key)
        };
        while !answered() {
            signals.blocking_recv().unwrap();
        }
        assert!(lookup("no-such-language", "x").is_none());
        assert!(answers() >= 2);
    }
}
