//! A step with two slow filesystem calls: the `slow-open` test tool called twice at
//! once, the way the agent loop runs the calls of one step (their futures joined in one
//! task). Each call opens two FIFOs in turn, a gate and a slow one; the writer behind
//! them opens the gate with the reader, waits `DELAY`, then opens the slow one, so the
//! second open waits `DELAY` from when the call reached the gate.
//!
//! The filesystem work of a host import must not hold up the task it runs on: if it
//! does, the second call only gets to its gate when the first is over and the step
//! takes the sum of the two (2 × `DELAY`); if it does not, the two overlap and the step
//! takes about one `DELAY`. Measured on a current-thread runtime and on the two-worker
//! runtime the other benchmarks use. Run with `cargo bench -p ward-tests --bench step`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ward_plugin::Plugin;
use ward_tests::Project;
use ward_tests::harness::Harness;

/// How long each writer waits, after the reader reached the gate, to open the slow FIFO.
const DELAY: Duration = Duration::from_millis(100);
/// Steps timed per runtime and case.
const ROUNDS: usize = 7;

/// One call's FIFOs: the gate, then the slow one.
type Pair = (PathBuf, PathBuf);

fn main() {
    let p = Project::new("bench-step");
    let h = Harness::new(&p, &["slow-open"], &[("slow-open", &["fs-read"])], "");
    let pairs = [pair(&p, "a"), pair(&p, "b")];
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let two = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    for (name, rt) in [("current-thread", &current), ("2 workers", &two)] {
        let (tool, _) = rt.block_on(h.host.find_tool("open_in_turn")).expect("tool");
        let one = time(ROUNDS, || rt.block_on(step(&h, &tool, &pairs[..1])));
        let both = time(ROUNDS, || rt.block_on(step(&h, &tool, &pairs)));
        println!(
            "step/{name}: one slow call {} ms, two in parallel {} ms (each waits {} ms)",
            summary(&one),
            summary(&both),
            DELAY.as_millis()
        );
    }
}

/// A gate and a slow FIFO in the project, named after `call`.
fn pair(p: &Project, call: &str) -> Pair {
    let make = |name: String| {
        let path = p.path(&name);
        let _ = std::fs::remove_file(&path);
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("mkfifo");
        assert!(made.success(), "mkfifo {}", path.display());
        path
    };
    (make(format!("{call}-gate")), make(format!("{call}-slow")))
}

/// One step: a call per pair in `pairs`, all joined in this task.
async fn step(h: &Harness, tool: &Arc<Plugin>, pairs: &[Pair]) {
    let writers: Vec<_> = pairs.iter().cloned().map(writer).collect();
    let calls = pairs.iter().map(|(gate, slow)| {
        let args = serde_json::json!({ "paths": [gate, slow] }).to_string();
        async move {
            h.host
                .call(tool, "open_in_turn", &args, h.scope.clone())
                .await
        }
    });
    for out in join_all(calls.collect()).await {
        assert_eq!(out.expect("open_in_turn").output, "opened 2");
    }
    for w in writers {
        w.join().expect("writer");
    }
}

/// The writer of one call's FIFOs: opens the gate (so waits for the call to reach it),
/// waits [`DELAY`], then opens the slow FIFO, which the call is waiting on.
fn writer((gate, slow): Pair) -> std::thread::JoinHandle<()> {
    let open = |path: &PathBuf| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .expect("open a FIFO for writing")
    };
    std::thread::spawn(move || {
        let _gate = open(&gate);
        std::thread::sleep(DELAY);
        let _slow = open(&slow);
    })
}

/// Joins `futures` in the calling task, as the loop's `join_all` does.
async fn join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut done: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, slot) in futures.iter_mut().zip(done.iter_mut()) {
            if slot.is_some() {
                continue;
            }
            match f.as_mut().poll(cx) {
                std::task::Poll::Ready(v) => *slot = Some(v),
                std::task::Poll::Pending => pending = true,
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    done.into_iter().flatten().collect()
}

/// Runs `f` `rounds` times (after one run not counted), in milliseconds.
fn time(rounds: usize, mut f: impl FnMut()) -> Vec<f64> {
    f();
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect()
}

/// `median (min–max)`.
fn summary(ms: &[f64]) -> String {
    let mut sorted = ms.to_vec();
    sorted.sort_by(f64::total_cmp);
    format!(
        "{:.1} ({:.1}–{:.1})",
        sorted[sorted.len() / 2],
        sorted[0],
        sorted[sorted.len() - 1]
    )
}
