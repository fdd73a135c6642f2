//! What the `bash` rules are asked about one command line.
//!
//! Owns the decision semantics on top of [`analyze`]: an understood command is
//! one pattern per simple command, each of which must be allowed, and "always"
//! stores each one's prefix by arity. A command the analysis is unsure about is
//! one pattern, the whole command behind [`UNSURE_MARK`], which no prefix rule or
//! prefix approval can match; a guard rule appended after every layer makes it an
//! ask even under `* = allow`, a deny rule matching the whole command or any part
//! still denies, and "always" stores the exact command (or nothing, when `*` or
//! `?` in it would make the stored pattern match more than itself).

use crate::evaluate::{Decision, evaluate_all};
use crate::rule::{Action, Rule, Ruleset};

use super::always_pattern;
use super::analyze::{CommandAnalysis, Redirect, Unsure, analyze};

/// Put before an unsure command's text in its pattern: no always-pattern starts
/// with it (a program name holding `[` is itself unsure), so only the guard rule
/// and an exact stored approval ever match such a pattern.
pub const UNSURE_MARK: &str = "[unchecked] ";

/// Where the guard rule of an unsure command comes from, as shown in explanations.
const GUARD_SOURCE: &str = "shell command the checker cannot analyse";

/// Characters after which another shell could start a new command or word.
const SEPARATORS: &str = ";&|(){}<>`$'\"\\";

/// Tails of an unsure command probed for deny rules; bounds the cost on huge
/// input (past it, such a command is still asked about, just not denied outright).
const MAX_TAILS: usize = 2_000;

/// Bytes of each tail probed: a deny rule names a command by its first words.
const MAX_TAIL_BYTES: usize = 4_096;

/// The permission shell commands are checked under.
const BASH: &str = "bash";

/// A command line, analysed and turned into `bash` patterns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BashQuestion {
    /// The command line as given.
    pub command: String,
    /// What the parser found.
    pub analysis: CommandAnalysis,
    /// The patterns to check, all of which must be allowed.
    pub patterns: Vec<String>,
    /// The patterns an "always" answer stores.
    pub always: Vec<String>,
}

impl BashQuestion {
    /// Analyses `command` and derives its patterns.
    pub fn new(command: &str) -> Self {
        let analysis = analyze(command);
        let (patterns, always) = if analysis.unsure.is_some() {
            let whole = format!("{UNSURE_MARK}{}", command.trim());
            let always = if whole.contains(['*', '?']) {
                Vec::new()
            } else {
                vec![whole.clone()]
            };
            (vec![whole], always)
        } else {
            let mut patterns = Vec::new();
            let mut always = Vec::new();
            for command in &analysis.commands {
                if !command.assignments.is_empty() {
                    // Only a rule written for the assignments allows them; the bare
                    // command is checked too, so its deny rules still apply.
                    let full = format!("{} {}", command.assignments.join(" "), command.text);
                    if !full.contains(['*', '?']) {
                        always.push(full.clone());
                    }
                    patterns.push(full);
                }
                always.push(always_pattern(&command.text));
                patterns.push(command.text.clone());
            }
            (patterns, always)
        };
        BashQuestion {
            command: command.to_string(),
            analysis,
            patterns,
            always,
        }
    }

    /// Why the command is asked about as a whole, if it is.
    pub fn unsure(&self) -> Option<&Unsure> {
        self.analysis.unsure.as_ref()
    }

    /// Whether there is nothing to run (empty, blanks or only comments).
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// The simple commands' rule texts without their assignments (for an unsure
    /// command, those found before the analysis gave up).
    pub fn commands(&self) -> impl Iterator<Item = &str> {
        self.analysis.commands.iter().map(|c| c.text.as_str())
    }

    /// The files the command's redirections open.
    pub fn redirects(&self) -> &[Redirect] {
        &self.analysis.redirects
    }

    /// For an unsure command, the deny that refuses it before any question: a
    /// deny rule matching the whole command, any simple command found in it, or
    /// any tail of it that starts after a separator — what another shell might
    /// run as a command of its own (`ls &>/dev/null rm -rf x` is `rm -rf x` to
    /// dash). Understood commands need no such check, their patterns are the parts.
    pub fn denied<'a>(&self, layers: &'a [Ruleset]) -> Option<Decision<'a>> {
        self.unsure()?;
        let whole = self.command.trim();
        let mut probes: Vec<String> = vec![whole.to_string()];
        probes.extend(self.commands().map(str::to_string));
        probes.extend(
            whole
                .char_indices()
                .filter(|&(_, c)| c.is_whitespace() || SEPARATORS.contains(c))
                .map(|(i, c)| whole[i + c.len_utf8()..].trim_start())
                .filter(|tail| !tail.is_empty())
                .take(MAX_TAILS)
                .map(|tail| {
                    let end = (0..=MAX_TAIL_BYTES.min(tail.len()))
                        .rev()
                        .find(|&i| tail.is_char_boundary(i))
                        .unwrap_or(0);
                    tail[..end].to_string()
                }),
        );
        let decision = evaluate_all(BASH, &probes, layers);
        (decision.action == Action::Deny).then_some(decision)
    }

    /// `layers` as the `bash` patterns must be checked against: for an unsure
    /// command, followed by the guard layer that turns any allow of its pattern
    /// into an ask (stored approvals, consulted after the layers, may still allow
    /// the exact command).
    pub fn layers(&self, layers: &[Ruleset]) -> Vec<Ruleset> {
        let mut out = layers.to_vec();
        if self.unsure().is_some() {
            let pattern = format!("{UNSURE_MARK}*");
            out.push(Ruleset::new(
                GUARD_SOURCE,
                vec![Rule::new(BASH, &pattern, Action::Ask)],
            ));
        }
        out
    }

    /// The decision without stored approvals: [`denied`](Self::denied) first, then
    /// the patterns against [`layers`](Self::layers).
    pub fn evaluate(&self, layers: &[Ruleset]) -> Action {
        if self.denied(layers).is_some() {
            return Action::Deny;
        }
        evaluate_all(BASH, &self.patterns, &self.layers(layers)).action
    }
}
