//! The pure heart of ClawMux: what an agent's state is, which events move it, and how messages look on the
//! wire to an agent.
//!
//! Nothing here reads a clock, a file or a socket. Time is passed in as [`Millis`], so the same events always
//! give the same decisions: the store replays them after a restart, tests feed them by the thousand, and a
//! wrong indicator can be reproduced from its recorded events alone.

pub mod activity;
pub mod attention;
pub mod background;
pub mod between;
pub mod board;
pub mod changes;
pub mod decision;
pub mod event;
pub mod explain;
pub mod handover;
pub mod hex;
pub mod hook;
pub mod http1;
pub mod layout;
pub mod lead;
pub mod machine;
pub mod models;
pub mod observe;
pub mod opinion;
pub mod printable;
pub mod program_status;
pub mod redact;
pub mod remote;
pub mod replay;
pub mod report;
pub mod search;
pub mod shell;
pub mod spoken;
pub mod state;
pub mod status;
pub mod sync;
pub mod time;
pub mod transcript;
pub mod usage;
pub mod wire;

pub use attention::{Attention, AttentionChange, Need, RATE_LIMIT};
pub use decision::{Decision, Outcome, Reason};
pub use event::{Event, Source, Undelivered};
pub use hook::{Hook, HookError, HookEvent, ToolCall};
pub use machine::step;
pub use state::{Snapshot, State};
pub use time::Millis;
