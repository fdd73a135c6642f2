//! What a plugin may do, and what it tried to.
//!
//! - [`effective`]: a plugin's effective capabilities — what its manifest asks for
//!   (the [`Ceiling`]) intersected with what a person granted ([`Effective`]); a grant
//!   the ceiling does not cover is ignored and said so ([`IgnoredGrant`]).
//! - [`audit`]: every capability decision a plugin triggers, allowed or denied,
//!   appended to `audit.log` ([`Audit`]) and, when denied, published as a
//!   [`PluginEvent`].
//!
//! The plugin runtime (`ward-plugin`) asks these before every host import a plugin
//! calls; nothing here runs a plugin.

pub mod audit;
pub mod effective;

pub use audit::{Audit, AuditEntry, EventSink, PluginEvent};
pub use effective::{Ceiling, Effective, GrantRefused, HookGrant, IgnoredGrant, net_matches};
