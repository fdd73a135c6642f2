//! `ward:plugin` versions side by side: a component built for 0.1.0 (the `noop` and
//! `hostile` test plugins, built with the frozen 0.1.0 SDK and left as they were) and
//! one built for 0.2.0 (`typed-errors`, built with `ward-sdk`) load and run in the same
//! host, and a 0.2.0 component gets the host imports' refusals as the typed `denied`
//! case, which the test reads from the case the plugin reports, never from a message.

use ward_tests::Project;
use ward_tests::harness::Harness;

/// The arguments of `typed-errors`'s `host_errors` tool.
fn host_errors_args(command: &str, url: &str) -> String {
    serde_json::json!({ "command": command, "url": url }).to_string()
}

#[tokio::test]
async fn a_0_1_0_and_a_0_2_0_component_run_in_one_host() {
    let p = Project::new("api-both");
    let h = Harness::new(
        &p,
        &["noop", "hostile", "typed-errors"],
        &[("noop", &[]), ("hostile", &[]), ("typed-errors", &[])],
        "",
    );
    // 0.1.0, as before.
    h.assert_noop_works().await;
    // 0.2.0, in the same host.
    let out = h
        .call(
            "host_errors",
            &host_errors_args("echo hi", "https://example.com/"),
        )
        .await
        .expect("the 0.2.0 component runs");
    assert!(out.output.starts_with("ask: "), "{}", out.output);
    // A 0.1.0 component still gets the refusal as the bare message it always got.
    let err = h
        .call("exec", r#"{"text": "echo hi"}"#)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("not granted the `exec` capability"),
        "the 0.1.0 plugin's refusal: {err}"
    );
    // And the 0.1.0 component still runs after the 0.2.0 one did.
    h.assert_noop_works().await;
}

#[tokio::test]
async fn host_imports_refuse_a_0_2_0_component_with_the_denied_case() {
    let p = Project::new("api-denied");
    let h = Harness::new(&p, &["typed-errors"], &[("typed-errors", &[])], "");
    let out = h
        .call(
            "host_errors",
            &host_errors_args("echo hi", "https://example.com/"),
        )
        .await
        .expect("refusals are answers, not traps");
    assert_eq!(
        out.output, "ask: denied\nexec: denied\nhttp-fetch: denied",
        "without the grants every import is refused as `denied`"
    );
}

#[tokio::test]
async fn a_malformed_request_is_the_invalid_case() {
    let p = Project::new("api-invalid");
    let h = Harness::new(
        &p,
        &["typed-errors"],
        &[("typed-errors", &["exec", "net"])],
        "",
    );
    let out = h
        .call("host_errors", &host_errors_args("", "not a url"))
        .await
        .expect("refusals are answers, not traps");
    assert_eq!(
        out.output,
        "ask: denied\nexec: invalid\nhttp-fetch: invalid"
    );
}
