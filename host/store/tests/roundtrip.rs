//! Everything written comes back as it was: sessions, messages, every part type,
//! todos, compaction points, and history "since" a message.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

mod common;

use common::{TempDir, exchange, model, text};
use serde_json::json;
use ward_permission::{Action, Rule};
use ward_store::{
    AssistantMessage, CacheTokens, CompletedTime, ErrorTime, Event, FilePart, FinishReason,
    MessageError, MessageInfo, Part, PartKind, RetryTime, RunningTime, Session, SqliteStore, Store,
    StoreError, TextPart, TextTime, Todo, TodoPriority, TodoStatus, Tokens, ToolPart, ToolState,
    UserMessage,
};

fn tool(call_id: &str, state: ToolState) -> PartKind {
    PartKind::Tool(ToolPart {
        call_id: call_id.into(),
        tool: "bash".into(),
        state,
    })
}

fn every_kind() -> Vec<PartKind> {
    let tokens = Tokens {
        input: 10,
        output: 20,
        reasoning: 3,
        cache: CacheTokens { read: 4, write: 5 },
    };
    vec![
        PartKind::Text(TextPart {
            text: "hello 世界".into(),
            synthetic: true,
            ignored: true,
            time: Some(TextTime {
                start: 7,
                end: Some(9),
            }),
        }),
        PartKind::Reasoning {
            text: "thinking".into(),
            metadata: Some(json!({"anthropic": {"signature": "sig"}})),
            time: Some(TextTime {
                start: 3,
                end: Some(5),
            }),
        },
        tool("c1", ToolState::Pending { input: json!({}) }),
        tool(
            "c2",
            ToolState::Running {
                input: json!({"command": "ls"}),
                title: Some("ls".into()),
                metadata: Some(json!({"lines": 1})),
                time: RunningTime { start: 1 },
            },
        ),
        tool(
            "c3",
            ToolState::Completed {
                input: json!({"command": "ls"}),
                output: "a\nb".into(),
                title: "ls".into(),
                metadata: json!({"exit": 0}),
                time: CompletedTime {
                    start: 1,
                    end: 2,
                    compacted: Some(3),
                },
                attachments: Vec::new(),
            },
        ),
        tool(
            "c4",
            ToolState::Error {
                input: json!({"command": "false"}),
                error: "exit 1".into(),
                time: ErrorTime { start: 1, end: 2 },
            },
        ),
        PartKind::File(FilePart {
            mime: "image/png".into(),
            url: "data:image/png;base64,AAAA".into(),
            filename: Some("a.png".into()),
            source: Some(json!({"type": "file", "path": "a.png"})),
        }),
        PartKind::Compaction {
            auto: true,
            overflow: false,
        },
        PartKind::Subtask {
            prompt: "find the bug".into(),
            description: "search".into(),
            agent: "explore".into(),
        },
        PartKind::StepStart,
        PartKind::StepFinish {
            reason: FinishReason::ToolCalls,
            tokens,
            cost: 0.25,
        },
        PartKind::Patch {
            hash: "abc123".into(),
            files: vec!["src/main.rs".into()],
        },
        PartKind::Agent {
            name: "explore".into(),
        },
        PartKind::Retry {
            attempt: 2,
            error: MessageError::new("APIError", "overloaded"),
            time: RetryTime { created: 7 },
        },
    ]
}

#[test]
fn every_part_type_round_trips() {
    let dir = TempDir::new("parts");
    let store = SqliteStore::open(dir.db()).expect("opens");
    let (session, _, assistant) = exchange(&store);
    let parts: Vec<Part> = every_kind()
        .into_iter()
        .map(|kind| Part::new(&session.id, &assistant.id, kind))
        .collect();
    for part in &parts {
        store.put_part(part).expect("puts part");
    }
    drop(store);

    let store = SqliteStore::open_with(
        dir.db(),
        ward_store::SqliteOptions {
            recover: false,
            ..Default::default()
        },
    )
    .expect("reopens");
    let message = store.get_message(&assistant.id).expect("gets message");
    assert_eq!(message.info, MessageInfo::Assistant(assistant));
    assert_eq!(message.parts, parts);
}

#[test]
fn parts_serialise_with_a_type_tag_beside_their_ids() {
    let part = Part::new("ses_1", "msg_1", every_kind().remove(3));
    let json = serde_json::to_value(&part).expect("serialises");
    assert_eq!(json["type"], "tool");
    assert_eq!(json["session_id"], "ses_1");
    assert_eq!(json["state"]["status"], "running");
    assert_eq!(json["state"]["time"]["start"], 1);
    let step = serde_json::to_value(Part::new("s", "m", PartKind::StepStart)).expect("ok");
    assert_eq!(step["type"], "step-start");
}

#[test]
fn messages_and_sessions_round_trip() {
    let dir = TempDir::new("sessions");
    let store = SqliteStore::open(dir.db()).expect("opens");
    let mut session = Session::new("/project", "build");
    session.title = "Fix the build".into();
    session.model = Some(model());
    session.permission = vec![Rule::new("bash", "git push *", Action::Deny)];
    store.create_session(&session).expect("creates");
    assert_eq!(store.get_session(&session.id).expect("gets"), session);

    let mut user = UserMessage::new(&session.id, "build", model());
    user.system = Some("be brief".into());
    store.put_message(&user.clone().into()).expect("puts");
    let mut answer = AssistantMessage::new(&user);
    answer.finish = Some(FinishReason::Stop);
    answer.error = Some(MessageError::new("APIError", "x"));
    answer.summary = true;
    answer.time.completed = Some(answer.time.created + 5);
    store.put_message(&answer.clone().into()).expect("puts");

    let history = store.messages(&session.id, None).expect("lists");
    let infos: Vec<MessageInfo> = history.into_iter().map(|m| m.info).collect();
    assert_eq!(infos, vec![user.into(), answer.into()]);

    let usage = Tokens {
        input: 100,
        output: 7,
        ..Tokens::default()
    };
    store.add_usage(&session.id, usage, 0.5).expect("adds");
    let updated = store.add_usage(&session.id, usage, 0.5).expect("adds");
    assert_eq!(updated.tokens.input, 200);
    assert_eq!(updated.cost, 1.0);
    assert!(updated.time.updated >= session.time.updated);

    let mut renamed = updated.clone();
    renamed.title = "Renamed".into();
    assert_eq!(
        store.update_session(&renamed).expect("updates").title,
        "Renamed"
    );
    let missing = Session::new("/elsewhere", "build");
    assert!(matches!(
        store.update_session(&missing),
        Err(StoreError::NotFound {
            kind: "session",
            ..
        })
    ));
}

#[test]
fn children_listing_and_cascading_delete() {
    let dir = TempDir::new("children");
    let store = SqliteStore::open(dir.db()).expect("opens");
    let (root, _, assistant) = exchange(&store);
    store
        .put_part(&text(&root, &assistant.id, "hi"))
        .expect("puts part");
    let child = Session::child_of(&root, "explore");
    let grandchild = Session::child_of(&child, "explore");
    store.create_session(&child).expect("creates child");
    store
        .create_session(&grandchild)
        .expect("creates grandchild");
    let other = Session::new("/other", "plan");
    store.create_session(&other).expect("creates other");

    let roots: Vec<String> = store
        .list_sessions()
        .expect("lists")
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(roots, vec![other.id.clone(), root.id.clone()]);
    assert_eq!(
        store.list_children(&root.id).expect("lists"),
        vec![child.clone()]
    );

    let mut events = store.bus().subscribe();
    store.delete_session(&root.id).expect("deletes");
    let deleted: Vec<String> = std::iter::from_fn(|| events.try_recv().ok())
        .filter_map(|event| match event {
            Event::SessionDeleted { info } => Some(info.id),
            _ => None,
        })
        .collect();
    assert_eq!(deleted, vec![grandchild.id, child.id, root.id.clone()]);
    assert!(store.messages(&root.id, None).expect("lists").is_empty());
    assert!(store.get_message(&assistant.id).is_err());
    assert!(matches!(
        store.delete_session(&root.id),
        Err(StoreError::NotFound { .. })
    ));
    assert_eq!(store.list_sessions().expect("lists").len(), 1);
}

#[test]
fn history_since_a_message_and_since_the_compaction_point() {
    let dir = TempDir::new("since");
    let store = SqliteStore::open(dir.db()).expect("opens");
    let session = Session::new("/project", "build");
    store.create_session(&session).expect("creates");
    let mut ids = Vec::new();
    for turn in 0..10 {
        let user = UserMessage::new(&session.id, "build", model());
        store.put_message(&user.clone().into()).expect("puts");
        store
            .put_part(&text(&session, &user.id, &format!("turn {turn}")))
            .expect("puts part");
        ids.push(user.id);
    }

    let since = store.messages(&session.id, Some(&ids[6])).expect("lists");
    let got: Vec<&str> = since.iter().map(|m| m.info.id()).collect();
    assert_eq!(got, ids[6..].iter().map(String::as_str).collect::<Vec<_>>());
    assert!(since.iter().all(|m| m.parts.len() == 1));
    assert!(matches!(&since[0].parts[0].kind, PartKind::Text(t) if t.text == "turn 6"));

    assert_eq!(
        store
            .messages_since_compaction(&session.id)
            .expect("all")
            .len(),
        10
    );
    assert_eq!(store.compaction(&session.id).expect("reads"), None);
    let first = store
        .set_compaction(&session.id, &ids[4], &ids[3])
        .expect("sets");
    let second = store
        .set_compaction(&session.id, &ids[8], &ids[7])
        .expect("sets");
    assert_eq!((first.index, second.index), (1, 2));
    assert_eq!(store.compaction(&session.id).expect("reads"), Some(second));
    assert_eq!(
        store
            .messages_since_compaction(&session.id)
            .expect("tail")
            .len(),
        3
    );

    // Removing the summary message removes the compaction point made from it.
    store.remove_message(&session.id, &ids[8]).expect("removes");
    assert_eq!(store.compaction(&session.id).expect("reads"), Some(first));
}

#[test]
fn todos_replace_the_whole_list() {
    let dir = TempDir::new("todos");
    let store = SqliteStore::open(dir.db()).expect("opens");
    let (session, _, _) = exchange(&store);
    assert!(store.todos(&session.id).expect("reads").is_empty());
    let todos = vec![
        Todo {
            id: "1".into(),
            content: "write tests".into(),
            status: TodoStatus::InProgress,
            priority: TodoPriority::High,
        },
        Todo {
            id: "2".into(),
            content: "ship".into(),
            status: TodoStatus::Pending,
            priority: TodoPriority::Medium,
        },
    ];
    let mut events = store.bus().subscribe();
    store.set_todos(&session.id, &todos).expect("sets");
    assert_eq!(store.todos(&session.id).expect("reads"), todos);
    store.set_todos(&session.id, &todos[1..]).expect("sets");
    assert_eq!(
        store.todos(&session.id).expect("reads"),
        todos[1..].to_vec()
    );
    let event = events.try_recv().expect("published");
    assert_eq!(event.name(), "todo.updated");
    assert!(store.set_todos("ses_missing", &todos).is_err());
}

#[test]
fn removals_publish_and_are_idempotent() {
    let dir = TempDir::new("remove");
    let store = SqliteStore::open(dir.db()).expect("opens");
    let (session, user, assistant) = exchange(&store);
    let part = text(&session, &assistant.id, "x");
    store.put_part(&part).expect("puts");
    let mut events = store.bus().subscribe();
    store
        .remove_part(&session.id, &assistant.id, &part.id)
        .expect("removes");
    store
        .remove_part(&session.id, &assistant.id, &part.id)
        .expect("removing twice is fine");
    store
        .remove_message(&session.id, &user.id)
        .expect("removes");
    let names: Vec<&str> = std::iter::from_fn(|| events.try_recv().ok())
        .map(|e| e.name())
        .collect();
    assert_eq!(names, vec!["message.part.removed", "message.removed"]);
    assert_eq!(store.messages(&session.id, None).expect("lists").len(), 1);
}

#[test]
fn a_part_for_a_missing_message_is_refused_with_its_ids() {
    let store = SqliteStore::open_in_memory().expect("opens");
    let (session, _, _) = exchange(&store);
    let error = store
        .put_part(&text(&session, "msg_missing", "x"))
        .expect_err("foreign key");
    let message = error.to_string();
    assert!(
        message.contains("msg_missing") && message.contains("FOREIGN KEY"),
        "{message}"
    );
}

#[test]
fn a_message_stored_with_its_parts_comes_back_whole_with_events_in_order() {
    let dir = TempDir::new("together");
    let store = SqliteStore::open(dir.db()).expect("opens");
    let session = Session::new("/project", "build");
    store.create_session(&session).expect("creates");
    let user = UserMessage::new(&session.id, "build", model());
    let parts = [
        text(&session, &user.id, "first"),
        text(&session, &user.id, "second"),
    ];
    let mut events = store.bus().subscribe();
    store
        .put_message_with_parts(&user.clone().into(), &parts)
        .expect("puts");
    let order: Vec<String> = std::iter::from_fn(|| events.try_recv().ok())
        .map(|event| match event {
            Event::MessageUpdated { info } => format!("message {}", info.id()),
            Event::PartUpdated { part } => format!("part {}", part.id),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        order,
        [
            format!("message {}", user.id),
            format!("part {}", parts[0].id),
            format!("part {}", parts[1].id)
        ]
    );
    let stored = store.get_message(&user.id).expect("reads");
    assert_eq!(stored.parts, parts.to_vec());

    // A part that cannot be stored (its message belongs to another session) takes
    // the message with it: nothing is half-written.
    let other = UserMessage::new(&session.id, "build", model());
    let stray = Part::new(
        "no-such-session",
        &other.id,
        PartKind::Text(TextPart::default()),
    );
    assert!(
        store
            .put_message_with_parts(&other.clone().into(), &[stray])
            .is_err()
    );
    assert!(store.get_message(&other.id).is_err());
}
