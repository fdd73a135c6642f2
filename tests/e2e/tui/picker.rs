//! The session picker (`/sessions`: continue, fork, delete after a confirmation) and
//! the model picker (`/models`), driven by keys on the pseudo-terminal; what they
//! did is checked on the screen and in the store.

use ward_store::{SqliteStore, Store};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use super::Tui;

/// The project's top-level sessions in the store: (id, title).
fn sessions(p: &Project) -> Vec<String> {
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let mut ids: Vec<String> = store
        .list_sessions()
        .unwrap()
        .into_iter()
        .filter(|s| s.parent_id.is_none())
        .map(|s| s.id)
        .collect();
    ids.sort();
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_continued_forked_and_deleted_from_the_picker() {
    let p = Project::new("tui-sessions");
    let llm = ScriptedLlm::start(vec![
        Turn::text("answer about apples"),
        Turn::text("answer about pears"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &[], 30, 110);
    tui.wait_for(" build ").await;
    tui.keys("apples\r");
    tui.wait_for("answer about apples").await;
    tui.keys("/new\r");
    tui.wait_until("a new session", |s| !s.contains("answer about apples"))
        .await;
    tui.keys("pears\r");
    tui.wait_for("answer about pears").await;
    let before = sessions(&p);
    assert_eq!(before.len(), 2, "{before:?}");

    // Newest first, the one shown selected: the pears session, then the apples one.
    tui.keys("/sessions\r");
    let screen = tui.wait_for("Enter continues").await;
    assert!(screen.contains("(current)"), "{screen}");
    tui.screenshot("sessions");
    tui.keys("\x1b[B\r");
    let screen = tui.wait_for("answer about apples").await;
    assert!(!screen.contains("answer about pears"), "{screen}");
    let apples = before
        .iter()
        .find(|id| screen.contains(id.as_str()))
        .expect("the continued session's id is shown")
        .clone();

    // Fork the apples session (now shown, so selected): a third session holding
    // its history.
    tui.keys("/sessions\r");
    tui.wait_for("Enter continues").await;
    tui.keys("f");
    let screen = tui
        .wait_until("the fork shown", |s| {
            !s.contains("Enter continues") && s.contains("answer about apples")
        })
        .await;
    let after_fork = sessions(&p);
    assert_eq!(after_fork.len(), 3, "{after_fork:?}");
    let fork = after_fork
        .iter()
        .find(|id| !before.contains(id))
        .unwrap()
        .clone();
    assert!(screen.contains(&fork), "{screen}");

    // Delete the apples original: the shown session (the fork) cannot be, the
    // other asks for a `y`, and `n` keeps it.
    tui.keys("/sessions\r");
    tui.wait_for("Enter continues").await;
    tui.keys("d");
    tui.wait_for("cannot be deleted here").await;
    let row = |screen: &str| {
        screen
            .lines()
            .position(|l| l.contains(&apples))
            .expect("the apples session is listed")
    };
    let selected = |screen: &str| {
        screen
            .lines()
            .position(|l| l.contains("› "))
            .expect("a row is selected")
    };
    let mut screen = tui.screen();
    while selected(&screen) < row(&screen) {
        tui.keys("\x1b[B");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        screen = tui.screen();
    }
    tui.keys("d");
    tui.wait_for("for good? [y] yes").await;
    tui.keys("n");
    tui.wait_until("not deleted", |s| !s.contains("for good?"))
        .await;
    assert_eq!(sessions(&p).len(), 3);
    tui.keys("d");
    tui.wait_for("for good? [y] yes").await;
    tui.keys("y");
    let screen = tui.wait_for(&format!("deleted {apples}")).await;
    assert!(!sessions(&p).contains(&apples));
    assert_eq!(sessions(&p).len(), 2);
    assert!(!screen.contains(&format!("› {apples}")), "{screen}");
    tui.keys("\x1b");
    tui.wait_until("the picker closed", |s| !s.contains("Enter continues"))
        .await;

    // `/new` twice and leave: neither session made is used, neither is kept.
    let kept = sessions(&p);
    tui.keys("/new\r");
    let first = wait_for_sessions(&p, |ids| ids.len() == 3).await;
    let made = first.iter().find(|id| !kept.contains(id)).unwrap().clone();
    tui.keys("/new\r");
    let second = wait_for_sessions(&p, |ids| ids.len() == 3 && !ids.contains(&made)).await;
    assert!(second.iter().any(|id| !kept.contains(id)), "{second:?}");
    tui.keys("\x04");
    assert!(tui.exit_status().await);
    assert_eq!(sessions(&p), kept);
}

/// The stored sessions once `done` holds of them (within 20 s).
async fn wait_for_sessions(p: &Project, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    let started = std::time::Instant::now();
    loop {
        let ids = sessions(p);
        if done(&ids) {
            return ids;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "the sessions are {ids:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_picker_switches_the_model_prompts_go_to() {
    let p = Project::new("tui-models");
    let llm = ScriptedLlm::start(vec![Turn::text("from the other model")]).await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str("[provider.scripted.models.other-model]\noutput = 512\n");
    p.write("ward.toml", &config);
    let mut tui = Tui::start(&p, &[], 30, 100);
    tui.wait_for(" build ").await;
    tui.keys("/models\r");
    let screen = tui.wait_for("Enter switches").await;
    assert!(screen.contains("scripted/test-model (current)"), "{screen}");
    assert!(screen.contains("scripted/other-model"), "{screen}");
    // The rows are in the configuration's order; move to the other one.
    let other_first = screen.find("scripted/other-model") < screen.find("scripted/test-model");
    tui.keys(if other_first { "\x1b[A\r" } else { "\x1b[B\r" });
    tui.wait_for("model: scripted/other-model").await;
    tui.keys("hi\r");
    tui.wait_for("from the other model").await;
    let sent = &llm.requests()[0].body;
    assert_eq!(sent["model"], "other-model", "{sent}");
    tui.keys("\x04");
    assert!(tui.exit_status().await);
}
