//! The attacks a local server meets, each refused: no token, a guessed token, a
//! rebinding `Host`, another site's page, a network bind without a token of one's
//! own; and the token kept where only its owner can read it.

use serde_json::{Value, json};
use ward_tests::Project;
use ward_tests::llm::Turn;

use super::{Served, project_asking_for_reads};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_but_health_needs_the_token() {
    let (p, _llm) = project_asking_for_reads("serve-token", vec![Turn::text("x")]).await;
    let served = Served::start(&p, &[], &[]).await;
    let (status, body) = served.raw("GET", "/global/health", &[], None).await;
    assert_eq!(status, 200, "{body}");
    for (method, path) in [
        ("GET", "/session"),
        ("POST", "/session"),
        ("GET", "/event"),
        ("GET", "/doc"),
        ("GET", "/config"),
        ("GET", "/permission"),
    ] {
        let (status, body) = served.raw(method, path, &[], None).await;
        assert_eq!(status, 401, "{method} {path} without a token: {body}");
        assert!(body.contains("Unauthorized"), "{body}");
        let wrong = format!("Authorization: Bearer {}x", served.token);
        let (status, _) = served.raw(method, path, &[&wrong], None).await;
        assert_eq!(status, 401, "{method} {path} with a wrong token");
        let basic = format!("Authorization: Basic {}", served.token);
        let (status, _) = served.raw(method, path, &[&basic], None).await;
        assert_eq!(status, 401, "{method} {path} with the token as Basic");
    }
    // Nothing was created by the refused POST.
    let (status, body) = served.call("GET", "/session", None).await;
    assert_eq!(status, 200);
    assert_eq!(body, "[]");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebinding_host_is_refused_even_with_the_token() {
    let (p, _llm) = project_asking_for_reads("serve-host", vec![Turn::text("x")]).await;
    let served = Served::start(&p, &[], &[]).await;
    let auth = format!("Authorization: Bearer {}", served.token);
    for host in [
        format!("Host: evil.example:{}", served.port),
        "Host: 127.0.0.1".to_string(),
        format!("Host: 127.0.0.1.nip.io:{}", served.port),
    ] {
        let (status, body) = served.raw("GET", "/session", &[&auth, &host], None).await;
        assert_eq!(status, 421, "{host}: {body}");
        let (status, _) = served
            .raw(
                "POST",
                "/session",
                &[&auth, &host, "Content-Type: application/json"],
                Some("{}"),
            )
            .await;
        assert_eq!(status, 421, "{host} POST");
    }
    for host in [
        format!("Host: localhost:{}", served.port),
        format!("Host: 127.0.0.1:{}", served.port),
    ] {
        let (status, _) = served.raw("GET", "/session", &[&auth, &host], None).await;
        assert_eq!(status, 200, "{host}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_sites_page_cannot_call_the_api_unless_allowed() {
    let (p, _llm) = project_asking_for_reads("serve-origin", vec![Turn::text("x")]).await;
    let served = Served::start(&p, &["--cors", "https://allowed.example"], &[]).await;
    let auth = format!("Authorization: Bearer {}", served.token);
    let json = "Content-Type: application/json";
    // A page elsewhere, even holding the token, gets nothing and starts nothing.
    let (status, body) = served
        .raw(
            "POST",
            "/session",
            &[&auth, json, "Origin: http://evil.example"],
            Some("{}"),
        )
        .await;
    assert_eq!(status, 403, "{body}");
    let (status, _) = served
        .raw(
            "OPTIONS",
            "/session",
            &[
                "Origin: http://evil.example",
                "Access-Control-Request-Method: POST",
            ],
            None,
        )
        .await;
    assert_eq!(status, 403, "its preflight is refused too");
    let (_, sessions) = served.call("GET", "/session", None).await;
    assert_eq!(sessions, "[]", "no session was created");
    // The allowed origin and the server's own page pass.
    let (status, _) = served
        .raw(
            "POST",
            "/session",
            &[&auth, json, "Origin: https://allowed.example"],
            Some("{}"),
        )
        .await;
    assert_eq!(status, 200);
    let own = format!("Origin: http://127.0.0.1:{}", served.port);
    let (status, _) = served.raw("GET", "/session", &[&auth, &own], None).await;
    assert_eq!(status, 200);
    // A body that is not JSON (what a page can send without a preflight) is refused.
    let (status, _) = served
        .raw(
            "POST",
            "/session",
            &[&auth, "Content-Type: text/plain"],
            Some("{}"),
        )
        .await;
    assert_eq!(status, 415);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_network_bind_needs_a_token_of_ones_own() {
    let p = Project::new("serve-bind");
    let out = p
        .ward()
        .args(["serve", "--port", "0", "--hostname", "0.0.0.0"])
        .env_remove("WARD_SERVER_TOKEN")
        .output()
        .expect("run ward serve");
    assert!(!out.status.success(), "it must not start");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("WARD_SERVER_TOKEN"), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "nothing was served: {:?}",
        out.stdout
    );
    // A token too short to resist guessing is refused as well.
    let out = p
        .ward()
        .args(["serve", "--port", "0", "--hostname", "0.0.0.0"])
        .env("WARD_SERVER_TOKEN", "short")
        .output()
        .expect("run ward serve");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_server_has_its_own_private_token_file_removed_when_it_stops() {
    use std::os::unix::fs::PermissionsExt;
    let (p, _llm) = project_asking_for_reads("serve-file", vec![Turn::text("x")]).await;
    let first = Served::start(&p, &[], &[]).await;
    let token = first.token.clone();
    assert!(token.len() >= 32, "{token}");
    let file = std::path::PathBuf::from(&first.token_file);
    assert_eq!(file, p.data.join(format!("server/{}.token", first.port)));
    assert_eq!(std::fs::read_to_string(&file).expect("token file"), token);
    let mode = std::fs::metadata(&file).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // A second server on the same data directory, while the first one serves: each
    // has its own token and file, and the first one's clients go on working.
    let given = "a-token-of-my-own-0123456789";
    let second = Served::start(&p, &[], &[("WARD_SERVER_TOKEN", given)]).await;
    assert_eq!(second.token, given);
    assert_ne!(second.token_file, first.token_file);
    assert_eq!(
        std::fs::read_to_string(&file).expect("first file kept"),
        token
    );
    assert_eq!(
        std::fs::read_to_string(&second.token_file).expect("second file"),
        given
    );
    let (status, body) = first.call("GET", "/session", None).await;
    assert_eq!(status, 200, "the first server's token still works: {body}");
    let bearer = |t: &str| format!("Authorization: Bearer {t}");
    let (status, _) = second
        .raw("GET", "/session", &[&bearer(&token)], None)
        .await;
    assert_eq!(status, 401, "one server's token opens no other");
    let (status, body) = second
        .call("POST", "/session", Some(&json!({}).to_string()))
        .await;
    assert_eq!(status, 200, "{body}");

    // Stopped, a server removes its own file and no other.
    let second_file = std::path::PathBuf::from(&second.token_file);
    assert!(second.terminate().await, "a clean stop");
    assert!(!second_file.exists(), "{second_file:?} removed");
    assert!(file.exists(), "the first server's file stays");
    let (status, _) = first.call("GET", "/session", None).await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_clients_log_in_with_the_token_as_their_basic_password() {
    let (p, _llm) = project_asking_for_reads("serve-basic", vec![Turn::text("x")]).await;
    let served = Served::start(&p, &[], &[]).await;
    // What `opencode attach URL -p TOKEN` sends: user `opencode`, the token as password.
    let basic = |credentials: &str| {
        use base64::Engine as _;
        let encoded = base64::engine::general_purpose::STANDARD.encode(credentials);
        format!("Authorization: Basic {encoded}")
    };
    let token = served.token.clone();
    for (credentials, expected) in [
        (format!("opencode:{token}"), 200),
        (format!("anyone:{token}"), 200),
        (format!(":{token}"), 200),
        ("opencode:wrong".to_string(), 401),
        (format!("{token}:"), 401),
        (token.clone(), 401),
    ] {
        let (status, body) = served
            .raw("GET", "/session", &[&basic(&credentials)], None)
            .await;
        assert_eq!(status, expected, "{credentials}: {body}");
    }
    // A refusal says how to log in both ways.
    let (status, body) = served.raw("GET", "/session", &[], None).await;
    assert_eq!(status, 401);
    assert!(body.contains("Bearer") && body.contains("Basic"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencodes_routes_ward_lacks_answer_501_naming_them_and_others_404() {
    let (p, _llm) = project_asking_for_reads("serve-unserved", vec![Turn::text("x")]).await;
    let served = Served::start(&p, &[], &[]).await;
    let error = |body: &str| -> Value { serde_json::from_str(body).expect("a JSON error") };
    // OpenCode has these; Ward does not serve them yet, and says so by name.
    for (method, path, template) in [
        ("GET", "/experimental/console", "/experimental/console"),
        ("POST", "/session/ses_x/share", "/session/{sessionID}/share"),
        ("POST", "/tui/show-toast", "/tui/show-toast"),
    ] {
        let (status, body) = served.call(method, path, None).await;
        assert_eq!(status, 501, "{method} {path}: {body}");
        let e = error(&body);
        assert_eq!(e["name"], "NotImplementedError", "{body}");
        let message = e["data"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(&format!("{method} {path}")) && message.contains(template),
            "{message}"
        );
    }
    // Nobody's route: 404, named.
    let (status, body) = served.call("GET", "/no/such/route", None).await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("GET /no/such/route"), "{body}");
    // A served path with a method it lacks: 405, named.
    let (status, body) = served.call("DELETE", "/doc", None).await;
    assert_eq!(status, 405, "{body}");
    assert!(body.contains("DELETE /doc"), "{body}");
    // Without the token nothing is told, not even which routes exist.
    let (status, _) = served.raw("GET", "/lsp", &[], None).await;
    assert_eq!(status, 401);
}
