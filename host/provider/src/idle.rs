//! The idle timeout on a response body.
//!
//! A provider that stops sending without closing the connection would hang a
//! session forever. This adapter ends the byte stream with a retryable
//! [`ProviderError::IdleTimeout`] when no chunk arrives for the limit. It
//! measures silence, not total time: a long answer that keeps streaming is
//! never cut, and keep-alive comments count as activity.

use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt, stream};

use crate::error::ProviderError;

/// Passes chunks through; a read error becomes [`ProviderError::Transport`]
/// and silence longer than `limit` becomes [`ProviderError::IdleTimeout`].
/// Either error ends the stream.
pub(crate) fn with_idle_timeout<S, E>(
    bytes: S,
    limit: Duration,
) -> impl Stream<Item = Result<Bytes, ProviderError>>
where
    S: Stream<Item = Result<Bytes, E>>,
    E: std::error::Error + 'static,
{
    stream::unfold(Some(Box::pin(bytes)), move |state| async move {
        let mut bytes = state?;
        match tokio::time::timeout(limit, bytes.next()).await {
            Err(_) => Some((Err(ProviderError::IdleTimeout { after: limit }), None)),
            Ok(Some(Ok(chunk))) => Some((Ok(chunk), Some(bytes))),
            Ok(Some(Err(error))) => Some((Err(ProviderError::transport(&error)), None)),
            Ok(None) => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn silence_ends_the_stream_with_a_retryable_error() {
        let limit = Duration::from_millis(50);
        let chunks = stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(b"a"))])
            .chain(stream::pending());
        let got: Vec<_> = with_idle_timeout(chunks, limit).collect().await;
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], Ok(Bytes::from_static(b"a")));
        assert_eq!(got[1], Err(ProviderError::IdleTimeout { after: limit }));
        assert!(got[1].as_ref().is_err_and(ProviderError::retryable));
    }

    #[tokio::test]
    async fn read_errors_become_transport_errors() {
        let chunks = stream::iter([Err(std::io::Error::other("reset"))]);
        let got: Vec<_> = with_idle_timeout(chunks, Duration::from_secs(1))
            .collect()
            .await;
        assert!(
            matches!(&got[..], [Err(ProviderError::Transport { message })] if message == "reset")
        );
    }
}
