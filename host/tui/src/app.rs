//! The UI's event loop. It waits on three things — the terminal's input, the
//! engine's events and the prompts it sent finishing — and draws a frame only when
//! one of them changed something (plus a tick while the agent works, for the
//! spinner): an idle UI does no work at all.
//!
//! Keys: Enter sends the prompt (typed while the agent works, it joins the running
//! loop, as in the line mode); Esc, or Ctrl-C, stops a running turn; Ctrl-C on an
//! idle prompt, Ctrl-D or `/exit` leaves; PageUp/PageDown, Up/Down and the mouse
//! wheel scroll back;
//! Tab / Shift-Tab switch the primary agent (build, plan); Ctrl-O expands or
//! collapses the newest tool's output; Ctrl-T shows or hides the model's reasoning.

use std::cell::Cell;
use std::collections::VecDeque;
use std::time::Duration;

use crossterm::event::{
    Event as TermEvent, EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind,
};
use futures_util::StreamExt;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::task::JoinSet;
use ward_engine::{Engine, EngineError, Event, PromptRequest, Reply, Session};

use crate::conversation::Conversation;
use crate::dialog::{Key, Open, Step};
use crate::error::TuiError;
use crate::input::Input;
use crate::slash::{self, Catalog};
use crate::terminal::Screen;

/// Lines one notch of the mouse wheel scrolls.
const WHEEL: usize = 3;

/// How often the spinner turns while the agent works.
const TICK: Duration = Duration::from_millis(120);

/// How the UI addresses its prompts.
pub struct Options {
    /// Every prompt's addressing (model, system text, steps, variant); its text is
    /// what is typed and its agent the one selected (starting with this one's, else
    /// the session's).
    pub request: PromptRequest,
    /// Answer permission asks "once" without a dialog — except those `--yes` never
    /// answers (a change to Ward's configuration, a command leaving the sandbox).
    pub yes: bool,
    /// Shown first, as notes (what went wrong opening the project).
    pub notices: Vec<String>,
}

/// Everything a frame shows.
pub struct State {
    /// The session shown, prompts go to.
    pub session: Session,
    /// Every `/command` that can be typed.
    pub catalog: Catalog,
    /// The conversation.
    pub conv: Conversation,
    /// The prompt being typed.
    pub input: Input,
    /// The open dialog's line (a rejection's reason, an answer).
    pub answer: Input,
    /// The session or model picker, while open.
    pub(crate) picker: Option<crate::picker::Picker>,
    /// The subagents, for `@` completion.
    pub(crate) subagents: Vec<String>,
    /// The project's files as last walked, for `@` completion.
    pub(crate) files: Vec<String>,
    /// Whether an `@` word is being typed (its walk started).
    pub(crate) mentioning: bool,
    /// Commands waiting for the agent to finish (`/undo`, `/redo`).
    pub(crate) deferred: VecDeque<crate::slash::Builtin>,
    /// Asks and questions waiting, the head on screen.
    pub open: VecDeque<Open>,
    /// The agent prompts go to.
    pub agent: String,
    /// The primary agents Tab cycles through (visible ones, by name).
    pub(crate) agents: Vec<String>,
    /// The model prompts go to, until one answers.
    pub model: String,
    /// The model `/models` chose, if one was.
    pub model_choice: Option<String>,
    /// The model's context window, if known.
    pub window: Option<u64>,
    /// The model's answers as rendered markdown, kept between frames.
    pub(crate) markdown: crate::markdown::Cache,
    /// Whether the model's reasoning is shown in full (else one row each).
    pub thinking: bool,
    /// Lines scrolled back from the newest (clamped when drawn).
    pub scroll: Cell<usize>,
    /// The conversation's height at the last frame (a page, for PageUp).
    pub page: Cell<usize>,
    /// Ticks so far (the spinner's frame).
    pub frame: usize,
    /// Prompts sent and not finished.
    pub(crate) running: usize,
    /// Set to leave.
    pub(crate) quit: bool,
    /// The session `/new` made, while it is the one shown: left without a prompt (for
    /// another session, or on leaving), it is not kept.
    pub(crate) made: Option<String>,
}

impl State {
    /// The state for `session` before anything happened.
    fn new(engine: &Engine, session: &Session, options: &Options) -> State {
        let model = engine.resolve_model(options.request.model.as_deref()).ok();
        let agents = engine.agents();
        State {
            session: session.clone(),
            catalog: Catalog::new(engine),
            conv: Conversation::new(&session.id),
            input: Input::default(),
            answer: Input::default(),
            picker: None,
            subagents: agents
                .iter()
                .filter(|a| a.is_subagent() && !a.hidden)
                .map(|a| a.name.clone())
                .collect(),
            files: Vec::new(),
            mentioning: false,
            deferred: VecDeque::new(),
            open: VecDeque::new(),
            agent: options
                .request
                .agent
                .clone()
                .unwrap_or_else(|| session.agent.clone()),
            agents: agents
                .iter()
                .filter(|a| a.is_primary() && !a.hidden)
                .map(|a| a.name.clone())
                .collect(),
            model: model
                .as_ref()
                .map(|m| format!("{}/{}", m.provider, m.model))
                .unwrap_or_default(),
            model_choice: None,
            window: model.and_then(|m| m.context),
            markdown: crate::markdown::Cache::default(),
            thinking: false,
            scroll: Cell::new(0),
            page: Cell::new(0),
            frame: 0,
            running: 0,
            quit: false,
            made: None,
        }
    }

    /// Whether a turn runs.
    pub fn working(&self) -> bool {
        self.conv.busy || self.running > 0
    }

    /// Shows what `session` already holds (a continued session), up to its revert
    /// point: what `/undo` hid from the model is not shown either.
    pub(crate) fn load_history(&mut self, engine: &Engine) -> Result<(), TuiError> {
        let hidden = self.session.revert.as_ref().map(|r| r.message_id.clone());
        for message in engine.messages(&self.session.id)? {
            if hidden.as_deref() == Some(message.info.id()) {
                break;
            }
            self.conv
                .apply(&Event::MessageUpdated { info: message.info });
            for part in message.parts {
                self.conv.apply(&Event::PartUpdated { part });
            }
        }
        Ok(())
    }
}

/// How a job run in the background (a prompt, a compaction, an undo) ended.
pub(crate) enum Done {
    /// A prompt or a compaction: what went wrong, if anything.
    Prompt(Option<EngineError>),
    /// An undo or a redo: what it did, or what went wrong. Either way the session
    /// is shown again from the store, whose revert point it may have moved.
    Revert(Result<String, EngineError>),
}

/// What the loop works with besides the state.
pub(crate) struct Ctx<'a> {
    /// The engine.
    pub(crate) engine: &'a Engine,
    /// How prompts are addressed.
    pub(crate) options: &'a Options,
    /// Prompts, compactions, undos running: each ends with how it went.
    pub(crate) prompts: &'a mut JoinSet<Done>,
    /// Where a walk of the project's files (for `@` completion) sends them.
    pub(crate) walks: &'a UnboundedSender<Vec<String>>,
}

/// Runs the UI on the terminal until the user leaves.
pub async fn run(engine: Engine, session: Session, options: Options) -> Result<(), TuiError> {
    let mut bus = engine.subscribe();
    // Questions are answered here while the UI runs; dropped, they are dismissed.
    let answerer = engine.question_answerer();
    let mut state = State::new(&engine, &session, &options);
    state.load_history(&engine)?;
    for notice in &options.notices {
        state.conv.notice(format!("warning: {notice}"));
    }
    let mut prompts = JoinSet::new();
    let mut screen = Screen::enter()?;
    let mut keys = EventStream::new();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // Code blocks are highlighted on a thread of their own; each answer it gives
    // is a reason to draw again.
    let mut highlighted = crate::highlight::start();
    // Cleared if the worker ever goes away: a closed channel answers at once, and
    // polling it again would spin.
    let mut highlighter_up = true;
    let (walks, mut walked) = unbounded_channel();
    let mut dirty = true;
    let result = loop {
        if dirty {
            if let Err(e) = screen.terminal.draw(|f| crate::view::draw(f, &state)) {
                break Err(e.into());
            }
            dirty = false;
        }
        if state.quit {
            break Ok(());
        }
        if !state.working()
            && let Some(command) = state.deferred.pop_front()
        {
            let mut ctx = Ctx {
                engine: &engine,
                options: &options,
                prompts: &mut prompts,
                walks: &walks,
            };
            state.builtin(command, &mut ctx);
            dirty = true;
            continue;
        }
        tokio::select! {
            key = keys.next() => match key {
                Some(Ok(event)) => {
                    let mut ctx = Ctx {
                        engine: &engine,
                        options: &options,
                        prompts: &mut prompts,
                        walks: &walks,
                    };
                    dirty |= state.terminal_event(event, &mut ctx);
                }
                Some(Err(e)) => break Err(e.into()),
                // The terminal is gone: nobody is left to type.
                None => break Ok(()),
            },
            event = bus.recv() => {
                match event {
                    Ok(event) => dirty |= state.engine_event(event, &engine, &options),
                    Err(RecvError::Lagged(_)) => dirty = true,
                    Err(RecvError::Closed) => break Ok(()),
                }
                // What else arrived goes into the same frame.
                loop {
                    match bus.try_recv() {
                        Ok(event) => dirty |= state.engine_event(event, &engine, &options),
                        Err(TryRecvError::Lagged(_)) => {}
                        Err(_) => break,
                    }
                }
            }
            Some(done) = prompts.join_next(), if !prompts.is_empty() => {
                state.running = state.running.saturating_sub(1);
                match done {
                    Ok(Done::Prompt(Some(e))) => state.conv.notice(format!("error: {e}")),
                    Ok(Done::Revert(outcome)) => state.reverted(outcome, &engine),
                    _ => {}
                }
                dirty = true;
            }
            signal = highlighted.recv(), if highlighter_up => match signal {
                Some(_) => dirty = true,
                None => highlighter_up = false,
            },
            Some(files) = walked.recv() => {
                state.files = files;
                dirty = true;
            }
            _ = tick.tick(), if state.working() => {
                state.frame = state.frame.wrapping_add(1);
                dirty = true;
            }
        }
    };
    for open in state.open.drain(..) {
        open.dismiss(&engine);
    }
    drop(answerer);
    engine.abort(&state.session.id);
    drop(screen);
    while prompts.join_next().await.is_some() {}
    if let Some(made) = state.made.take() {
        let _ = engine.discard_if_empty(&made);
    }
    result
}

impl State {
    /// Folds an engine event in; whether the frame changed.
    fn engine_event(&mut self, event: Event, engine: &Engine, options: &Options) -> bool {
        match event {
            Event::PermissionAsked { id, request } => {
                if options.yes && !Engine::needs_a_person(&request) {
                    let _ = engine.reply(&id, Reply::Once);
                    return false;
                }
                self.open.push_back(Open::Ask {
                    id,
                    request: Box::new(request),
                    feedback: false,
                });
                true
            }
            Event::QuestionAsked { request } => {
                self.open.push_back(Open::Question {
                    request,
                    answers: Vec::new(),
                });
                true
            }
            Event::PermissionReplied { id, .. }
            | Event::QuestionReplied { id, .. }
            | Event::QuestionRejected { id, .. } => {
                let before = self.open.len();
                let head = self.open.front().is_some_and(|o| o.id() == id);
                self.open.retain(|open| open.id() != id);
                if head {
                    self.answer.take();
                }
                self.open.len() != before
            }
            event => self.conv.apply(&event),
        }
    }

    /// Handles the terminal's input; whether the frame changed.
    fn terminal_event(&mut self, event: TermEvent, ctx: &mut Ctx<'_>) -> bool {
        match event {
            TermEvent::Key(key) if key.kind != KeyEventKind::Release => self.key(key, ctx),
            TermEvent::Paste(text) => {
                match self.open.front() {
                    Some(open) if open.takes_text() => self.answer.paste(&text),
                    Some(_) => return false,
                    None => self.input.paste(&text),
                }
                true
            }
            TermEvent::Resize(..) => true,
            TermEvent::Mouse(mouse) => match mouse.kind {
                MouseEventKind::ScrollUp => {
                    self.scroll.set(self.scroll.get().saturating_add(WHEEL));
                    true
                }
                MouseEventKind::ScrollDown => {
                    self.scroll.set(self.scroll.get().saturating_sub(WHEEL));
                    true
                }
                // Clicks are reported too (the wheel comes with them); they do nothing.
                _ => false,
            },
            _ => false,
        }
    }

    fn key(&mut self, key: KeyEvent, ctx: &mut Ctx<'_>) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => {
                if !ctx.engine.abort(&self.session.id) && self.running == 0 {
                    self.quit = true;
                }
                return true;
            }
            KeyCode::Char('d') if ctrl => {
                self.quit = true;
                return true;
            }
            _ => {}
        }
        if let Some(open) = self.open.front_mut() {
            let dialog_key = match key.code {
                KeyCode::Char(c) if !ctrl => Key::Char(c),
                KeyCode::Enter => Key::Enter,
                KeyCode::Esc => Key::Esc,
                KeyCode::Backspace => {
                    self.answer.backspace();
                    return true;
                }
                _ => return false,
            };
            if open.key(ctx.engine, dialog_key, &mut self.answer) == Step::Settled {
                self.open.pop_front();
                self.answer.take();
            }
            return true;
        }
        if self.picker.is_some() {
            return self.picker_key(key.code, ctx);
        }
        let page = self.page.get().max(1);
        match key.code {
            KeyCode::Esc => {
                ctx.engine.abort(&self.session.id);
            }
            KeyCode::Enter => self.submit(ctx),
            // The next prompt goes to the other agent; the engine tells the model of
            // the switch (the plan/build reminders), as for any change of agent.
            KeyCode::Tab if self.complete_mention() => {}
            KeyCode::Tab => {
                let first = self
                    .catalog
                    .completions(self.input.text())
                    .first()
                    .map(|(n, _)| n.clone());
                match first {
                    Some(name) => {
                        self.input.take();
                        self.input.paste(&format!("/{name} "));
                    }
                    None => self.cycle_agent(1),
                }
            }
            KeyCode::BackTab => self.cycle_agent(self.agents.len().saturating_sub(1)),
            KeyCode::Char('o') if ctrl => {
                if let Some(tool) = self.conv.last_tool_mut() {
                    tool.expanded = !tool.expanded;
                }
            }
            KeyCode::Char('t') if ctrl => self.thinking = !self.thinking,
            KeyCode::Char('u') if ctrl => self.input.kill_before(),
            KeyCode::Char('a') if ctrl => self.input.home(),
            KeyCode::Char('e') if ctrl => self.input.end(),
            KeyCode::Char(c) if !ctrl => self.input.insert(c),
            KeyCode::Backspace => self.input.backspace(),
            KeyCode::Delete => self.input.delete(),
            KeyCode::Left => self.input.left(),
            KeyCode::Right => self.input.right(),
            KeyCode::Home => self.input.home(),
            KeyCode::End => self.input.end(),
            KeyCode::PageUp => self.scroll.set(self.scroll.get().saturating_add(page)),
            KeyCode::PageDown => self.scroll.set(self.scroll.get().saturating_sub(page)),
            KeyCode::Up => self.scroll.set(self.scroll.get().saturating_add(1)),
            KeyCode::Down => self.scroll.set(self.scroll.get().saturating_sub(1)),
            _ => return false,
        }
        self.track_mention(ctx);
        true
    }

    /// The primary agents, for `/agents`.
    pub(crate) fn agents(&self) -> &[String] {
        &self.agents
    }

    /// Selects the primary agent `by` places after the current one.
    fn cycle_agent(&mut self, by: usize) {
        let count = self.agents.len();
        if count == 0 {
            return;
        }
        let at = self
            .agents
            .iter()
            .position(|a| *a == self.agent)
            .unwrap_or(0);
        if let Some(next) = self.agents.get((at + by) % count) {
            self.agent = next.clone();
        }
    }

    /// Sends what is typed: one of the UI's commands, else a prompt to the engine
    /// (joining the running loop if the agent works).
    fn submit(&mut self, ctx: &mut Ctx<'_>) {
        let typed = self.input.take();
        let text = typed.trim();
        if text.is_empty() {
            return;
        }
        self.scroll.set(0);
        if let Some(command) = slash::builtin(text) {
            self.builtin(command, ctx);
            return;
        }
        let request = PromptRequest {
            text: text.to_string(),
            agent: Some(self.agent.clone()),
            model: self
                .model_choice
                .clone()
                .or_else(|| ctx.options.request.model.clone()),
            ..ctx.options.request.clone()
        };
        let (engine, session) = (ctx.engine.clone(), self.session.clone());
        self.running += 1;
        ctx.prompts
            .spawn(async move { Done::Prompt(engine.prompt(&session, request).await.err()) });
    }
}
