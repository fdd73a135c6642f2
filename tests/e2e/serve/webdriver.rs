//! Just enough of the W3C WebDriver protocol to drive Debian's headless Chromium
//! through `chromedriver` (installed by `.ci/run`): open a page, find, click, type,
//! run a script, take a screenshot. Written here rather than taken from a crate: it is
//! a dozen JSON requests, and the test suite should not pull in a browser framework.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::Child;

/// A chromedriver process and one browser session in it; both end on drop.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    http: reqwest::Client,
    _profile: tempdir::Dir,
}

mod tempdir {
    /// A directory removed on drop.
    pub struct Dir(pub std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Whether Chromium and its driver are installed.
pub fn available() -> bool {
    std::path::Path::new("/usr/bin/chromium").exists()
        && std::path::Path::new("/usr/bin/chromedriver").exists()
}

impl Browser {
    /// Starts chromedriver on a free port and a headless Chromium in it.
    pub async fn start() -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = tokio::process::Command::new("/usr/bin/chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // A group of its own, which the browser it starts joins: ending the group
            // ends both (killing the driver alone left every browser running).
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .expect("start chromedriver");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while http.get(format!("{base}/status")).send().await.is_err() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "chromedriver did not start"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let profile =
            std::env::temp_dir().join(format!("ward-chromium-{}-{port}", std::process::id()));
        let caps = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--window-size=1200,800",
                    format!("--user-data-dir={}", profile.display()),
                ],
            },
        }}});
        let created = post_json(&http, &format!("{base}/session"), &caps).await;
        let session = created["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no browser session: {created}"))
            .to_string();
        Browser {
            driver,
            base,
            session,
            http,
            _profile: tempdir::Dir(profile),
        }
    }

    async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let mut request = self.http.request(method, url);
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let bytes = request
            .send()
            .await
            .expect("webdriver request")
            .bytes()
            .await
            .expect("webdriver answer");
        let answer: Value = serde_json::from_slice(&bytes).expect("webdriver JSON");
        answer["value"].clone()
    }

    /// Opens `url`.
    pub async fn goto(&self, url: &str) {
        self.send(reqwest::Method::POST, "/url", Some(json!({ "url": url })))
            .await;
    }

    /// Runs `script` (the body of an async function) in the page and returns its
    /// value; a throw comes back as `{"thrown": message}`.
    pub async fn eval(&self, script: &str) -> Value {
        self.send(
            reqwest::Method::POST,
            "/execute/async",
            Some(json!({
                "script": format!(
                    "const done = arguments[arguments.length - 1];\
                     (async () => {{ {script} }})().then(done, (e) => done({{ thrown: String(e) }}));"
                ),
                "args": [],
            })),
        )
        .await
    }

    /// Waits, at most 30 s, for `script` to return something truthy; returns it.
    pub async fn wait_for(&self, what: &str, script: &str) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let value = self.eval(script).await;
            if !(value.is_null()
                || value == false
                || value == ""
                || value.get("error").is_some()
                || value.get("thrown").is_some())
            {
                return value;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out waiting for {what} (last: {value})"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Clicks the element `css` selects.
    pub async fn click(&self, css: &str) {
        let id = self.find(css).await;
        self.send(
            reqwest::Method::POST,
            &format!("/element/{id}/click"),
            Some(json!({})),
        )
        .await;
    }

    /// Types `text` into the element `css` selects.
    pub async fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css).await;
        self.send(
            reqwest::Method::POST,
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        )
        .await;
    }

    async fn find(&self, css: &str) -> String {
        let found = self
            .send(
                reqwest::Method::POST,
                "/element",
                Some(json!({ "using": "css selector", "value": css })),
            )
            .await;
        found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_string()
    }

    /// A PNG of the window.
    pub async fn screenshot(&self) -> Vec<u8> {
        let value = self.send(reqwest::Method::GET, "/screenshot", None).await;
        let b64 = value.as_str().expect("base64 screenshot");
        decode_base64(b64)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(group) = self.driver.id() {
            let _ = std::process::Command::new("kill")
                .args(["-s", "KILL", "--", &format!("-{group}")])
                .status();
        }
        let _ = self.driver.start_kill();
    }
}

async fn post_json(http: &reqwest::Client, url: &str, body: &Value) -> Value {
    let bytes = http
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("webdriver request")
        .bytes()
        .await
        .expect("webdriver answer");
    serde_json::from_slice(&bytes).expect("webdriver JSON")
}

fn decode_base64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text
        .bytes()
        .filter(|c| *c != b'=' && !c.is_ascii_whitespace())
    {
        let v = ALPHABET.iter().position(|a| *a == c).expect("base64") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}
