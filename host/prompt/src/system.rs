//! [`SystemPrompt`]: the layers assembled into provider system blocks, with
//! the expensive parts cached for a short interval.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use ward_provider::SystemBlock;

use crate::ahead::EnvironmentAhead;
use crate::base::Family;
use crate::instructions::{self, Instruction, Sources};
use crate::{env, paths, skills};

/// How long cached parts (git status, file tree, instruction files) are
/// reused before [`SystemPrompt::blocks`] recomputes them.
pub const DEFAULT_REFRESH_INTERVAL: Duration = Duration::from_secs(5);

/// Everything the system prompt is built from.
#[derive(Debug, Clone)]
pub struct PromptInputs {
    /// The working directory: Ward's project root. The environment block,
    /// the file tree, git status and the `AGENTS.md` walk start here.
    pub project: PathBuf,
    /// Provider name from the configuration (e.g. `anthropic`, `local`);
    /// used to pick the base prompt when the model id says nothing.
    pub provider: String,
    /// Model id (e.g. `claude-sonnet-4-5`, `gpt-5`, `qwen3-coder`).
    pub model: String,
    /// The agent's own prompt; replaces the family's base prompt when set.
    pub agent_prompt: Option<String>,
    /// The `instructions` entries of the configuration: paths or globs,
    /// relative to `project` unless absolute or starting with `~/`.
    pub instructions: Vec<String>,
    /// Skills available to the agent, as (name, description).
    pub skills: Vec<(String, String)>,
    /// Directory of the global `AGENTS.md`; see [`default_global_dir`](crate::default_global_dir).
    pub global_dir: Option<PathBuf>,
    /// Home directory, for `~/` in `instructions` and as the stop point of
    /// the `AGENTS.md` walk outside a git repository.
    pub home: Option<PathBuf>,
    /// How long cached parts are reused; see [`DEFAULT_REFRESH_INTERVAL`].
    pub refresh_interval: Duration,
    /// The environment block already being computed, taken by the first computation.
    pub environment_ahead: Option<Arc<EnvironmentAhead>>,
    /// The project is not trusted: an instruction file inside it that resolves
    /// outside it (a symlink to `~/.ssh/id_ed25519`) is not read.
    pub confine_to_project: bool,
}

impl PromptInputs {
    /// Inputs with no agent prompt, instructions or skills; the global
    /// directory and home come from the process environment and the refresh
    /// interval is [`DEFAULT_REFRESH_INTERVAL`].
    pub fn new(project: impl Into<PathBuf>, provider: &str, model: &str) -> Self {
        Self {
            project: project.into(),
            provider: provider.to_owned(),
            model: model.to_owned(),
            agent_prompt: None,
            instructions: Vec::new(),
            skills: Vec::new(),
            global_dir: paths::default_global_dir(),
            home: std::env::home_dir(),
            refresh_interval: DEFAULT_REFRESH_INTERVAL,
            environment_ahead: None,
            confine_to_project: false,
        }
    }
}

/// The parts computed on refresh.
struct Cached {
    at: Instant,
    /// Layer 1, instructions and skills.
    stable: String,
    /// The environment block.
    environment: String,
    instructions: Vec<Instruction>,
    /// git status timed out; automatic refreshes skip it from then on.
    git_timed_out: bool,
}

/// The system prompt of one agent in one project, recomputed per call from
/// cached parts. `Send + Sync`: share it behind an `Arc`.
pub struct SystemPrompt {
    inputs: PromptInputs,
    family: Family,
    cached: Mutex<Option<Cached>>,
}

impl SystemPrompt {
    /// A prompt for `inputs`. Nothing is read until the first use.
    pub fn new(inputs: PromptInputs) -> Self {
        let family = Family::detect(&inputs.provider, &inputs.model);
        Self {
            inputs,
            family,
            cached: Mutex::new(None),
        }
    }

    /// The project the prompt describes.
    pub fn project(&self) -> &Path {
        &self.inputs.project
    }

    /// The model family detected from the inputs.
    pub fn family(&self) -> Family {
        self.family
    }

    /// The system blocks for one model call, in order:
    ///
    /// 1. the stable block (`cache: true`): the agent's prompt or the
    ///    family's base prompt, the instruction files, the skills list;
    /// 2. the environment (`cache: false`): directory, platform, date, git
    ///    status, file tree;
    /// 3. `user_system`, the user message's own system text, when present
    ///    and not blank (`cache: false`).
    ///
    /// Cached parts older than the refresh interval are recomputed first,
    /// under the lock: concurrent callers wait for one computation.
    pub fn blocks(&self, user_system: Option<&str>) -> Vec<SystemBlock> {
        let mut blocks = self.with_fresh(|cached| {
            vec![
                SystemBlock {
                    text: cached.stable.clone(),
                    cache: true,
                },
                SystemBlock {
                    text: cached.environment.clone(),
                    cache: false,
                },
            ]
        });
        if let Some(text) = user_system.filter(|text| !text.trim().is_empty()) {
            blocks.push(SystemBlock {
                text: text.to_owned(),
                cache: false,
            });
        }
        blocks
    }

    /// Recomputes the cached parts now. This also retries git status after
    /// it timed out (automatic refreshes stop running it then, so a hung git
    /// costs one timeout, not one per refresh).
    pub fn refresh(&self) {
        let mut cached = self.cached.lock().unwrap_or_else(PoisonError::into_inner);
        *cached = Some(self.compute(true));
    }

    /// The instruction files the prompt includes, as read (for
    /// [`NestedInstructions`](crate::NestedInstructions) to skip them).
    pub fn loaded_instructions(&self) -> Vec<PathBuf> {
        self.with_fresh(|cached| {
            cached
                .instructions
                .iter()
                .map(|file| file.path.clone())
                .collect()
        })
    }

    /// Runs `f` on the cached parts, refreshing them first when stale.
    fn with_fresh<T>(&self, f: impl FnOnce(&Cached) -> T) -> T {
        let mut guard = self.cached.lock().unwrap_or_else(PoisonError::into_inner);
        let stale = guard
            .as_ref()
            .is_none_or(|cached| cached.at.elapsed() >= self.inputs.refresh_interval);
        if stale {
            let run_git = guard.as_ref().is_none_or(|cached| !cached.git_timed_out);
            *guard = Some(self.compute(run_git));
        }
        f(guard.get_or_insert_with(|| self.compute(true)))
    }

    /// Reads everything; git status only when `run_git`.
    fn compute(&self, run_git: bool) -> Cached {
        let inputs = &self.inputs;
        let instructions = instructions::collect(&Sources {
            project: &inputs.project,
            global_dir: inputs.global_dir.as_deref(),
            home: inputs.home.as_deref(),
            patterns: &inputs.instructions,
            confine: inputs.confine_to_project,
        });

        let layer1 = inputs
            .agent_prompt
            .as_deref()
            .filter(|prompt| !prompt.trim().is_empty())
            .unwrap_or(self.family.base_prompt());
        let mut stable = layer1.trim_end().to_owned();
        for file in instructions.iter().filter(|f| !f.text.trim().is_empty()) {
            stable.push_str("\n\n");
            stable.push_str(&file.render());
        }
        if let Some(skills) = skills::render(&inputs.skills) {
            stable.push_str("\n\n");
            stable.push_str(&skills);
        }

        let ahead = inputs
            .environment_ahead
            .as_ref()
            .filter(|_| run_git)
            .and_then(|ahead| ahead.take(&inputs.project));
        if let Some(ahead) = ahead {
            return Cached {
                at: ahead.at,
                stable,
                environment: ahead.environment,
                instructions,
                git_timed_out: ahead.git_timed_out,
            };
        }
        let (environment, timed_out) = env::render(&inputs.project, run_git);
        Cached {
            at: Instant::now(),
            stable,
            environment,
            instructions,
            git_timed_out: timed_out || !run_git,
        }
    }
}
