//! Messages between agents of two machines (`clawmux send --to moon@box`), each hub the one owner of its
//! agents' conversations.
//!
//! There: this hub carries the message over its link to the machine's hub (`from_machine`, under the
//! sender's key, so a retry is the same message), which stores it in `moon`'s conversation as from
//! `sky@laptop` (what this machine calls itself) and hands it over like any message between agents, its
//! rules and counts included. Back: `moon` answers `sky@laptop`; its hub, which may not reach this one,
//! keeps the answer in `moon`'s own conversation, addressed so, and only for an agent of a machine that
//! wrote to `moon`. This hub follows that machine's feed; when the feed opens, and whenever it shows such an
//! answer, this hub takes the answers after the last one it took (`for_machine`) and stores each once
//! (its key names the machine and the message) in its agent's conversation. A hub restarted here goes on
//! from the last answer its store holds: nothing is lost or handed over twice.
//!
//! A machine not linked, or linked and not reached, is a clear error and nothing is stored; so is a reply to
//! a machine whose agent never wrote. What comes from another machine is hostile: its names are checked as
//! names, its words made printable where a terminal shows them (`clawmux wait` prints every message so).

use clawmux_api::commands::{FromMachine, Sent, FOR_MACHINE_PAGE};
use clawmux_core::remote::{AgentAddress, MachineName};
use clawmux_core::wire::{check_agent_name, Code, Kind, Message, MsgId};
use clawmux_store::NewMessage;
use tokio::sync::mpsc::UnboundedReceiver;

use super::Between;
use crate::clock::now;
use crate::error::HubError;

/// The key prefix of the answers taken from `machine`.
fn taken_prefix(machine: &MachineName) -> String {
    format!("relay:{machine}:")
}

/// The key prefix of this machine's messages carried to `machine` (what follows is that machine's id).
fn sent_prefix(machine: &MachineName) -> String {
    format!("{}{machine}:", clawmux_store::SENT_AWAY)
}

impl Between {
    /// `from`'s message to `to`, an agent of another machine (`name@machine`): carried to a machine
    /// linked, else kept as an answer for a machine one of whose agents wrote to `from`.
    pub(super) async fn send_away(
        &self,
        from: &str,
        to: &str,
        text: &str,
        re: Option<&MsgId>,
        key: &str,
    ) -> Result<Sent, HubError> {
        let address = AgentAddress::parse(to);
        let (name, machine) = (address.name, address.machine.unwrap_or_default());
        check_agent_name(name).map_err(|e| HubError::new(Code::BadAgentName, e.to_string()))?;
        let machine = MachineName::parse(machine)
            .map_err(|e| HubError::new(Code::UnknownMachine, e.to_string()))?;
        if self.machines.is_linked(machine.as_str()) {
            let carried = FromMachine {
                machine: self.machines.here().to_string(),
                from: from.to_owned(),
                to: name.to_owned(),
                text: text.to_owned(),
                client_id: key.to_owned(),
                re: self.there(&machine, re).await?,
            };
            return self.carry(&machine, to, carried).await;
        }
        if !self.store().wrote_to(from, to).await? {
            return Err(HubError::new(
                Code::UnknownMachine,
                format!(
                    "no machine `{machine}` is linked to this one (`clawmux remote add`), and no agent of it \
                     wrote to you: the message was not sent"
                ),
            ));
        }
        // An answer for the machine that wrote: kept here, for its hub to take. In no inbox here: told to
        // the window, and so on this hub's feed.
        let m = self
            .states
            .append(&NewMessage {
                parent: re,
                idem_key: Some(key),
                ..NewMessage::plain(from, Kind::Agent, from, Some(to), text, now())
            })
            .await?;
        Ok(Sent {
            id: m.id,
            seq: m.seq,
            note: Some(format!(
                "kept for {to}: {machine}'s hub takes it from this machine's feed"
            )),
        })
    }

    /// Carries a message to `machine`'s hub over the link, then keeps it in the sender's own conversation
    /// under that machine's id of it: an answer `--re` it there is found here (an ask waits for it), and
    /// the sender's chat shows it.
    async fn carry(
        &self,
        machine: &MachineName,
        to: &str,
        carried: FromMachine,
    ) -> Result<Sent, HubError> {
        let (from, text) = (carried.from.clone(), carried.text.clone());
        let sent = self.machines.call(machine.as_str(), carried).await?;
        let kept = self
            .states
            .append(&NewMessage {
                idem_key: Some(&format!("{}{}", sent_prefix(machine), sent.id)),
                ..NewMessage::plain(&from, Kind::Agent, &from, Some(to), &text, now())
            })
            .await?;
        Ok(Sent {
            id: kept.id,
            seq: kept.seq,
            note: sent.note,
        })
    }

    /// The id on `machine` of the message `re` names: one its hub sent here (taken under its key), or one
    /// this hub sent there (its id is that hub's); a message of this machine's own is no message there.
    async fn there(
        &self,
        machine: &MachineName,
        re: Option<&MsgId>,
    ) -> Result<Option<MsgId>, HubError> {
        let Some(re) = re else {
            return Ok(None);
        };
        let key = self.store().key_of(re).await?.unwrap_or_default();
        let theirs = [taken_prefix(machine), sent_prefix(machine)]
            .iter()
            .find_map(|prefix| key.strip_prefix(prefix.as_str()))
            .and_then(|id| MsgId::parse(id).ok());
        Ok(match theirs {
            Some(id) => Some(id),
            None if self.store().message(re).await?.is_none() => Some(re.clone()),
            None => None,
        })
    }

    /// Another machine's agent `from` (on `machine`) writes to `to`, an agent here (`from_machine`).
    pub async fn arrive(&self, m: FromMachine) -> Result<Sent, HubError> {
        let machine = MachineName::parse(&m.machine)
            .map_err(|e| HubError::new(Code::UnknownMachine, e.to_string()))?;
        check_agent_name(&m.from).map_err(|e| HubError::new(Code::BadAgentName, e.to_string()))?;
        check_agent_name(&m.to).map_err(|e| HubError::new(Code::BadAgentName, e.to_string()))?;
        super::words(&m.text)?;
        let from = format!("{}@{machine}", m.from);
        let key = format!("machine:{machine}:{}:{}", m.from, m.client_id);
        self.send(&from, &m.to, &m.text, m.re.as_ref(), &key).await
    }

    /// The answers this hub's agents sent to agents of `machine`, after `after` (`for_machine`).
    pub async fn answers_for(
        &self,
        machine: &str,
        after: Option<&str>,
    ) -> Result<Vec<Message>, HubError> {
        let machine = MachineName::parse(machine)
            .map_err(|e| HubError::new(Code::UnknownMachine, e.to_string()))?;
        let after = after
            .map(|a| MsgId::parse(a).map_err(|e| HubError::new(Code::BadMessageId, e.to_string())))
            .transpose()?;
        Ok(self
            .store()
            .for_machine(machine.as_str(), after.as_ref(), FOR_MACHINE_PAGE)
            .await?)
    }

    /// Takes what `machine`'s agents answered this machine's, after the last answer taken, until none
    /// is left: each stored once in its agent's conversation, from `name@machine`.
    async fn take_answers(&self, machine: &MachineName) -> Result<usize, HubError> {
        // Only an agent of a machine that wrote there is answered: none did, nothing to take, and no command
        // link is opened for nothing.
        if self
            .store()
            .last_key_under(&sent_prefix(machine))
            .await?
            .is_none()
        {
            return Ok(0);
        }
        let prefix = taken_prefix(machine);
        let mut taken = 0;
        loop {
            let after = self.store().last_key_under(&prefix).await?;
            let page = self
                .machines
                .call(
                    machine.as_str(),
                    clawmux_api::commands::ForMachine {
                        machine: self.machines.here().to_string(),
                        after,
                    },
                )
                .await?;
            let full = i64::try_from(page.len()).unwrap_or(i64::MAX) >= FOR_MACHINE_PAGE;
            for answer in page {
                self.take_one(machine, &prefix, answer).await;
                taken += 1;
            }
            if !full {
                return Ok(taken);
            }
        }
    }

    /// One answer of `machine`'s, stored in its agent's conversation (under its key: once). One that
    /// cannot be (for no agent here, its thread closed) is logged; the answers after it are taken all the
    /// same, and it is tried again while it is the last.
    async fn take_one(
        &self,
        machine: &MachineName,
        prefix: &str,
        answer: clawmux_core::wire::MessageOut,
    ) {
        let to = answer
            .recipient
            .as_deref()
            .and_then(|r| r.rsplit_once('@'))
            .map(|(name, _)| name.to_owned())
            .unwrap_or_default();
        let from = format!("{}@{machine}", answer.sender);
        let key = format!("{prefix}{}", answer.id);
        // The message it answers, as this hub knows it: one of its agents' carried there (an ask waits for
        // it by its id here), or none.
        let re = match answer.parent_id.as_deref() {
            Some(id) => self
                .store()
                .message_by_key(&format!("{}{id}", sent_prefix(machine)))
                .await
                .ok()
                .flatten()
                .map(|m| m.id),
            None => None,
        };
        let stored = match check_agent_name(&answer.sender) {
            Ok(()) => self.send(&from, &to, &answer.text, re.as_ref(), &key).await,
            Err(e) => Err(HubError::new(Code::BadAgentName, e.to_string())),
        };
        if let Err(e) = stored {
            tracing::warn!(machine = %machine, to, error = %e, "an answer from another machine was not taken");
        }
    }

    /// Takes the answers of each machine as it says it has some, until the hub stops.
    pub(super) async fn take_answers_as_told(self, mut told: UnboundedReceiver<MachineName>) {
        while let Some(first) = told.recv().await {
            // Told several times meanwhile: one pass a machine covers them all.
            let mut machines = std::collections::BTreeSet::from([first]);
            while let Ok(more) = told.try_recv() {
                machines.insert(more);
            }
            for machine in machines {
                if let Err(e) = self.take_answers(&machine).await {
                    tracing::warn!(machine = %machine, error = %e, "could not take the answers of another machine");
                }
            }
        }
    }
}
