//! The thread that checks and stores prompts, one after another in arrival order.
//!
//! Storing a prompt is blocking work (the store's writes, files a `file://` part
//! names) that must stay off the API's one async thread. A blocking task per prompt
//! did that, but a burst of a hundred prompts made a hundred threads, all runnable
//! at once and all queueing on the store's one connection: whichever the scheduler
//! picked went first, so the wait of a prompt sent early was as long as a late
//! one's, and every thread's switch took CPU from the API and the event stream. One
//! thread at the API's priority stores them in the order they arrived, and its queue
//! is the only place a prompt waits.

use std::sync::mpsc;

/// A job for the thread.
type Job = Box<dyn FnOnce() + Send>;

/// The sending side; the thread ends when the last clone is dropped.
#[derive(Clone, Debug)]
pub struct PromptRecorder {
    jobs: mpsc::Sender<Job>,
    /// Whether prompts are queued or in hand: set when one is queued, cleared by the
    /// thread once the burst is over.
    recording: std::sync::Arc<tokio::sync::watch::Sender<bool>>,
}

/// How long the queue stays empty before a burst of prompts counts as over.
pub const BURST_GAP: std::time::Duration = std::time::Duration::from_millis(5);

/// How long a stored prompt's loop waits for the prompts queued behind it to be
/// stored, at most (see [`PromptRecorder::admitted`]).
pub const ADMISSION_WAIT: std::time::Duration = std::time::Duration::from_millis(100);

/// The job did not finish: it panicked, or the thread is gone.
#[derive(Debug, thiserror::Error)]
#[error("the prompt recorder did not finish the job")]
pub struct RecorderGone;

impl PromptRecorder {
    /// Starts the thread. It inherits the calling thread's priority: start it from
    /// one that keeps the default (not from a loop worker).
    pub fn start() -> std::io::Result<PromptRecorder> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let recording = std::sync::Arc::new(tokio::sync::watch::Sender::new(false));
        let busy = recording.clone();
        std::thread::Builder::new()
            .name("ward-prompts".into())
            .spawn(move || {
                while let Ok(mut job) = queue.recv() {
                    busy.send_replace(true);
                    loop {
                        // A job that panics loses its own answer (its caller gets
                        // `RecorderGone`), not the thread every later prompt needs.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                        // A burst's prompts come one request at a time: the queue
                        // runs dry between two of them long before the burst is over.
                        match queue.recv_timeout(BURST_GAP) {
                            Ok(next) => job = next,
                            Err(_) => break,
                        }
                    }
                    // A prompt queued just now is taken by the next `recv`, which
                    // sets the flag again: a loop may start a moment early, never late.
                    busy.send_replace(false);
                }
            })?;
        Ok(PromptRecorder { jobs, recording })
    }

    /// Resolves once no prompt waits to be stored, or after [`ADMISSION_WAIT`].
    ///
    /// A loop awaits it before it starts. When a burst of prompts arrives, their
    /// clients see nothing until each prompt is stored (its `message.updated` is the
    /// first event), while a loop that started gives them nothing they are waiting
    /// for and takes the CPU the storing needs. So the burst is admitted first and
    /// then run; the bound keeps a steady stream of prompts from holding a loop back
    /// for longer than that. A lone prompt's loop starts [`BURST_GAP`] after it is
    /// stored.
    pub fn admitted(&self) -> impl Future<Output = ()> + use<> {
        let mut recording = self.recording.subscribe();
        async move {
            let idle = recording.wait_for(|busy| !busy);
            let _ = tokio::time::timeout(ADMISSION_WAIT, idle).await;
        }
    }

    /// Queues `job` now, behind the jobs queued before it; the future resolves to
    /// its result.
    pub fn run<T, F>(&self, job: F) -> impl Future<Output = Result<T, RecorderGone>> + use<T, F>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (done, result) = tokio::sync::oneshot::channel();
        self.recording.send_replace(true);
        let queued = self.jobs.send(Box::new(move || {
            let _ = done.send(job());
        }));
        async move {
            queued.map_err(|_| RecorderGone)?;
            result.await.map_err(|_| RecorderGone)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn jobs_run_in_the_order_they_were_queued() {
        let recorder = PromptRecorder::start().unwrap();
        let order = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let waits: Vec<_> = (0..50)
            .map(|i| {
                let order = order.clone();
                recorder.run(move || order.lock().unwrap().push(i))
            })
            .collect();
        // Awaited last first: the order is the queue's, not the awaits'.
        for wait in waits.into_iter().rev() {
            wait.await.unwrap();
        }
        assert_eq!(*order.lock().unwrap(), (0..50).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn loops_wait_for_the_queued_prompts_then_start() {
        let recorder = PromptRecorder::start().unwrap();
        assert!(
            tokio::time::timeout(Duration::from_millis(50), recorder.admitted())
                .await
                .is_ok(),
            "an idle recorder admits at once"
        );
        let (release, held) = std::sync::mpsc::channel::<()>();
        let stored = recorder.run(move || held.recv().unwrap());
        let admitted = recorder.admitted();
        tokio::pin!(admitted);
        assert!(
            tokio::time::timeout(Duration::from_millis(30), &mut admitted)
                .await
                .is_err(),
            "a loop waits while a prompt is being stored"
        );
        release.send(()).unwrap();
        stored.await.unwrap();
        let started = std::time::Instant::now();
        admitted.await;
        let waited = started.elapsed();
        assert!(
            waited >= BURST_GAP.saturating_sub(Duration::from_millis(1)) && waited < ADMISSION_WAIT,
            "admitted {waited:?} after the last prompt was stored"
        );
    }

    #[tokio::test]
    async fn a_loop_waits_at_most_the_admission_wait() {
        let recorder = PromptRecorder::start().unwrap();
        let (release, held) = std::sync::mpsc::channel::<()>();
        let _stored = recorder.run(move || held.recv().unwrap());
        let started = std::time::Instant::now();
        recorder.admitted().await;
        assert!(started.elapsed() >= ADMISSION_WAIT);
        release.send(()).unwrap();
    }

    #[tokio::test]
    async fn a_job_that_panics_fails_alone() {
        let recorder = PromptRecorder::start().unwrap();
        let failed = recorder.run(|| -> i32 { panic!("boom") }).await;
        assert!(matches!(failed, Err(RecorderGone)));
        assert_eq!(recorder.run(|| 1).await.unwrap(), 1);
    }
}
