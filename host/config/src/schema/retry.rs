//! `[retry]`: how a failed model call is tried again.

use serde::{Deserialize, Serialize};

/// `[retry]` in `ward.toml`. Unset fields keep the built-in policy (8 attempts,
/// 2 s · 2^(n-1) capped at 30 s, 20 s for a server that cannot be reached).
///
/// ```toml
/// [retry]
/// connect_seconds = 5   # give up on a server that refuses connections after 5 s
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetryConfig {
    /// How many seconds a model call that cannot connect — connection refused,
    /// host unreachable, DNS or TLS failure, nothing sent — is retried before
    /// Ward gives up, counting the waits and the attempts; `0` gives up at once.
    /// Other errors (rate limits, server errors, cut streams) keep the attempt
    /// limit.
    pub connect_seconds: Option<u64>,
}
