//! `clawmux`: the one binary of ClawMux.
//!
//! Agents run `clawmux wait` and `clawmux send`; Claude Code runs `clawmux hook stop` (and
//! `clawmux hook tool-status` where it can only run commands); people run `clawmux serve`,
//! `clawmux agent add`, `clawmux status` and `clawmux demo-agent`. Everything but `serve` is a short-lived
//! synchronous client, so hooks cost a process start and one loopback round-trip, no async runtime.

mod agent;
mod ask;
mod cli;
mod client;
mod demo;
mod dial;
mod dial_stdio;
mod doctor;
mod env;
mod explain;
mod hook;
mod install;
mod lifecycle;
mod phone;
mod pty;
mod relay;
mod remote;
mod replay;
mod search;
mod send;
mod serve;
mod subcommands;
mod task;
mod timeline;
mod usage;
mod voice;
mod wait;
mod worktree;

use std::process::ExitCode;

use clap::Parser;
use clawmux_core::changes::MergeMode;

use cli::{Cli, Command};
use subcommands::{
    AgentCommand, HookCommand, HooksCommand, PhoneCommand, RemoteCommand, VoiceCommand,
    WorktreeCommand,
};

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
            data_dir.unwrap_or_else(clawmux_core::layout::default_data_dir),
            std::time::Duration::from_millis(idle_ms),
        ),
        HookCommand::Observe { data_dir } => hook::observe(data_dir.as_deref()),
    }
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
        Command::Pty { argv } => return pty::run(argv),
        Command::DialStdio { hub } => dial_stdio::run(&hub),
        Command::Remote { command, hub } => match command {
            RemoteCommand::Add { name, url } => remote::add(&hub, &name, &url),
            RemoteCommand::List => remote::list(&hub),
            RemoteCommand::Remove { name } => remote::remove(&hub, &name),
        },
        Command::Send { to, text, re } => send::run(&to, text.as_deref(), re.as_deref()),
        Command::Ask { to, text, timeout } => {
            ask::ask(&to, &text, std::time::Duration::from_secs(timeout))
        }
        Command::Close { with, text } => ask::close(&with, text.as_deref()),
        Command::Task { command } => task::run(command),
        Command::Handover { to } => task::hand_over(&to),
        Command::Allow { agent, request } => task::lead_answer(&agent, &request, true, None),
        Command::Deny {
            agent,
            request,
            why,
        } => task::lead_answer(&agent, &request, false, why.as_deref()),
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
        Command::Doctor { json, hub } => doctor::run(&hub, json),
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
