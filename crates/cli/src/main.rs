//! `clawmux`: the one binary of ClawMux.
//!
//! Agents run `clawmux wait` and `clawmux send`; Claude Code runs `clawmux hook stop` (and
//! `clawmux hook tool-status` where it can only run commands); people run `clawmux serve`,
//! `clawmux agent add`, `clawmux status` and `clawmux demo-agent`. Everything but `serve` is a short-lived
//! synchronous client, so hooks cost a process start and one loopback round-trip, no async runtime.
//!
//! Long: the command line's definition (clap), a table of every subcommand and its flags.

mod agent;
mod client;
mod demo;
mod dial;
mod dial_stdio;
mod env;
mod explain;
mod hook;
mod install;
mod lifecycle;
mod phone;
mod relay;
mod remote;
mod replay;
mod search;
mod send;
mod serve;
mod timeline;
mod usage;
mod voice;
mod wait;
mod worktree;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use clawmux_core::changes::MergeMode;

#[derive(Parser)]
#[command(
    name = "clawmux",
    version,
    about = "The hub for running several Claude Code agents at once"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum VoiceCommand {
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
enum Command {
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

#[derive(Subcommand)]
enum HookCommand {
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
        #[arg(long, default_value_t = clawmux_hub::config::IDLE_MS)]
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
enum HooksCommand {
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
enum AgentCommand {
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
enum PhoneCommand {
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
enum WorktreeCommand {
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

fn run_hook(hook: HookCommand) -> ExitCode {
    match hook {
        HookCommand::Stop => hook::stop(),
        HookCommand::ToolStatus => hook::tool_status(),
        HookCommand::Permission => hook::permission(),
        HookCommand::Relay {
            agent,
            data_dir,
            idle_ms,
        } => relay::run(
            agent,
            data_dir.unwrap_or_else(clawmux_hub::config::default_data_dir),
            std::time::Duration::from_millis(idle_ms),
        ),
        HookCommand::Observe { data_dir } => hook::observe(data_dir.as_deref()),
    }
}

/// `clawmux remote ...`.
#[derive(Debug, Subcommand)]
enum RemoteCommand {
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

/// Long: one match from each subcommand to the module that runs it: a table.
fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve {
            port,
            data_dir,
            bind,
            allow_remote,
        } => serve::run(port, data_dir, bind, allow_remote),
        Command::Wait => wait::run(),
        Command::DialStdio { hub } => dial_stdio::run(&hub),
        Command::Remote { command, hub } => match command {
            RemoteCommand::Add { name, url } => remote::add(&hub, &name, &url),
            RemoteCommand::List => remote::list(&hub),
            RemoteCommand::Remove { name } => remote::remove(&hub, &name),
        },
        Command::Send { to, text, re } => send::run(&to, text.as_deref(), re.as_deref()),
        // A hook's exit code is its answer to Claude Code.
        Command::Hook { hook } => return run_hook(hook),
        Command::Statusline {
            then,
            observe,
            data_dir,
        } => {
            let args = clawmux_statusline::Args {
                then,
                observe,
                data_dir,
            };
            return clawmux_statusline::run(&args);
        }
        Command::Usage { json, days, hub } => usage::usage(&hub, json, days),
        Command::Search {
            query,
            agent,
            since,
            user,
            agents,
            limit,
            json,
            hub,
        } => search::search(
            &hub,
            &search::Args {
                query: &query.join(" "),
                agent: agent.as_deref(),
                since: since.as_deref(),
                who: if user {
                    Some(clawmux_api::search::Who::User)
                } else if agents {
                    Some(clawmux_api::search::Who::Agents)
                } else {
                    None
                },
                limit,
                json,
            },
        ),
        Command::Hooks {
            command: HooksCommand::Install { settings, data_dir },
        } => install::install(settings.as_deref(), data_dir.as_deref()),
        Command::Hooks {
            command: HooksCommand::Uninstall { settings },
        } => install::uninstall(settings.as_deref()),
        Command::Timeline {
            name,
            from,
            to,
            transcript,
            hub,
        } => timeline::run(&hub, &name, from, to, transcript.as_deref()),
        Command::Replay { file } => replay::run(&file),
        Command::Explain { name, hub } => explain::explain(&hub, &name),
        Command::Report(report) => explain::report(&report),
        Command::Dismiss { name, hub } => explain::dismiss(&hub, &name),
        Command::Agent {
            command: AgentCommand::Add { name, work_dir },
            hub,
        } => agent::add(&hub, &name, work_dir.as_deref()),
        Command::Agent {
            command: AgentCommand::List,
            hub,
        }
        | Command::Status { hub } => agent::list(&hub),
        Command::Open { hub } => agent::open(&hub),
        Command::Voice { command, hub } => match command {
            VoiceCommand::Models => voice::models(&hub),
            VoiceCommand::Download { model } => voice::download(&hub, &model),
        },
        Command::Import { hub } => agent::import(&hub),
        Command::Spawn(spawn) => lifecycle::spawn(&spawn),
        Command::Worktree { command, hub } => match command {
            WorktreeCommand::List => worktree::list(&hub),
            WorktreeCommand::Remove { name, discard } => worktree::remove(&hub, &name, discard),
        },
        Command::Phone { command, hub } => match command {
            PhoneCommand::On => Ok(phone::Phone::On),
            PhoneCommand::Off => Ok(phone::Phone::Off),
            PhoneCommand::Status => Ok(phone::Phone::Status),
            PhoneCommand::Pair => Ok(phone::Phone::Pair),
            PhoneCommand::Revoke { id } => Ok(phone::Phone::Revoke(id)),
            PhoneCommand::Contact { contact } => {
                Ok(phone::Phone::Contact(Some(contact).filter(|c| c != "off")))
            }
            PhoneCommand::Address {
                listen,
                name,
                cert,
                key,
            } => phone::address(&listen, name, cert.zip(key)).map(phone::Phone::Address),
        }
        .and_then(|what| phone::run(&hub, what)),
        Command::Diff { name, stat, hub } => worktree::diff(&hub, &name, stat),
        Command::Merge {
            name,
            squash,
            rebase,
            message,
            hub,
        } => {
            let mode = match (squash, rebase) {
                (true, _) => MergeMode::Squash,
                (_, true) => MergeMode::Rebase,
                _ => MergeMode::Merge,
            };
            worktree::merge(&hub, &name, mode, message)
        }
        Command::Terminate { name, hub } => lifecycle::act(&hub, &name, lifecycle::Act::Terminate),
        Command::Restart { name, hub } => lifecycle::act(&hub, &name, lifecycle::Act::Restart),
        Command::Resume { all, at_start, hub } => lifecycle::resume(&hub, all, at_start.as_deref()),
        Command::Interrupt { name, hub } => lifecycle::act(&hub, &name, lifecycle::Act::Interrupt),
        Command::Attach { name, hub } => lifecycle::attach(&hub, &name),
        Command::DemoAgent {
            name,
            pace,
            messages,
            hub,
        } => demo::run(&hub, &name, pace, messages),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", client::printable(&e));
            ExitCode::FAILURE
        }
    }
}
