//! The ssh transport of the `clawmux` command (`--machine NAME`): the hub's own link to another machine
//! (`clawmux_hub::machines::link::Link`: the user's ssh running `clawmux dial-stdio` there, its hello
//! carrying that hub's token, which never crosses a command line), kept open for the command's calls and
//! driven from this blocking command by a runtime of its own.

use std::path::Path;
use std::time::Instant;

use clawmux_core::http1::Answer;
use clawmux_core::remote::{attach_args, MachineName, SshTarget};
use clawmux_hub::machines::link::Link;
use clawmux_hub::machines::list::MachineList;

/// One machine's hub, over a link of this command's.
pub struct Dial {
    machine: MachineName,
    target: SshTarget,
    link: Link,
    runtime: tokio::runtime::Runtime,
}

/// The ssh config file named for ClawMux (`CLAWMUX_SSH_CONFIG`), if any.
fn ssh_config() -> Option<std::path::PathBuf> {
    std::env::var_os("CLAWMUX_SSH_CONFIG")
        .filter(|c| !c.is_empty())
        .map(std::path::PathBuf::from)
}

impl Dial {
    /// A dial of `machine` at `target`, reading answers of up to `max_answer` bytes.
    pub fn new(machine: MachineName, target: SshTarget, max_answer: usize) -> Result<Dial, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the link's runtime: {e}"))?;
        let link =
            Link::new(machine.clone(), target.clone(), ssh_config()).with_max_answer(max_answer);
        Ok(Dial {
            machine,
            target,
            link,
            runtime,
        })
    }

    /// The machine `name` of the list in `data_dir`.
    pub fn to(data_dir: &Path, name: &str, max_answer: usize) -> Result<Dial, String> {
        let machines = MachineList::load(data_dir).map_err(|e| e.to_string())?;
        let (machine, target) = machines.get(name).map_err(|e| e.to_string())?;
        Dial::new(machine, target.clone(), max_answer)
    }

    /// Replaces this process with `ssh -t ... clawmux attach NAME` (returns only why it could not).
    pub fn attach(&self, name: &str) -> String {
        use std::os::unix::process::CommandExt;
        let args = match attach_args(&self.target, ssh_config().as_deref(), name) {
            Ok(args) => args,
            Err(e) => return e.to_string(),
        };
        let err = std::process::Command::new("ssh").args(args).exec();
        format!("cannot run ssh: {err}")
    }

    /// One request (`body` as JSON), answered by `deadline`; why not, in words that say what to do.
    pub fn call(
        &self,
        method: &str,
        path: &str,
        body: &[u8],
        deadline: Instant,
    ) -> Result<Answer, String> {
        let within = deadline.saturating_duration_since(Instant::now());
        self.runtime
            .block_on(async {
                tokio::time::timeout(within, self.link.call(method, path, body, within)).await
            })
            .map_err(|_| format!("no answer from `{}` within {within:?}", self.machine))?
            .map_err(|e| e.to_string())
    }
}
