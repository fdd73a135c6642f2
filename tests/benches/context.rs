//! Context-build benchmark (SPEC §5.4): loading a session's history from its last
//! compaction point and converting it into the request's messages. Sessions of 10,000
//! and 100,000 messages, each compacted 100 messages before its end: the cost should
//! follow the 100 messages since the compaction, not the length of the session.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::json;
use ward_session::history::{History, to_wire};
use ward_store::{
    AssistantMessage, CompletedTime, FinishReason, MessageInfo, ModelRef, Part, PartKind, Session,
    SqliteStore, Store, TextPart, ToolPart, ToolState, UserMessage,
};
use ward_tests::Project;

/// Messages after the compaction point.
const TAIL: usize = 100;

fn text(store: &SqliteStore, session: &str, message: &str, text: String) {
    let kind = PartKind::Text(TextPart {
        text,
        ..TextPart::default()
    });
    store
        .put_part(&Part::new(session, message, kind))
        .expect("part");
}

/// A user message and its answer (text and one finished tool call): two messages.
fn exchange(store: &SqliteStore, session: &Session, i: usize) {
    let user = UserMessage::new(&session.id, "build", ModelRef::new("p", "m"));
    store
        .put_message(&MessageInfo::User(user.clone()))
        .expect("user");
    text(store, &session.id, &user.id, format!("please do step {i}"));
    let mut answer = AssistantMessage::new(&user);
    answer.finish = Some(FinishReason::Stop);
    answer.time.completed = Some(answer.time.created);
    store
        .put_message(&MessageInfo::Assistant(answer.clone()))
        .expect("assistant");
    text(
        store,
        &session.id,
        &answer.id,
        format!("step {i} is done; I ran the tests."),
    );
    let tool = PartKind::Tool(ToolPart {
        call_id: format!("call_{i}"),
        tool: "bash".into(),
        state: ToolState::Completed {
            input: json!({ "command": format!("cargo test --step {i}") }),
            output: "test result: ok. 42 passed; 0 failed\n".repeat(20),
            title: "cargo test".into(),
            metadata: json!({ "exit": 0 }),
            time: CompletedTime {
                start: 0,
                end: 1,
                compacted: None,
            },
            attachments: Vec::new(),
        },
    });
    store
        .put_part(&Part::new(&session.id, &answer.id, tool))
        .expect("tool part");
}

/// A session of `total` messages whose compaction point is `TAIL` messages from the end.
fn session_of(store: &SqliteStore, total: usize) -> Session {
    let session = Session::new("/bench", "build");
    store.create_session(&session).expect("session");
    for i in 0..(total - TAIL) / 2 - 1 {
        exchange(store, &session, i);
    }
    let request = UserMessage::new(&session.id, "build", ModelRef::new("p", "m"));
    store
        .put_message(&MessageInfo::User(request.clone()))
        .expect("request");
    let compaction = PartKind::Compaction {
        auto: true,
        overflow: true,
    };
    store
        .put_part(&Part::new(&session.id, &request.id, compaction))
        .expect("compaction part");
    let mut summary = AssistantMessage::new(&request);
    summary.summary = true;
    summary.finish = Some(FinishReason::Stop);
    summary.time.completed = Some(summary.time.created);
    store
        .put_message(&MessageInfo::Assistant(summary.clone()))
        .expect("summary");
    text(
        store,
        &session.id,
        &summary.id,
        "## Goal\nRun every step.".into(),
    );
    store
        .set_compaction(&session.id, &summary.id, &request.id)
        .expect("point");
    for i in 0..TAIL / 2 {
        exchange(store, &session, i);
    }
    session
}

fn build_context(c: &mut Criterion) {
    let p = Project::new("bench-context");
    let store = SqliteStore::open(p.data.join("ward.db")).expect("store");
    let mut g = c.benchmark_group("context");
    g.sample_size(50).measurement_time(Duration::from_secs(5));
    for total in [10_000usize, 100_000] {
        let session = session_of(&store, total);
        let loaded = {
            let mut history = History::default();
            history.load(&store, &session.id).expect("load");
            history.ordered().len()
        };
        assert_eq!(loaded, TAIL + 2, "only the messages since the compaction");
        g.bench_with_input(
            BenchmarkId::new("load + convert, compacted 100 from the end", total),
            &session,
            |b, session| {
                b.iter(|| {
                    let mut history = History::default();
                    history.load(&store, &session.id).expect("load");
                    to_wire(&history.ordered(), false)
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, build_context);
criterion_main!(benches);
