use serde_json::json;
use ward_store::{CacheTokens, Tokens};
use ward_tokens::{Encoding, TokenCounter};

use super::*;
use crate::fixtures::{assistant, user};

fn limits(context: u64, input: Option<u64>, output: u64) -> Limits {
    Limits {
        context: Some(context),
        input,
        output: Some(output),
    }
}

#[test]
fn usable_follows_the_spec_formula() {
    let policy = ContextPolicy::default();
    // No input limit: context − max output (the one asked for, if any).
    assert_eq!(
        usable(&limits(64_000, None, 8_000), None, &policy),
        Some(56_000)
    );
    assert_eq!(
        usable(&limits(200_000, None, 64_000), Some(32_000), &policy),
        Some(168_000)
    );
    // Input limit: input − reserved, reserved = min(20000, max output).
    assert_eq!(
        usable(&limits(400_000, Some(272_000), 128_000), None, &policy),
        Some(252_000)
    );
    assert_eq!(
        usable(&limits(400_000, Some(272_000), 8_000), None, &policy),
        Some(264_000)
    );
    let reserved = ContextPolicy {
        reserved: Some(50_000),
        ..ContextPolicy::default()
    };
    assert_eq!(
        usable(&limits(400_000, Some(272_000), 8_000), None, &reserved),
        Some(222_000)
    );
    // A threshold is a fraction of the usable context.
    let early = ContextPolicy {
        threshold: Some(0.5),
        ..ContextPolicy::default()
    };
    assert_eq!(
        usable(&limits(64_000, None, 8_000), None, &early),
        Some(28_000)
    );
    let late = ContextPolicy {
        threshold: Some(1.0),
        ..ContextPolicy::default()
    };
    assert_eq!(
        usable(&limits(64_000, None, 8_000), None, &late),
        Some(56_000)
    );
    // Unknown window: nothing to protect.
    assert_eq!(usable(&Limits::default(), None, &policy), None);
}

#[test]
fn projection_starts_from_the_last_measured_step() {
    let mut tally = Tally::new(TokenCounter::new(Encoding::O200k));
    let output = vec!["word"; 1000].join(" ");
    let u = user("go");
    let mut a = assistant(&u, &[("bash", json!({"command": "ls"}), output.as_str())]);
    if let MessageInfo::Assistant(info) = &mut a.info {
        info.tokens = Tokens {
            input: 5_000,
            output: 100,
            reasoning: 0,
            cache: CacheTokens {
                read: 2_000,
                write: 0,
            },
        };
    }
    let later = user("and then");
    let messages = [&u, &a, &later];
    let projected = tally.projected(&messages, None, 999_999);
    // Measured 7100, plus the 1000-token result the step's usage could not include,
    // plus the newer user message; the overhead is already inside the measurement.
    let newer = tally.message(&later, true);
    assert_eq!(projected, 7_100 + 1_000 + newer);
    // With no measured step everything is counted, overhead included.
    let fresh = tally.projected(&[&u], None, 500);
    assert_eq!(fresh, 500 + tally.message(&u, true));
}

#[test]
fn pruned_outputs_count_as_the_placeholder() {
    let mut tally = Tally::new(TokenCounter::new(Encoding::O200k));
    let output = vec!["word"; 1000].join(" ");
    let u = user("go");
    let mut a = assistant(&u, &[("bash", json!({}), output.as_str())]);
    let full = tally.message(&a, true);
    if let PartKind::Tool(tool) = &mut a.parts[0].kind
        && let ToolState::Completed { time, .. } = &mut tool.state
    {
        time.compacted = Some(1);
    }
    let pruned = tally.message(&a, true);
    assert_eq!(full - pruned, 1000 - tally.text(PRUNED));
}
