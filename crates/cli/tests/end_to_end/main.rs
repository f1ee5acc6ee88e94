//! The `clawmux` binary end to end, as one test binary (one link instead of one per file): a real hub
//! (`clawmux serve`) in a temporary data folder, real sockets, the real `clawmux` run as an agent and its
//! hooks run it. Each module is one area; `common` is the hub and the helpers they share.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

mod attention;
mod attention_replay;
mod bad_input;
mod between;
mod between_machines;
mod board;
mod browser;
mod crash;
mod crash_cycles;
mod device_voice;
mod doctor;
mod import;
mod leads;
mod observed;
mod other_users;
mod other_users_places;
mod phones;
mod phones_tls;
mod protocol;
mod relay;
mod remote;
mod remote_link;
mod search;
mod security;
mod soak;
mod together_kills;
mod usage;
mod voice;
mod voice_speech;
mod waits;
mod worktrees;
