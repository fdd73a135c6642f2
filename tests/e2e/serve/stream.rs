//! The event stream across a reconnect: a client that drops mid-run and comes back
//! with `Last-Event-ID` sees every event exactly once, in the order a client that
//! never dropped saw them; one that comes back too late is told so.

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;
use ward_tests::llm::Turn;

use super::{Served, project_asking_for_reads};

/// An SSE connection: its events as `(id, JSON)`, read as they come.
struct Sse {
    body: std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buffer: String,
}

impl Sse {
    async fn open(served: &Served, last: Option<u64>) -> Sse {
        Self::open_at(served, "/event", last).await
    }

    /// The stream at `path`, logging in as OpenCode's clients do (HTTP Basic, the
    /// token as the password) when it is the global one.
    async fn open_at(served: &Served, path: &str, last: Option<u64>) -> Sse {
        let request = reqwest::Client::new().get(format!("{}{path}", served.url));
        let mut request = match path {
            "/global/event" => request.basic_auth("opencode", Some(&served.token)),
            _ => request.bearer_auth(&served.token),
        };
        if let Some(id) = last {
            request = request.header("Last-Event-ID", id.to_string());
        }
        let response = request.send().await.expect("connect");
        assert_eq!(response.status(), 200);
        Sse {
            body: Box::pin(response.bytes_stream()),
            buffer: String::new(),
        }
    }

    /// The next event: `(id if it has one, JSON)`.
    async fn next(&mut self) -> (Option<u64>, Value) {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut id = None;
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id:") {
                        id = v.trim().parse().ok();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                if data.is_empty() {
                    continue; // a keep-alive comment
                }
                return (id, serde_json::from_str(&data).expect("event JSON"));
            }
            let chunk = tokio::time::timeout(Duration::from_secs(30), self.body.next())
                .await
                .expect("an event within 30 s")
                .expect("the stream is open")
                .expect("a chunk");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Events until `session` goes idle (that one included).
    async fn until_idle(&mut self, session: &str) -> Vec<(u64, Value)> {
        self.until_idle_in(session, |e| e.clone()).await
    }

    /// Events until `session` goes idle, each event found in the JSON by `event`.
    async fn until_idle_in(
        &mut self,
        session: &str,
        event: impl Fn(&Value) -> Value,
    ) -> Vec<(u64, Value)> {
        let mut out = Vec::new();
        loop {
            let (id, json) = self.next().await;
            let inner = event(&json);
            let done =
                inner["type"] == "session.idle" && inner["properties"]["sessionID"] == session;
            let event = json;
            if let Some(id) = id {
                out.push((id, event));
            }
            if done {
                return out;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_reconnects_with_last_event_id_sees_every_event_once() {
    let text = "word ".repeat(200);
    let (p, _llm) = project_asking_for_reads("serve-replay", vec![Turn::text(&text)]).await;
    let served = Served::start(&p, &[], &[]).await;
    // Both listen before anything happens, so both have everything to see.
    let mut steady = Sse::open(&served, None).await;
    let mut flaky = Sse::open(&served, None).await;
    assert_eq!(steady.next().await.1["type"], "server.connected");
    assert_eq!(flaky.next().await.1["type"], "server.connected");
    let (_, id) = served.new_session().await;
    let (status, _) = served.send_text(&id, "prompt_async", "talk").await;
    assert_eq!(status, 204);

    // The flaky client reads a few events, drops, and reconnects where it left off.
    let mut seen = Vec::new();
    while seen.len() < 5 {
        if let (Some(n), event) = flaky.next().await {
            seen.push((n, event));
        }
    }
    let last = seen.last().map(|(n, _)| *n);
    drop(flaky);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut again = Sse::open(&served, last).await;
    assert_eq!(again.next().await.1["type"], "server.connected");
    seen.extend(again.until_idle(&id).await);
    let all = steady.until_idle(&id).await;

    let ids: Vec<u64> = seen.iter().map(|(n, _)| *n).collect();
    let want: Vec<u64> = all.iter().map(|(n, _)| *n).collect();
    assert_eq!(ids, want, "the same events, each once, in order");
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "consecutive ids: {ids:?}"
    );
    assert_eq!(
        seen.iter().map(|(_, e)| e.clone()).collect::<Vec<_>>(),
        all.iter().map(|(_, e)| e.clone()).collect::<Vec<_>>()
    );
    let deltas: String = all
        .iter()
        .filter(|(_, e)| e["type"] == "message.part.delta")
        .filter_map(|(_, e)| e["properties"]["delta"].as_str())
        .collect();
    assert_eq!(deltas.trim(), text.trim(), "the deltas add up to the text");

    // From before the first event: the buffer still holds all of it.
    let mut from_start = Sse::open(&served, Some(0)).await;
    assert_eq!(from_start.next().await.1["type"], "server.connected");
    let (first, _) = from_start.next().await;
    assert_eq!(first, Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_back_after_the_buffer_moved_on_is_told_it_lagged() {
    let (p, _llm) = project_asking_for_reads(
        "serve-lagged",
        vec![Turn::text(&"many small words ".repeat(100))],
    )
    .await;
    let served = Served::start(&p, &["--replay-events", "4"], &[]).await;
    let (_, id) = served.new_session().await;
    // A synchronous prompt: when it answers, the run's events are all recorded.
    let (status, answer) = served.send_text(&id, "message", "talk").await;
    assert_eq!(status, 200, "{answer}");
    // Let the run's last events (its idle status, recorded after the answer) land,
    // so the buffer holds still while the late client reads it.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while served.call("GET", "/session/status", None).await.1 != "{}" {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the session goes idle"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut late = Sse::open(&served, Some(1)).await;
    assert_eq!(late.next().await.1["type"], "server.connected");
    let (id_lag, lagged) = late.next().await;
    assert_eq!(lagged["type"], "server.lagged", "{lagged}");
    assert_eq!(id_lag, None);
    let missed = lagged["properties"]["missed"].as_u64().expect("missed");
    assert!(missed > 0);
    // Then it gets what the buffer still holds (4 events), in order, from right after
    // what it missed.
    let mut ids = Vec::new();
    for _ in 0..4 {
        let (n, _) = late.next().await;
        ids.push(n.expect("a logged event has an id"));
    }
    assert_eq!(ids[0], 2 + missed, "it resumes right after what it missed");
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "{ids:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencodes_global_stream_carries_every_event_in_its_envelope() {
    let (p, _llm) = project_asking_for_reads("serve-global", vec![Turn::text("hello there")]).await;
    let served = Served::start(&p, &[], &[]).await;
    let mut plain = Sse::open(&served, None).await;
    let mut global = Sse::open_at(&served, "/global/event", None).await;
    assert_eq!(plain.next().await.1["type"], "server.connected");
    let (_, connected) = global.next().await;
    assert_eq!(
        connected["payload"]["type"], "server.connected",
        "{connected}"
    );
    let (session, id) = served.new_session().await;
    let directory = session["directory"].clone();
    assert!(
        directory.as_str().is_some_and(|d| !d.is_empty()),
        "{session}"
    );
    let (status, _) = served.send_text(&id, "prompt_async", "hi").await;
    assert_eq!(status, 204);
    let want = plain.until_idle(&id).await;
    let got = global.until_idle_in(&id, |e| e["payload"].clone()).await;
    // The same events, ids and order; each inside `{directory, payload}`, the
    // directory the session's.
    assert_eq!(
        got.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        want.iter().map(|(n, _)| *n).collect::<Vec<_>>()
    );
    for ((_, envelope), (_, event)) in got.iter().zip(&want) {
        assert_eq!(&envelope["payload"], event);
        assert_eq!(envelope["directory"], directory, "{envelope}");
    }
    assert!(
        want.iter().any(|(_, e)| e["type"] == "message.part.delta"),
        "text streamed"
    );
}
