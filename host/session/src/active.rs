//! Which sessions have a loop running, so a session never has two.
//!
//! A prompt to an idle session starts its loop; a prompt to a busy one *joins* it: the
//! message is already stored, the running loop sees it on its next step, and the joiner
//! waits for that loop's outcome instead of starting a second one. The one subtle point
//! is the hand-over at the end: a loop about to stop asks [`Lease::finish`] under the
//! registry's lock whether anyone joined since its last step, so a prompt arriving just
//! as the loop decides to stop is never left unanswered.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use ward_store::AssistantMessage;

/// How a loop ended, as its joiners see it: errors are shared, not cloned.
pub type SharedOutcome = Result<AssistantMessage, Arc<crate::LoopError>>;

/// One running loop.
struct Active {
    /// Tells this loop's entry from a later loop's for the same session.
    id: u64,
    /// Cancelled by `abort`.
    cancel: CancellationToken,
    /// Set when a prompt joined since the loop last looked.
    joined: bool,
    /// Where the outcome is announced.
    done: watch::Sender<Option<SharedOutcome>>,
}

/// The registry of running loops, one per session id.
#[derive(Clone, Default)]
pub struct ActiveLoops {
    inner: Arc<Mutex<HashMap<String, Active>>>,
}

/// What a prompt got from [`ActiveLoops::start_or_join`].
pub enum Entry {
    /// No loop was running: the caller runs it and must hand the outcome to the lease.
    Started(Lease),
    /// A loop is running; this resolves to its outcome (or closes without one if the
    /// loop's task died).
    Joined(watch::Receiver<Option<SharedOutcome>>),
}

impl ActiveLoops {
    /// Starts the session's loop, or joins the one already running.
    pub fn start_or_join(&self, session_id: &str) -> Entry {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let mut map = self.lock();
        if let Some(active) = map.get_mut(session_id) {
            active.joined = true;
            return Entry::Joined(active.done.subscribe());
        }
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let cancel = CancellationToken::new();
        let (done, _) = watch::channel(None);
        map.insert(
            session_id.to_string(),
            Active {
                id,
                cancel: cancel.clone(),
                joined: false,
                done,
            },
        );
        Entry::Started(Lease {
            loops: self.clone(),
            session_id: session_id.to_string(),
            id,
            cancel,
        })
    }

    /// Cancels the session's running loop; `false` if none was running.
    pub fn abort(&self, session_id: &str) -> bool {
        match self.lock().get(session_id) {
            Some(active) => {
                active.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Whether the session has a loop running.
    pub fn is_busy(&self, session_id: &str) -> bool {
        self.lock().contains_key(session_id)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Active>> {
        // Every critical section is a map operation that cannot leave it half-done.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The right to run a session's loop; dropping it without [`Lease::finish`] (a panic,
/// a cancelled task) still frees the session.
pub struct Lease {
    loops: ActiveLoops,
    session_id: String,
    id: u64,
    cancel: CancellationToken,
}

impl Lease {
    /// Fires when the loop is aborted.
    pub fn cancelled(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether a prompt joined since the last call; clears the mark.
    pub fn take_joined(&self) -> bool {
        let mut map = self.loops.lock();
        match map.get_mut(&self.session_id) {
            Some(active) if active.id == self.id => std::mem::take(&mut active.joined),
            _ => false,
        }
    }

    /// Ends the loop with `outcome` unless a prompt joined since the last look (and the
    /// loop neither failed nor was aborted): then the lease comes back so the loop goes
    /// on and answers it, and this outcome is dropped.
    pub fn finish(self, outcome: SharedOutcome) -> Result<SharedOutcome, Lease> {
        let mut map = self.loops.lock();
        let Some(active) = map.get_mut(&self.session_id).filter(|a| a.id == self.id) else {
            return Ok(outcome);
        };
        // One critical section for the look and the removal: a prompt that joins after
        // this sees no loop and starts its own.
        if std::mem::take(&mut active.joined) && outcome.is_ok() && !self.cancel.is_cancelled() {
            drop(map);
            return Err(self);
        }
        if let Some(active) = map.remove(&self.session_id) {
            active.done.send_replace(Some(outcome.clone()));
        }
        Ok(outcome)
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        // After `finish` the entry is gone (or belongs to a newer loop) and this does
        // nothing; on the other paths it frees the session, and dropping the sender
        // tells joiners the loop ended without an outcome.
        let mut map = self.loops.lock();
        if map.get(&self.session_id).is_some_and(|a| a.id == self.id) {
            map.remove(&self.session_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ward_store::{ModelRef, UserMessage};

    fn answer() -> SharedOutcome {
        let user = UserMessage::new("ses_1", "build", ModelRef::new("p", "m"));
        Ok(AssistantMessage::new(&user))
    }

    fn started(loops: &ActiveLoops) -> Lease {
        match loops.start_or_join("ses_1") {
            Entry::Started(lease) => lease,
            Entry::Joined(_) => panic!("the session was idle"),
        }
    }

    #[test]
    fn a_join_before_the_end_hands_the_loop_back() {
        let loops = ActiveLoops::default();
        let lease = started(&loops);
        let Entry::Joined(mut done) = loops.start_or_join("ses_1") else {
            panic!("a second loop was started");
        };
        let Err(lease) = lease.finish(answer()) else {
            panic!("the joined prompt is answered first");
        };
        assert!(done.borrow_and_update().is_none());
        let Ok(outcome) = lease.finish(answer()) else {
            panic!("nothing joined since");
        };
        assert!(!loops.is_busy("ses_1"));
        let seen = done
            .borrow_and_update()
            .clone()
            .expect("the joiner got the outcome");
        assert_eq!(seen.ok().map(|m| m.id), outcome.ok().map(|m| m.id));
    }

    #[test]
    fn an_aborted_or_failed_loop_ends_even_with_a_joiner() {
        let loops = ActiveLoops::default();
        let lease = started(&loops);
        assert!(loops.abort("ses_1"));
        assert!(lease.cancelled().is_cancelled());
        let _joined = loops.start_or_join("ses_1");
        assert!(
            lease
                .finish(Err(Arc::new(crate::LoopError::Aborted)))
                .is_ok()
        );
        assert!(!loops.is_busy("ses_1"));
        assert!(!loops.abort("ses_1"));
    }

    #[test]
    fn a_dropped_lease_frees_the_session_and_closes_the_joiners() {
        let loops = ActiveLoops::default();
        let lease = started(&loops);
        let Entry::Joined(done) = loops.start_or_join("ses_1") else {
            panic!("a second loop was started");
        };
        drop(lease);
        assert!(!loops.is_busy("ses_1"));
        assert!(done.has_changed().is_err(), "the joiner would wait forever");
        // A later loop's lease is not freed by an older one.
        let newer = started(&loops);
        assert!(loops.is_busy("ses_1"));
        drop(newer);
    }
}
