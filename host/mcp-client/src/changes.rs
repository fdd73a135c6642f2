//! A server's `notifications/tools/list_changed` (and `prompts/list_changed`),
//! coalesced: however many arrive, each list is asked for again at most once after
//! the last of them, by one task per connection, and memory does not grow with them.
//!
//! Each list has a *pending* flag. The transport ([`Coalescing`]) passes a change
//! notification on only when the flag was clear, sets it and wakes the connection's
//! refresher ([`watch`]); while it is set, the list is going to be asked for anyway,
//! so later notifications are dropped where they are read — before the protocol layer
//! spawns a task for each (a local server's lines are dropped before they are even
//! decoded as a whole: [`Changes::announced`]). The refresher clears the flag before
//! it asks, so a change announced while it is asking is passed on and asked for again.
//!
//! The handler wakes the refresher too, once the protocol layer has dropped what it
//! cached of the list (a wake-up from the transport alone could ask before that and
//! be answered from the cache); the transport's own wake-up is what guarantees the
//! flag is cleared even when the protocol layer drops a notification unhandled (one
//! sent before the server's answer to `initialize` is).

use std::sync::Weak;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::RoleClient;
use rmcp::model::{
    ConstString, JsonRpcMessage, PromptListChangedNotificationMethod, ServerJsonRpcMessage,
    ServerNotification, ToolListChangedNotificationMethod,
};
use rmcp::service::Peer;
use rmcp::transport::Transport;
use tokio::sync::Notify;

use crate::server::Shared;

/// One list's state: a change announced and not yet asked for, and the refresher's
/// wake-up (a [`Notify`] holds at most one stored wake-up, however often it is woken).
#[derive(Default)]
pub struct Pending {
    announced: AtomicBool,
    wake: Notify,
}

impl Pending {
    /// Whether a notification is passed on: only when none is waiting to be acted on
    /// (the refresher is woken for the one that is).
    fn admit(&self) -> bool {
        let first = !self.announced.swap(true, Ordering::AcqRel);
        if first {
            self.wake.notify_one();
        }
        first
    }

    /// Wakes the refresher (called by the handler, after the protocol layer has seen
    /// the notification and dropped what it cached of the list: the refresher's last
    /// listing then comes after that).
    pub fn wake(&self) {
        self.wake.notify_one();
    }
}

/// What one connection's transport, handler and refresher share.
#[derive(Default)]
pub struct Changes {
    /// The tool list.
    pub tools: Pending,
    /// The prompt list.
    pub prompts: Pending,
}

impl Changes {
    /// Whether a notification `method` announces a change already pending (so it can
    /// be dropped unread); `false` for any other method.
    pub fn announced(&self, method: &str) -> bool {
        let pending = if method == ToolListChangedNotificationMethod::VALUE {
            &self.tools
        } else if method == PromptListChangedNotificationMethod::VALUE {
            &self.prompts
        } else {
            return false;
        };
        pending.announced.load(Ordering::Acquire)
    }

    /// Whether `message` is passed on to the protocol layer.
    fn admit(&self, message: &ServerJsonRpcMessage) -> bool {
        match message {
            JsonRpcMessage::Notification(n) => match &n.notification {
                ServerNotification::ToolListChangedNotification(_) => self.tools.admit(),
                ServerNotification::PromptListChangedNotification(_) => self.prompts.admit(),
                _ => true,
            },
            _ => true,
        }
    }
}

/// A transport that drops change notifications while one is pending.
pub struct Coalescing<T> {
    inner: T,
    changes: std::sync::Arc<Changes>,
}

impl<T> Coalescing<T> {
    /// `inner`, its change notifications coalesced through `changes`.
    pub fn new(inner: T, changes: std::sync::Arc<Changes>) -> Self {
        Coalescing { inner, changes }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Coalescing<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        // Cancel-safe as the inner transport is: nothing is awaited once a message is in
        // hand.
        loop {
            let message = self.inner.receive().await?;
            if self.changes.admit(&message) {
                return Some(message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}

/// Asks for a list again each time the handler wakes it, until the connection (which
/// aborts this task) or the server goes away.
pub async fn watch(shared: Weak<Shared>, peer: Peer<RoleClient>, changes: std::sync::Arc<Changes>) {
    loop {
        tokio::select! {
            () = changes.tools.wake.notified() => {
                changes.tools.announced.store(false, Ordering::Release);
                let Some(shared) = shared.upgrade() else { return };
                if let Err(e) = crate::call::refresh_tools(&shared, &peer).await {
                    shared
                        .problems
                        .note(format!("listing its tools after they changed failed: {e}"));
                }
            }
            () = changes.prompts.wake.notified() => {
                changes.prompts.announced.store(false, Ordering::Release);
                let Some(shared) = shared.upgrade() else { return };
                crate::prompts::refresh(&shared, &peer).await;
            }
        }
    }
}
