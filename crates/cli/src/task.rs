//! `clawmux task add|list|show|take|review|done|drop|watch`: an agent's calls on the shared board, on the
//! private socket like `send`; `clawmux handover NAME`, the agent's work given to another; and `clawmux
//! allow|deny AGENT REQUEST`, a lead's answer to a member's request. What it prints of an item (titles and bodies other agents wrote) is made
//! printable first: a terminal may show it.

use std::time::Duration;

use clap::Subcommand;
use clawmux_api::agent::{HandOverCall, LeadAnswer, TaskCall};
use clawmux_api::commands::{Done, HandedOver};
use clawmux_core::board::{Task, TaskState};
use clawmux_core::printable::{one_line, printable};

use crate::client::Client;
use crate::env::AgentEnv;

/// What to do on the board.
#[derive(Subcommand)]
pub enum TaskCommand {
    /// Add an item; you are told when it is done. Prints it.
    Add {
        /// One line.
        title: String,
        /// What it asks (markdown).
        #[arg(long, default_value = "")]
        body: String,
    },
    /// The items, the newest first: `#ID  state  owner  title`.
    List {
        /// Only in this state: open, taken, in-review, done.
        #[arg(long, value_parser = parse_state)]
        state: Option<TaskState>,
        /// Only yours.
        #[arg(long, conflicts_with = "owner")]
        mine: bool,
        /// Only this agent's.
        #[arg(long)]
        owner: Option<String>,
        /// Only with these words in the title or the body.
        #[arg(long)]
        text: Option<String>,
    },
    /// One item, whole.
    Show {
        /// The item's number.
        id: i64,
    },
    /// Take an open item: if another agent was first, you are told who has it.
    Take {
        /// The item's number.
        id: i64,
    },
    /// Ask for a review of an item you have.
    Review {
        /// The item's number.
        id: i64,
    },
    /// Finish an item you have: whoever waits on it is told.
    Done {
        /// The item's number.
        id: i64,
    },
    /// Give an item back: open, nobody's.
    Drop {
        /// The item's number.
        id: i64,
    },
    /// Be told when an item is done.
    Watch {
        /// The item's number.
        id: i64,
    },
}

fn parse_state(s: &str) -> Result<TaskState, String> {
    TaskState::parse(s).ok_or_else(|| format!("`{s}` is not a state: open, taken, in-review, done"))
}

pub fn run(command: TaskCommand) -> Result<(), String> {
    let env = AgentEnv::require()?;
    let (call, whole) = match command {
        TaskCommand::Add { title, body } => (TaskCall::Add { title, body }, false),
        TaskCommand::List {
            state,
            mine,
            owner,
            text,
        } => {
            let owner = if mine {
                Some(env.session.clone())
            } else {
                owner
            };
            (TaskCall::List { state, owner, text }, false)
        }
        TaskCommand::Show { id } => (TaskCall::Show { id }, true),
        TaskCommand::Take { id } => (TaskCall::Take { id }, false),
        TaskCommand::Review { id } => (TaskCall::Review { id }, false),
        TaskCommand::Done { id } => (TaskCall::Done { id }, false),
        TaskCommand::Drop { id } => (TaskCall::Drop { id }, false),
        TaskCommand::Watch { id } => (TaskCall::Watch { id }, false),
    };
    let listing = matches!(call, TaskCall::List { .. });
    let tasks: Vec<Task> = Client::new(&env.hub, Duration::from_secs(10))
        .post_as("/api/task", Some(&env.session), &call)
        .map_err(|e| e.to_string())?;
    if listing && tasks.is_empty() {
        println!("(no items)");
    }
    for task in &tasks {
        println!("{}", line(task));
        if whole && !task.body.is_empty() {
            println!("\n{}", printable(&task.body));
        }
    }
    Ok(())
}

/// One item on one line: `#12  taken  rain  write the docs  (clawmux/rain)`.
pub(crate) fn line(task: &Task) -> String {
    let mut line = format!(
        "#{}  {}  {}  {}",
        task.id,
        task.state.as_str(),
        one_line(task.owner.as_deref().unwrap_or("-"), 32),
        one_line(&task.title, 200)
    );
    if let Some(branch) = &task.branch {
        line.push_str(&format!("  ({})", one_line(branch, 100)));
    }
    line
}

/// `clawmux handover to`: prints the message `to` received and the items given.
pub fn hand_over(to: &str) -> Result<(), String> {
    let env = AgentEnv::require()?;
    let handed: HandedOver = Client::new(&env.hub, Duration::from_secs(30))
        .post_as(
            "/api/handover",
            Some(&env.session),
            &HandOverCall { to: to.to_owned() },
        )
        .map_err(|e| e.to_string())?;
    let items: Vec<String> = handed.items.iter().map(|id| format!("#{id}")).collect();
    println!(
        "{} (items given: {})",
        handed.message,
        if items.is_empty() {
            "none".to_owned()
        } else {
            items.join(" ")
        }
    );
    Ok(())
}

/// `clawmux allow|deny agent request [why]`: a lead's answer.
pub fn lead_answer(
    agent: &str,
    request: &str,
    allow: bool,
    why: Option<&str>,
) -> Result<(), String> {
    let env = AgentEnv::require()?;
    let call = LeadAnswer {
        agent: agent.to_owned(),
        request_id: request.to_owned(),
        allow,
        why: why.map(str::to_owned),
    };
    let _: Done = Client::new(&env.hub, Duration::from_secs(10))
        .post_as("/api/lead", Some(&env.session), &call)
        .map_err(|e| e.to_string())?;
    println!(
        "{} {agent}'s request {request}",
        if allow { "allowed" } else { "denied" }
    );
    Ok(())
}
