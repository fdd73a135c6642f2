//! Session management end to end: export and import (round trip, hostile files),
//! `--continue`, fork and delete, and the `question` tool, through the real binary
//! and a real store.

mod blobs;
mod manage;
mod projects;
mod question;
mod transfer;
