//! The command line, as clap reads it: `clawmux` and every subcommand with its flags (a table; what each
//! does is in the module it names). The subcommands' own subcommands are in `subcommands.rs`.
//!
//! Long: a table of every subcommand and its flags.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::subcommands::{
    AgentCommand, HookCommand, HooksCommand, PhoneCommand, RemoteCommand, VoiceCommand,
    WorktreeCommand,
};
use crate::{env, explain, lifecycle, timeline};

#[derive(Parser)]
#[command(
    name = "clawmux",
    version,
    about = "The hub for running several Claude Code agents at once"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Run the hub headless (the desktop app runs the same hub in-process).
    Serve {
        /// Port on 127.0.0.1 (0 picks a free one).
        #[arg(long, env = "CLAWMUX_PORT", default_value_t = env::DEFAULT_PORT)]
        port: u16,
        /// Data folder (database, token, agents' default work folders).
        #[arg(long, env = "CLAWMUX_HOME")]
        data_dir: Option<PathBuf>,
        /// The address to listen on. Anything but loopback needs --allow-remote.
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// Allow a --bind address beyond this machine (with a warning: it exposes the hub).
        #[arg(long)]
        allow_remote: bool,
    },
    /// Other machines, each with its own hub, reached over your ssh (`--machine NAME` of the commands that
    /// talk to a hub).
    Remote {
        #[command(subcommand)]
        command: RemoteCommand,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Connect standard input and output to this machine's hub, starting it if it does not run: what
    /// another machine's `clawmux --machine` runs here over ssh.
    #[command(hide = true)]
    DialStdio {
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Block until a message arrives for this agent, print it, exit 0.
    Wait,
    /// Run PROGRAM behind the agent's terminal bridge, which answers Claude Code's status probe and hands
    /// its status reports to the hub: what an agent's tmux pane runs.
    #[command(hide = true)]
    Pty {
        /// The program and its arguments (after `--`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        argv: Vec<std::ffi::OsString>,
    },
    /// Send a message to the user or another agent; prints the new message id.
    Send {
        /// `user` or an agent's name.
        #[arg(long)]
        to: String,
        /// The message (markdown). Without it and with --re: a thumbs-up to the user.
        text: Option<String>,
        /// The id of the message this answers.
        #[arg(long)]
        re: Option<String>,
    },
    /// Ask another agent and wait for its answer (to your message, `--re` it): prints the answer. When
    /// none comes within the timeout, says so and exits 1; the answer then comes as a message.
    Ask {
        /// The agent asked.
        to: String,
        /// The question (markdown).
        text: String,
        /// How long to wait for the answer, in seconds.
        #[arg(long, default_value_t = 600)]
        timeout: u64,
    },
    /// Close your thread with another agent, after a last word it receives (it asks no answer); neither of
    /// you can write to the other until the user reopens it. Prints the last word's id.
    Close {
        /// The other agent.
        with: String,
        /// The last word.
        text: Option<String>,
    },
    /// The shared board: items the agents and the user work from.
    Task {
        #[command(subcommand)]
        command: crate::task::TaskCommand,
    },
    /// Hand your work to another agent: your branch, a summary of your work and the board's items you hold,
    /// as one message it receives. Prints that message's id and the items given.
    Handover {
        /// The agent that takes it.
        to: String,
    },
    /// As a lead the user named: allow a member's permission request (a tool the user listed, never a
    /// dangerous call).
    Allow {
        /// The member.
        agent: String,
        /// Its request, as the message that told you of it names it.
        request: String,
    },
    /// As a lead the user named: deny a member's permission request, with the reason its model reads.
    Deny {
        /// The member.
        agent: String,
        /// Its request.
        request: String,
        /// Why.
        why: Option<String>,
    },
    /// The status-line command of a spawned agent: hands Claude Code's payload to the hub (usage, context,
    /// limits) and prints a line within 50 ms, the user's own command's when chained. The same as the
    /// `clawmux-statusline` program beside this one, which ClawMux sets as it starts faster; kept for the
    /// settings written before it.
    Statusline {
        /// The user's own status-line command, run with the same payload; its line is the one printed.
        #[arg(long)]
        then: Option<String>,
        /// A session ClawMux did not start (set by `clawmux hooks install`): it reports to the hub of the
        /// data folder, by its Claude Code session id.
        #[arg(long)]
        observe: bool,
        /// The hub's data folder an observed session reports to (default: ~/.clawmux).
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// What each agent has used and costs, how full its context is, the account's limits, and the use per
    /// day.
    Usage {
        /// The hub's answer as JSON.
        #[arg(long)]
        json: bool,
        /// Days of history.
        #[arg(long, default_value_t = 7)]
        days: u32,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Messages any agent or the user ever said, found by their words, newest first. `deploy*` finds
    /// words that start so; `"the build is red"` those words in that order.
    Search {
        /// The words to look for (all of them must be there).
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        /// Only this agent's conversation.
        #[arg(long)]
        agent: Option<String>,
        /// Only from then on: a date (2026-11-20), a time (2026-11-20T09:00:00Z) or a span back (2h, 3days).
        #[arg(long)]
        since: Option<String>,
        /// Only what the user said.
        #[arg(long, conflicts_with = "agents")]
        user: bool,
        /// Only what the agents said.
        #[arg(long)]
        agents: bool,
        /// At most this many.
        #[arg(long, default_value_t = 20)]
        limit: u32,
        /// The hub's answer as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Claude Code hooks (command form).
    Hook {
        #[command(subcommand)]
        hook: HookCommand,
    },
    /// Manage agents.
    Agent {
        #[command(subcommand)]
        command: AgentCommand,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Start a Claude Code agent in its own terminal (tmux), with ClawMux's hooks and instructions.
    Spawn(lifecycle::Spawn),
    /// The agents' worktrees: list them with what they hold, remove one.
    Worktree {
        #[command(subcommand)]
        command: WorktreeCommand,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Phones: let them reach the agents through a tunnel of yours (SSH, Tailscale), pair one with a
    /// one-time link, list them, revoke one (docs/PHONE.md).
    Phone {
        #[command(subcommand)]
        command: PhoneCommand,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// What an agent with a worktree of its own changed: its commits and each file changed since its branch
    /// left its base, committed or not, with the diffs.
    Diff {
        /// The agent.
        name: String,
        /// Only the commits and the list of files with their counts.
        #[arg(long)]
        stat: bool,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Merge an agent's branch into its base, with the user's git (their config, hooks and signing). Nothing
    /// is written if a conflict, work not committed or changes in the base's checkout are in the way.
    Merge {
        /// The agent.
        name: String,
        /// One commit with all of the agent's changes, instead of a merge commit.
        #[arg(long, conflicts_with = "rebase")]
        squash: bool,
        /// The agent's commits replayed onto the base, with no merge commit.
        #[arg(long)]
        rebase: bool,
        /// The commit's message (default: from the agent's own summary of its work and its commits).
        #[arg(short, long)]
        message: Option<String>,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// End an agent's processes (its history stays).
    Terminate {
        /// The agent.
        name: String,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Start an agent again, resuming its Claude conversation.
    Restart {
        /// The agent.
        name: String,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Resume the agents that were running when the machine or ClawMux stopped (done at start unless
    /// turned off with `--at-start off`).
    Resume {
        /// Every agent found interrupted at this start and not resumed yet.
        #[arg(long)]
        all: bool,
        /// Whether ClawMux resumes them by itself when it starts.
        #[arg(long, value_name = "on|off", value_parser = ["on", "off"])]
        at_start: Option<String>,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Press Escape in an agent's terminal (Claude stops what it is doing).
    Interrupt {
        /// The agent.
        name: String,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Open an agent's terminal here (tmux attach; detach with Ctrl-b d).
    Attach {
        /// The agent.
        name: String,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Print the address of the web UI (with this install's token), for a browser.
    Open {
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Import the conversations of an original ClawMux installation found in the hub's data folder
    /// (`sessions/<agent>/history.json`); running it again imports nothing twice.
    Import {
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Speech to text on this device: the models, and downloading one.
    Voice {
        #[command(subcommand)]
        command: VoiceCommand,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Show every agent and its state.
    Status {
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Add or remove ClawMux's hooks in your own Claude Code settings (observed sessions).
    Hooks {
        #[command(subcommand)]
        command: HooksCommand,
    },
    /// An agent's decisions, hook events and transcript lines, interleaved in time order.
    Timeline {
        /// The agent.
        name: String,
        /// From this time on (RFC 3339, e.g. 2026-11-22T05:53:13Z, or epoch milliseconds).
        #[arg(long, value_parser = timeline::parse_bound)]
        from: Option<clawmux_core::Millis>,
        /// Up to this time.
        #[arg(long, value_parser = timeline::parse_bound)]
        to: Option<clawmux_core::Millis>,
        /// The transcript to interleave (default: the one the agent's hooks named).
        #[arg(long)]
        transcript: Option<PathBuf>,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Why an agent's indicator says what it says: since when, the event that set it, what ends it, the
    /// latest decisions (ignored ones with their reasons) and Claude Code's own view.
    Explain {
        /// The agent.
        name: String,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// What to check when something is off, each with its fix: tmux, Claude Code's version, the hooks, the
    /// hub, the data folder's modes, the sound server, the tray and notifications, the graphics, the disk.
    Doctor {
        /// One JSON array instead of lines.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// The indicator looks wrong: write one case file of the agent's recent events, decisions and
    /// transcript lines, what it showed and what was right (texts redacted unless --keep-texts).
    Report(explain::ReportArgs),
    /// Dismiss a "needs you" that a notice alone raised (no later hook would close it).
    Dismiss {
        /// The agent.
        name: String,
        #[command(flatten)]
        hub: env::HubArgs,
    },
    /// Replay a recorded event sequence (JSON lines: a tests/corpus case, an exported events log or a
    /// `clawmux report` file) through the state machine: says whether it reproduces what was shown, and
    /// checks its `expect` lines; exit 1 if one fails.
    Replay {
        /// The file.
        file: PathBuf,
    },
    /// A built-in stand-in for Claude Code: waits, answers, fires realistic hooks.
    DemoAgent {
        /// The agent's name (registered if new).
        name: String,
        /// Milliseconds between its steps, so a person can watch the states change.
        #[arg(long, default_value_t = 400)]
        pace: u64,
        /// Stop after answering this many messages (default: run until killed).
        #[arg(long)]
        messages: Option<u64>,
        #[command(flatten)]
        hub: env::HubArgs,
    },
}
