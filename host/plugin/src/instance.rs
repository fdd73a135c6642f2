//! One instance path: the way every call into a component goes, whichever export it
//! uses — a tool's `execute`, a skill's `load`, a hook, a declaration read at load.
//!
//! Owns the sequence those share: the call is refused when its plugin is disabled; the
//! component is loaded (compiled on first use, [`crate::load`]) and the export the call
//! needs looked up; a fresh [`Store`] is made for the call's environment (the sandbox,
//! the memory limiter, the deadline checked at every epoch tick); the component is
//! instantiated in it and the export loaded from the instance. The caller makes its one
//! call on the guest; the outcome is then settled: a trap becomes the [`CallError`]
//! saying why, and the result clears the plugin's strikes or counts as one.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use wasmtime::component::InstancePre;
use wasmtime::{Store, UpdateDeadline};

use crate::bindings::guest::{HooksIndices, Interface, SkillIndices, ToolIndices};
use crate::error::{CallError, classify};
use crate::load::Loaded;
use crate::load_error::LoadError;
use crate::runtime::{Plugin, PluginHost};
use crate::sandbox::Confinement;
use crate::state::{CallEnv, CallScope, StoreState};

/// An export interface calls go through, as a loaded component has it.
pub(crate) trait Export: Interface {
    /// The kind the manifest must declare for it: `tool`, `skill`, `hook`.
    const KIND: &'static str;

    /// Its exports in `loaded`, when the manifest declares the kind.
    fn of(loaded: &Loaded) -> Option<&Self>;
}

impl Export for ToolIndices {
    const KIND: &'static str = "tool";

    fn of(loaded: &Loaded) -> Option<&Self> {
        loaded.tool.as_ref()
    }
}

impl Export for SkillIndices {
    const KIND: &'static str = "skill";

    fn of(loaded: &Loaded) -> Option<&Self> {
        loaded.skill.as_ref()
    }
}

impl Export for HooksIndices {
    const KIND: &'static str = "hook";

    fn of(loaded: &Loaded) -> Option<&Self> {
        loaded.hooks.as_ref()
    }
}

/// One instance of a plugin's export in its own store, good for exactly one call.
pub(crate) struct Instance<G> {
    /// The export, loaded from the instance.
    pub(crate) guest: G,
    /// The call's own store.
    pub(crate) store: Store<StoreState>,
}

impl PluginHost {
    /// `plugin`'s component, ready for a call through export `E`: refused when the
    /// plugin is disabled, loaded on first use, and `Load` when its manifest does not
    /// declare the kind.
    pub(crate) async fn ready<E: Export>(&self, plugin: &Plugin) -> Result<Arc<Loaded>, CallError> {
        if let Some(reason) = plugin.disabled_reason() {
            return Err(CallError::Disabled {
                plugin: plugin.name().to_string(),
                reason,
            });
        }
        let loaded = self.load(plugin).await?;
        exports::<E>(plugin, &loaded)?;
        Ok(loaded)
    }

    /// A fresh store for `env` with `pre` instantiated in it and export `exports`
    /// loaded from the instance. On failure, the trap with the store it happened in
    /// (whose limiter tells whether memory ran out), and whether it was the
    /// instantiation that failed.
    pub(crate) async fn instance<I: Interface>(
        &self,
        pre: &InstancePre<StoreState>,
        exports: &I,
        env: Arc<CallEnv>,
    ) -> Result<Instance<I::Guest>, Failed> {
        let mut store = self.new_store(env);
        let instance = match pre.instantiate_async(&mut store).await {
            Ok(instance) => instance,
            Err(trap) => {
                return Err(Failed {
                    trap,
                    store,
                    instantiating: true,
                });
            }
        };
        match exports.load(&mut store, &instance) {
            Ok(guest) => Ok(Instance { guest, store }),
            Err(trap) => Err(Failed {
                trap,
                store,
                instantiating: false,
            }),
        }
    }

    /// One call into `plugin`, [`ready`](Self::ready) as `loaded`, through export `E`
    /// under `env`: a fresh [`instance`](Self::instance), `call` on its guest, `answer`
    /// turning what the guest returned into the result (given the call's environment,
    /// e.g. for the user's rejections), and the outcome settled
    /// ([`settle_call`](Self::settle_call)).
    pub(crate) async fn run<E: Export, R, T>(
        &self,
        plugin: &Plugin,
        loaded: &Loaded,
        env: Arc<CallEnv>,
        call: impl AsyncFnOnce(&E::Guest, &mut Store<StoreState>) -> wasmtime::Result<R>,
        answer: impl FnOnce(R, &CallEnv) -> Result<T, CallError>,
    ) -> Result<T, CallError> {
        let exports = exports::<E>(plugin, loaded)?;
        let (store, outcome) = match self.instance(&loaded.pre, exports, env).await {
            Ok(mut i) => {
                let outcome = call(&i.guest, &mut i.store).await;
                (i.store, outcome)
            }
            Err(failed) => (failed.store, Err(failed.trap)),
        };
        let outcome = outcome.map(|r| answer(r, &store.data().env));
        self.settle_call(plugin, store.data().limits.memory_refused, outcome)
    }

    /// The result of one call into `plugin`: a trap becomes the [`CallError`] saying why
    /// (`memory_refused`: the store's limiter refused an allocation), and the outcome
    /// clears the plugin's strikes or counts as one.
    pub(crate) fn settle_call<T>(
        &self,
        plugin: &Plugin,
        memory_refused: bool,
        outcome: wasmtime::Result<Result<T, CallError>>,
    ) -> Result<T, CallError> {
        let result = match outcome {
            Ok(answer) => answer,
            Err(trap) => Err(classify(
                plugin.name(),
                &plugin.limits,
                &trap,
                memory_refused,
            )),
        };
        match &result {
            Ok(_) | Err(CallError::Tool(_) | CallError::Rejected { .. }) => {
                self.clear_strikes(plugin)
            }
            Err(e) if e.is_plugin_fault() => self.strike(plugin, e),
            Err(_) => {}
        }
        result
    }

    /// What one call into `plugin` under `scope` may use, for at most `time`.
    pub(crate) fn call_env(
        &self,
        plugin: &Plugin,
        scope: CallScope,
        time: Duration,
    ) -> Arc<CallEnv> {
        self.call_env_confined(plugin, scope, time, false)
    }

    /// [`call_env`](Self::call_env), with the standard `bash` tool's command let out of
    /// the sandbox when `unsandboxed` (the rules or the user allowed it).
    pub(crate) fn call_env_confined(
        &self,
        plugin: &Plugin,
        scope: CallScope,
        time: Duration,
        unsandboxed: bool,
    ) -> Arc<CallEnv> {
        let confinement = if crate::sandbox::runs_commands(plugin) {
            Confinement::Commands { unsandboxed }
        } else {
            Confinement::Plugin
        };
        Arc::new(CallEnv {
            plugin: plugin.name().to_string(),
            tools: plugin.tool_names(),
            caps: plugin.effective.clone(),
            scope,
            limits: plugin.limits,
            deadline: Instant::now() + time,
            audit: self.audit.clone(),
            sandbox: self.sandbox.clone(),
            launcher: self.launcher.clone(),
            confinement,
            protected: self.protected.clone(),
            config_writer: plugin.source.origin == crate::discovery::Origin::Builtin,
            rejected: Mutex::default(),
        })
    }

    /// A fresh store for one call: the sandbox, the memory limiter and the deadline.
    pub(crate) fn new_store(&self, env: Arc<CallEnv>) -> Store<StoreState> {
        let deadline = env.deadline;
        let mut store = Store::new(self.engine.engine(), StoreState::new(env));
        store.limiter(|s| &mut s.limits);
        store.set_epoch_deadline(1);
        // Check the wall clock at every tick and yield to the executor in between, so a
        // busy plugin neither outlives its deadline nor starves other tasks.
        store.epoch_deadline_callback(move |_| {
            if Instant::now() >= deadline {
                Ok(UpdateDeadline::Interrupt)
            } else {
                Ok(UpdateDeadline::Yield(1))
            }
        });
        store
    }
}

/// Export `E` of `plugin`'s component `loaded`; `Load` when its manifest does not
/// declare the kind.
pub(crate) fn exports<'l, E: Export>(
    plugin: &Plugin,
    loaded: &'l Loaded,
) -> Result<&'l E, CallError> {
    E::of(loaded).ok_or_else(|| CallError::Load {
        plugin: plugin.name().to_string(),
        reason: LoadError::NotDeclared { kind: E::KIND },
    })
}

/// An instance that could not be made: the trap, the store it happened in, and
/// whether instantiating failed (else loading the export did).
pub(crate) struct Failed {
    /// What went wrong.
    pub(crate) trap: wasmtime::Error,
    /// The store, for its limiter's verdict.
    pub(crate) store: Store<StoreState>,
    /// Instantiating failed, not loading the export.
    pub(crate) instantiating: bool,
}

impl Failed {
    /// The [`CallError`] saying why, for `plugin`.
    pub(crate) fn classify(&self, plugin: &Plugin) -> CallError {
        classify(
            plugin.name(),
            &plugin.limits,
            &self.trap,
            self.store.data().limits.memory_refused,
        )
    }
}
