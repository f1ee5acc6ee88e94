//! Other machines, each with a hub of its own (`clawmux serve` there, the one owner of its agents),
//! reached over the user's own ssh: the list (`list.rs`), a link kept open for commands (`link.rs`), and
//! each machine's UI feed followed and relayed to this hub's window (`relay.rs`), tagged with the machine.
//!
//! The window becomes a client of several hubs through this one: a command for a remote agent goes as
//! `on_machine` and is forwarded whole to that hub's command surface; what that hub tells its own window
//! comes here as `machine_event`. A machine that cannot be reached stays in the list with its agents'
//! last known states and when it was last seen (`machine_link`), and is dialled again with back-off.

pub mod backoff;
pub mod link;
pub mod list;
mod relay;
pub mod terminal;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use clawmux_api::commands::{Command, Request};
use clawmux_core::remote::{MachineName, SshTarget};
use clawmux_core::wire::Code;
use clawmux_core::Millis;
use tokio::sync::{broadcast, Notify};

use crate::error::HubError;
pub use clawmux_core::status::AgentStatus;

use crate::ui_event::UiEvent;
pub use clawmux_api::machines::MachineInfo;
use clawmux_core::sync::Locked;
use link::{Link, LinkError};
use list::{MachineList, MachinesError};

/// How long a command forwarded to another machine may take.
const FORWARD_WITHIN: Duration = Duration::from_secs(30);

/// One machine followed.
struct Remote {
    name: MachineName,
    target: SshTarget,
    link: Link,
    seen: Mutex<Seen>,
    /// Told when the machine is removed: its relay ends.
    stop: Notify,
}

/// What is known of a machine.
#[derive(Default)]
struct Seen {
    up: bool,
    last_seen: Option<Millis>,
    error: Option<String>,
    sessions: Vec<clawmux_api::session::SessionInfo>,
    /// The last message of its feed relayed: a feed opened again resumes after it.
    cursor: Option<String>,
    stopped: bool,
}

impl Remote {
    fn seen(&self) -> MutexGuard<'_, Seen> {
        self.seen.locked()
    }

    /// No longer followed: its relay ends (and its ssh with it).
    fn stop(&self) {
        self.seen().stopped = true;
        self.stop.notify_one();
    }

    fn info(&self) -> MachineInfo {
        let seen = self.seen();
        MachineInfo {
            name: self.name.to_string(),
            url: self.target.to_string(),
            up: seen.up,
            last_seen: seen.last_seen,
            error: seen.error.clone(),
            sessions: seen.sessions.clone(),
        }
    }
}

/// The other machines of this hub.
#[derive(Clone)]
pub struct Machines {
    inner: Arc<Inner>,
}

struct Inner {
    data_dir: PathBuf,
    ssh_config: Option<PathBuf>,
    ui: broadcast::Sender<UiEvent>,
    tasks: crate::tasks::Tasks,
    remotes: Mutex<BTreeMap<MachineName, Arc<Remote>>>,
    answers: Answers,
}

/// Where a machine followed says it holds answers for this machine's agents: the machine's name, sent
/// when its feed opens and whenever one of its agents writes to `name@here` (`between::away` takes them).
#[derive(Clone)]
pub struct Answers {
    /// What this machine calls itself there.
    pub here: MachineName,
    /// Told the machine's name.
    pub waiting: tokio::sync::mpsc::UnboundedSender<MachineName>,
}

impl Machines {
    /// The machines of the list in `data_dir`, not followed yet ([`Machines::start`]).
    pub fn new(
        data_dir: PathBuf,
        ssh_config: Option<PathBuf>,
        ui: broadcast::Sender<UiEvent>,
        tasks: crate::tasks::Tasks,
        answers: Answers,
    ) -> Machines {
        Machines {
            inner: Arc::new(Inner {
                data_dir,
                ssh_config,
                ui,
                tasks,
                remotes: Mutex::new(BTreeMap::new()),
                answers,
            }),
        }
    }

    /// What this machine calls itself to the others.
    pub fn here(&self) -> &MachineName {
        &self.inner.answers.here
    }

    /// Whether `machine` is one this hub follows (and may call).
    pub fn is_linked(&self, machine: &str) -> bool {
        self.remote(machine).is_ok()
    }

    fn remotes(&self) -> MutexGuard<'_, BTreeMap<MachineName, Arc<Remote>>> {
        self.inner.remotes.locked()
    }

    /// Follows every machine of the list (a list that cannot be read is logged and left alone).
    pub fn start(&self) {
        match MachineList::load(&self.inner.data_dir) {
            Ok(list) => {
                for (name, target) in list.iter() {
                    self.follow(name.clone(), target.clone());
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot read the other machines"),
        }
    }

    fn follow(&self, name: MachineName, target: SshTarget) {
        let remote = Arc::new(Remote {
            link: Link::new(name.clone(), target.clone(), self.inner.ssh_config.clone()),
            name: name.clone(),
            target,
            seen: Mutex::new(Seen::default()),
            stop: Notify::new(),
        });
        self.remotes().insert(name, remote.clone());
        self.inner.tasks.spawn(relay::follow(
            remote,
            self.inner.ui.clone(),
            self.inner.ssh_config.clone(),
            self.inner.answers.clone(),
        ));
    }

    /// Every machine, by name.
    pub fn list(&self) -> Vec<MachineInfo> {
        self.remotes().values().map(|r| r.info()).collect()
    }

    /// Adds a machine to the list and follows it.
    pub fn add(&self, name: &str, url: &str) -> Result<Vec<MachineInfo>, HubError> {
        let bad = |e: &dyn std::fmt::Display| HubError::new(Code::BadMachine, e.to_string());
        let name = MachineName::parse(name).map_err(|e| bad(&e))?;
        let target = SshTarget::parse(url).map_err(|e| bad(&e))?;
        let mut list = MachineList::load(&self.inner.data_dir).map_err(|e| list_error(&e))?;
        list.add(name.clone(), target.clone())
            .map_err(|e| list_error(&e))?;
        self.follow(name, target);
        Ok(self.list())
    }

    /// Forgets a machine: its relay ends; its hub and agents go on there.
    pub fn remove(&self, name: &str) -> Result<Vec<MachineInfo>, HubError> {
        let mut list = MachineList::load(&self.inner.data_dir).map_err(|e| list_error(&e))?;
        list.remove(name).map_err(|e| list_error(&e))?;
        let removed = MachineName::parse(name)
            .ok()
            .and_then(|n| self.remotes().remove(&n));
        if let Some(remote) = removed {
            remote.stop();
        }
        Ok(self.list())
    }

    /// Lets go of every machine as the hub stops: the relays end (they are the hub's tasks) and each
    /// link's ssh with them; the machines stay in the list for the next start.
    pub fn close(&self) {
        let remotes = std::mem::take(&mut *self.remotes());
        for remote in remotes.values() {
            remote.stop();
        }
    }

    /// Whether `machine` is followed; why not.
    pub fn check(&self, machine: &str) -> Result<(), HubError> {
        self.remote(machine).map(drop)
    }

    fn remote(&self, machine: &str) -> Result<Arc<Remote>, HubError> {
        MachineName::parse(machine)
            .ok()
            .and_then(|n| self.remotes().get(&n).cloned())
            .ok_or_else(|| {
                HubError::new(
                    Code::UnknownMachine,
                    format!("no machine named `{machine}`"),
                )
            })
    }

    /// Runs a command on a machine's hub: its answer, read as the type the command is paired with (an
    /// answer that does not read as it is refused here, typed at the boundary).
    pub async fn call<R: Request>(&self, machine: &str, request: R) -> Result<R::Reply, HubError> {
        let answer = self.exchange(machine, &request.into()).await?;
        serde_json::from_slice(&answer).map_err(|e| {
            HubError::new(
                Code::MachineUnreachable,
                format!("{machine}'s hub answered what this one does not read: {e}"),
            )
        })
    }

    /// Sends a command to a machine's hub; the body of its answer when it carried the command out, its
    /// refusal as it said it otherwise.
    async fn exchange(&self, machine: &str, command: &Command) -> Result<Vec<u8>, HubError> {
        let remote = self.remote(machine)?;
        let body = serde_json::to_vec(command)
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))?;
        let answer = remote
            .link
            .call("POST", "/api/command", &body, FORWARD_WITHIN)
            .await
            .map_err(|e| link_error(&e))?;
        if (200..300).contains(&answer.status) {
            return Ok(answer.body);
        }
        // The remote hub's own refusal, passed on as it said it; one that does not read as the error body
        // is said with its status.
        Err(
            match serde_json::from_slice::<clawmux_api::Error>(&answer.body) {
                Ok(refused) => {
                    HubError::new(refused.code, format!("{machine}: {}", refused.message))
                }
                Err(_) => HubError::new(
                    Code::Internal,
                    format!("{machine}: its hub refused (HTTP {})", answer.status),
                ),
            },
        )
    }
}

/// The status an event of this hub carries: this machine's agent's, or another machine's (`name@machine`,
/// read by [`remote_status`]), for the notices and pushes alike.
pub fn status_of(event: &UiEvent) -> Option<AgentStatus> {
    if let UiEvent::MachineEvent { machine, event } = event {
        return remote_status(machine, event);
    }
    own_status(event)
}

/// The status a `session_status` event carries, its agent named as that event names it.
fn own_status(event: &UiEvent) -> Option<AgentStatus> {
    let UiEvent::SessionStatus {
        session_id,
        state,
        needs,
        ..
    } = event
    else {
        return None;
    };
    Some(crate::ui_event::Needs::status(
        session_id,
        *state,
        needs.as_ref(),
    ))
}

/// Reads a status of another machine's agent from an event its hub sent; `None` for any other event, or
/// one whose agent is named as none of this hub's could be (a hostile hub's, say: it then raises nothing).
pub fn remote_status(machine: &str, event: &UiEvent) -> Option<AgentStatus> {
    let mut status = own_status(event)?;
    clawmux_core::wire::check_agent_name(&status.agent).ok()?;
    status.agent = clawmux_core::remote::AgentAddress {
        name: &status.agent,
        machine: Some(machine),
    }
    .to_string();
    Some(status)
}

fn list_error(e: &MachinesError) -> HubError {
    let code = match e {
        MachinesError::Exists(_) => Code::MachineExists,
        MachinesError::Unknown(_) => Code::UnknownMachine,
        MachinesError::File { .. } => Code::Internal,
    };
    HubError::new(code, e.to_string())
}

fn link_error(e: &LinkError) -> HubError {
    HubError::new(Code::MachineUnreachable, e.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::remote_status;
    use crate::ui_event::UiEvent;

    fn event(v: serde_json::Value) -> Option<UiEvent> {
        serde_json::from_value(v).ok()
    }

    #[test]
    fn a_remote_status_reads_as_its_agent_on_that_machine_and_nothing_else_does() {
        let idle = event(
            json!({"type": "session_status", "session_id": "sky", "state": "idle",
            "activity": "", "tool_name": null, "tool_input": null, "since": 1, "needs": null}),
        )
        .unwrap();
        let idle = remote_status("gpu", &idle).unwrap();
        assert_eq!(
            (idle.agent.as_str(), idle.state, idle.needs, idle.permission),
            ("sky@gpu", clawmux_core::State::Idle, None, None)
        );
        let needy = event(json!({"type": "session_status", "session_id": "sky", "state": "processing",
            "activity": "", "tool_name": null, "tool_input": null, "since": 5,
            "needs": {"need": "permission", "reason": "Permission: Running git push", "tool_use_id": null,
                      "tool_name": "Bash", "since": 5, "request": {"id": "r1", "tool_name": "Bash", "tool_input": {"command": "git push"}, "suggestions": []}}}))
        .unwrap();
        let needy = remote_status("gpu", &needy).unwrap();
        assert_eq!(needy.needs.unwrap().reason, "Permission: Running git push");
        assert_eq!(needy.permission.as_deref(), Some("r1"));
        let named_as_none = event(
            json!({"type": "session_status", "session_id": "../x", "state": "idle",
            "activity": "", "tool_name": null, "tool_input": null, "since": 1, "needs": null}),
        )
        .unwrap();
        assert!(remote_status("gpu", &named_as_none).is_none());
        let ping = event(json!({"type": "ping"})).unwrap();
        assert!(remote_status("gpu", &ping).is_none());
        // What this version does not read is no event at all: the relay drops it.
        for other in [
            json!({"type": "session_status", "session_id": "sky", "state": "sleeping"}),
            json!({"type": "session_status", "session_id": "sky", "state": "idle", "needs": {"need": 3}}),
            json!({"type": "a_newer_hubs_event", "session_id": "sky"}),
        ] {
            assert!(event(other.clone()).is_none(), "{other}");
        }
    }
}
