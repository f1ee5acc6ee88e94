//! The protocol of the ClawMux hub, in a crate of its own so that everything that speaks it (the hub, the
//! desktop window, the `clawmux` command, the hub of another machine, the fuzzers) builds it and not the
//! hub: the UI's events ([`ui_event`]) and the agents' rows as clients read them.
//!
//! Pure data and its rules: no IO, no clock, no async; the hub gives each type its behaviour.

pub mod error;
pub mod phone;
pub mod search;
pub mod session;
pub mod transport;
pub mod ui_event;
pub mod usage;
pub mod worktree;

pub use error::Error;
pub mod agent;
pub mod asks;
pub mod commands;
pub mod doctor;
pub mod explain;
pub mod flags;
pub mod hands_free;
pub mod import;
pub mod lifecycle;
pub mod machines;
pub mod voice;
