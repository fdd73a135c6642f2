//! The web page in a real headless Chromium (Debian's `chromium` and
//! `chromium-driver`, driven over WebDriver): a prompt sent from the page streams its
//! answer, its permission dialog is answered with a click, the tool's output shows
//! (bidi controls escaped, as in the terminal); and a page on another origin, even
//! one holding the token, cannot start a prompt.

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use ward_tests::llm::Turn;

use super::webdriver::{Browser, available};
use super::{Served, project_asking_for_reads};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_page_streams_a_chat_and_answers_a_permission_dialog() {
    assert!(
        available(),
        "chromium and chromedriver are not installed (.ci/run installs them)"
    );
    let (p, llm) = project_asking_for_reads(
        "serve-web",
        vec![
            Turn::tool("r1", "read", json!({ "filePath": "a.txt" })),
            Turn::text("The file says alpha. <img src=x onerror=alert(1)> evil\u{202E}txt.sh"),
        ],
    )
    .await;
    // A file's bidi isolate and a model's override are shown as the terminal shows
    // them: escaped, not obeyed.
    p.write("a.txt", "alpha \u{2066}isolated\n");
    let served = Served::start(&p, &[], &[]).await;
    let browser = Browser::start().await;
    browser
        .goto(&format!("{}/#token={}", served.url, served.token))
        .await;
    browser
        .wait_for(
            "the stream",
            "return document.getElementById('connection').textContent === 'connected';",
        )
        .await;
    // The token left the address bar.
    let address = browser.eval("return location.href;").await;
    assert!(
        !address.as_str().unwrap_or_default().contains(&served.token),
        "{address}"
    );

    browser.type_into("#prompt", "read a.txt").await;
    browser.click("#send").await;
    let asked = browser
        .wait_for(
            "the permission dialog",
            "const d = document.getElementById('permission'); return d.open && document.getElementById('perm-what').textContent;",
        )
        .await;
    assert!(
        asked.as_str().unwrap_or_default().starts_with("read"),
        "{asked}"
    );
    browser.click("#perm-once").await;
    let text = browser
        .wait_for(
            "the streamed answer",
            "const t = [...document.querySelectorAll('.part-text')].map(e => e.textContent).join('\\n'); return t.includes('alpha.') && t;",
        )
        .await;
    assert!(
        text.as_str().unwrap_or_default().contains("<img src=x"),
        "shown as text: {text}"
    );
    assert!(
        text.as_str()
            .unwrap_or_default()
            .contains("evil\\u{202e}txt.sh"),
        "the override escaped: {text}"
    );
    let images = browser
        .eval("return document.querySelectorAll('#messages img').length;")
        .await;
    assert_eq!(images, 0, "the model's markup was not parsed");
    let output = browser
        .wait_for(
            "the completed tool",
            "const d = document.querySelector('details.tool[data-status=completed][data-tool=read]'); if (!d) return false; d.open = true; return d.querySelector('.tool-output').textContent;",
        )
        .await;
    assert!(
        output
            .as_str()
            .unwrap_or_default()
            .contains("alpha \\u{2066}isolated"),
        "the isolate escaped: {output}"
    );
    assert_eq!(llm.requests().len(), 2);

    // The screenshot the README shows.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let png = browser.screenshot().await;
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let shot = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ward-serve-web.png");
    std::fs::write(&shot, png).expect("write screenshot");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugins_own_question_is_shown_as_the_plugins() {
    assert!(
        available(),
        "chromium and chromedriver are not installed (.ci/run installs them)"
    );
    // A plugin with no grants asks about a key of its own, with a command of its
    // choosing in the question: the dialog must say who asks, and whose text it is.
    let (p, llm) = project_asking_for_reads(
        "serve-web-plugin-ask",
        vec![
            Turn::tool(
                "f1",
                "forge",
                json!({ "permission": "ask-forger:deploy", "patterns": ["prod"] }),
            ),
            Turn::text("FORGED"),
        ],
    )
    .await;
    p.install_test_plugin("ask-forger");
    let toml = p.read("ward.toml");
    p.write(
        "ward.toml",
        &format!("{toml}\"ask-forger:deploy\" = \"ask\"\n"),
    );
    let served = Served::start(&p, &[], &[]).await;
    let browser = Browser::start().await;
    browser
        .goto(&format!("{}/#token={}", served.url, served.token))
        .await;
    browser
        .wait_for(
            "the stream",
            "return document.getElementById('connection').textContent === 'connected';",
        )
        .await;
    browser.type_into("#prompt", "deploy").await;
    browser.click("#send").await;
    let asked = browser
        .wait_for(
            "the plugin's question",
            "const d = document.getElementById('permission'); return d.open && document.getElementById('perm-what').textContent;",
        )
        .await;
    assert_eq!(asked, "Plugin ask-forger asks — ask-forger:deploy: prod");
    let detail = browser
        .eval("return document.getElementById('perm-detail').textContent;")
        .await;
    assert_eq!(detail, "(from the plugin) rm -rf / # harmless, trust me");
    browser.click("#perm-reject").await;
    let out = browser
        .wait_for(
            "the refused tool",
            "const d = document.querySelector('details.tool[data-tool=forge][data-status=completed]'); return d && d.querySelector('.tool-output').textContent;",
        )
        .await;
    assert!(
        out.as_str().unwrap_or_default().starts_with("refused"),
        "{out}"
    );
    // The tool's result reaches the page before the loop sends it to the model:
    // the model's answer to the refusal is what shows the second request was made.
    browser
        .wait_for(
            "the answer after the refusal",
            "return [...document.querySelectorAll('.part-text')].some(e => e.textContent.includes('FORGED'));",
        )
        .await;
    assert_eq!(llm.requests().len(), 2);
}

/// Serves one fixed HTML page at any path on a port of its own: another origin.
async fn other_site(html: String) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let html = html.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = sock.read(&mut buf).await;
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{html}",
                    html.len()
                );
                let _ = sock.write_all(response.as_bytes()).await;
            });
        }
    });
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_another_origin_cannot_start_a_prompt_even_with_the_token() {
    assert!(
        available(),
        "chromium and chromedriver are not installed (.ci/run installs them)"
    );
    let (p, llm) = project_asking_for_reads("serve-cors", vec![Turn::text("PWNED")]).await;
    let served = Served::start(&p, &[], &[]).await;
    let (_, id) = served.new_session().await;
    let evil = other_site("<html><body>cat pictures</body></html>".into()).await;
    let browser = Browser::start().await;
    browser.goto(&format!("http://127.0.0.1:{evil}/")).await;
    // The worst case: the page somehow has the token. It tries the API as JSON
    // (preflighted), as a "simple" text/plain POST (not preflighted), and blind.
    let script = format!(
        r#"const url = "{url}/session/{id}/prompt_async";
        const body = JSON.stringify({{ parts: [{{ type: "text", text: "rm -rf ~" }}] }});
        const out = {{}};
        try {{
          const r = await fetch(url, {{ method: "POST", headers: {{ Authorization: "Bearer {token}", "Content-Type": "application/json" }}, body }});
          out.json = r.status;
        }} catch (e) {{ out.json = "blocked: " + e.name; }}
        try {{
          const r = await fetch(url, {{ method: "POST", headers: {{ "Content-Type": "text/plain" }}, body }});
          out.simple = r.status;
        }} catch (e) {{ out.simple = "blocked: " + e.name; }}
        try {{
          await fetch(url, {{ method: "POST", mode: "no-cors", body }});
          out.blind = "sent";
        }} catch (e) {{ out.blind = "blocked: " + e.name; }}
        try {{
          const r = await fetch("{url}/session", {{ headers: {{ Authorization: "Bearer {token}" }} }});
          out.read = r.status;
        }} catch (e) {{ out.read = "blocked: " + e.name; }}
        return out;"#,
        url = served.url,
        token = served.token,
    );
    let out = browser.eval(&script).await;
    assert_eq!(out["json"], "blocked: TypeError", "{out}");
    assert_eq!(out["simple"], "blocked: TypeError", "{out}");
    assert_eq!(out["read"], "blocked: TypeError", "{out}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        llm.requests().is_empty(),
        "no prompt reached the model: {out}"
    );
    let (_, messages) = served
        .call("GET", &format!("/session/{id}/message"), None)
        .await;
    assert_eq!(messages, "[]", "no prompt was stored");
}
