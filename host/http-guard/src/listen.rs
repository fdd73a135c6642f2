//! Where a server may listen: a token is required off loopback and must be long
//! enough to resist guessing, checked before the address is bound — one rule for
//! `ward serve` and `ward mcp serve`.

use std::net::TcpListener;

use crate::{MIN_TOKEN_LEN, bracketed, is_loopback};

/// Why a server would not listen.
#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    /// A non-loopback address without a token of the user's own.
    #[error(
        "refusing to serve on {hostname} without a token: anyone who can reach it could \
         run tools and commands here; set {variable} (or bind 127.0.0.1)"
    )]
    TokenRequired {
        /// The address asked for.
        hostname: String,
        /// The environment variable that carries the token.
        variable: &'static str,
    },
    /// The token given is too short to resist guessing.
    #[error("{variable} must be at least {min} characters")]
    WeakToken {
        /// The environment variable that carried it.
        variable: &'static str,
        /// The least length.
        min: usize,
    },
    /// The address could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// `host:port`.
        address: String,
        /// Why.
        source: std::io::Error,
    },
}

/// Binds `hostname:port` (non-blocking, for an async runtime to take over) once the
/// token rules hold for `token`, which the user gave in `variable`.
pub fn listen(
    hostname: &str,
    port: u16,
    token: Option<&str>,
    variable: &'static str,
) -> Result<TcpListener, ListenError> {
    match token {
        None if !is_loopback(hostname) => {
            return Err(ListenError::TokenRequired {
                hostname: hostname.to_string(),
                variable,
            });
        }
        Some(t) if t.len() < MIN_TOKEN_LEN => {
            return Err(ListenError::WeakToken {
                variable,
                min: MIN_TOKEN_LEN,
            });
        }
        _ => {}
    }
    let address = format!("{}:{port}", bracketed(hostname));
    let bind_error = |source| ListenError::Bind {
        address: address.clone(),
        source,
    };
    let listener = TcpListener::bind(&address).map_err(bind_error)?;
    listener.set_nonblocking(true).map_err(bind_error)?;
    Ok(listener)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_loopback_a_long_token_is_required() {
        assert!(matches!(
            listen("0.0.0.0", 0, None, "T"),
            Err(ListenError::TokenRequired { variable: "T", .. })
        ));
        assert!(matches!(
            listen("127.0.0.1", 0, Some("short"), "T"),
            Err(ListenError::WeakToken {
                min: MIN_TOKEN_LEN,
                ..
            })
        ));
        assert!(listen("127.0.0.1", 0, None, "T").is_ok());
    }
}
