//! The subcommands of `clawmux hook`, `hooks`, `agent`, `phone`, `worktree`, `remote` and `voice`, as clap
//! reads them.

use std::path::PathBuf;

use clap::Subcommand;

#[derive(Subcommand)]
pub(crate) enum VoiceCommand {
    /// The models speech can be heard with on this device: their sizes, which are downloaded.
    Models,
    /// Download a model (the hub does it, resumable and checked; Ctrl-C cancels and keeps what came).
    Download {
        /// `tiny.en`, `base.en` (the default) or `small.en`.
        #[arg(default_value = "base.en")]
        model: String,
    },
}

#[derive(Subcommand)]
pub(crate) enum HookCommand {
    /// The Stop hook: exit 2 with the reason on stderr to keep Claude working.
    Stop,
    /// Forward any hook event from stdin to the hub; print its answer for Claude.
    ToolStatus,
    /// The PermissionRequest hook: wait for the user's answer from the app; print it for Claude.
    Permission,
    /// The HTTP door of a spawned agent's hooks, started by the hub with the agent (its key on stdin).
    #[command(hide = true)]
    Relay {
        /// The agent it serves.
        agent: String,
        /// The hub's data folder (where its private socket is).
        #[arg(long, env = "CLAWMUX_HOME")]
        data_dir: Option<PathBuf>,
        /// How long a connection answering nothing may stay silent, in milliseconds (the hub's).
        #[arg(long, default_value_t = clawmux_api::transport::IDLE_MS)]
        idle_ms: u64,
    },
    /// A hook of a session ClawMux did not start (installed by `clawmux hooks install`).
    Observe {
        /// The hub's data folder (default: ~/.clawmux or CLAWMUX_HOME).
        #[arg(long, env = "CLAWMUX_HOME")]
        data_dir: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
pub(crate) enum HooksCommand {
    /// Add ClawMux's hooks to Claude Code's settings, keeping every hook and setting already there.
    Install {
        /// The settings file (default: $CLAUDE_CONFIG_DIR/settings.json or ~/.claude/settings.json).
        #[arg(long)]
        settings: Option<PathBuf>,
        /// The hub's data folder the hooks report to (default: ~/.clawmux).
        #[arg(long, env = "CLAWMUX_HOME")]
        data_dir: Option<PathBuf>,
    },
    /// Remove exactly the hooks `install` added.
    Uninstall {
        /// The settings file (default: $CLAUDE_CONFIG_DIR/settings.json or ~/.claude/settings.json).
        #[arg(long)]
        settings: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
pub(crate) enum AgentCommand {
    /// Register an agent without starting a process; prints the shell exports to run Claude as it.
    Add {
        /// A plain identifier: letters, digits, `_` and `-`.
        name: String,
        /// Its work folder (default: <data dir>/agents/<name>).
        #[arg(long)]
        work_dir: Option<PathBuf>,
    },
    /// List agents and their states.
    List,
}

#[derive(Subcommand)]
pub(crate) enum PhoneCommand {
    /// Let paired phones reach the agents.
    On,
    /// Shut every phone out (they stay paired).
    Off,
    /// Whether phones are on, and the phones paired.
    Status,
    /// A link to open on the phone, with a code good once, for five minutes.
    Pair,
    /// Revoke a phone at once.
    Revoke {
        /// The phone's id, as `status` lists it.
        id: String,
    },
    /// Who runs this hub, as the pushes to phones name it to their push services (Apple's asks for a real
    /// one): `mailto:you@example.com` or an `https://` address; `off` for none.
    Contact {
        /// The contact, or `off`.
        contact: String,
    },
    /// Also listen for phones at an address of this machine, over TLS (a Tailscale or WireGuard
    /// address); `off` to stop. Without --cert and --key, the app makes a certificate, whose fingerprint
    /// the phone's browser shows to compare.
    Address {
        /// `ADDRESS:PORT` (e.g. 100.101.102.103:3461), or `off`.
        listen: String,
        /// The name phones use for it (e.g. desk.tail1234.ts.net), if not the address.
        #[arg(long)]
        name: Option<String>,
        /// Your certificate chain (PEM), e.g. from `tailscale cert`.
        #[arg(long, requires = "key")]
        cert: Option<std::path::PathBuf>,
        /// Its private key (PEM, readable by you alone).
        #[arg(long, requires = "cert")]
        key: Option<std::path::PathBuf>,
    },
}

#[derive(Subcommand)]
pub(crate) enum WorktreeCommand {
    /// Every agent's worktree: its branch and base, whether the agent runs, what is not committed or in
    /// no other branch, and its disk use.
    List,
    /// Remove an agent's worktree and branch (the agent must not run). Work that is not committed, or
    /// commits no other branch has, keep it unless --discard.
    Remove {
        /// The agent.
        name: String,
        /// Lose the work that is nowhere else.
        #[arg(long)]
        discard: bool,
    },
}

/// `clawmux remote ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum RemoteCommand {
    /// Keep a machine in the list, and try it: `clawmux remote add gpu ssh://me@gpu.lan` (a host of your
    /// ssh config works too: `ssh://gpu`).
    Add {
        /// Its name here (letters, digits, `_` and `-`).
        name: String,
        /// Where it is: ssh://[user@]host[:port].
        url: String,
    },
    /// The machines kept.
    List,
    /// Forget a machine (its hub and agents go on there).
    Remove {
        /// Its name.
        name: String,
    },
}
