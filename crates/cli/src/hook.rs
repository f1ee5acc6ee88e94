//! The command-form hooks. They never block Claude by accident: outside an agent they do nothing, and when
//! the hub is down they give up within a second and let Claude carry on (exit 0, a note on stderr).

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use clawmux_core::hook::preview;
use clawmux_core::wire::StopVerdict;

use crate::client::Client;
use crate::env::{AgentEnv, HubAddr};

/// How long a hook waits for the hub. Loopback answers in well under a millisecond; a refused
/// connection fails at once; only a hung hub makes this matter.
pub(crate) const HOOK_TIMEOUT: Duration = Duration::from_secs(1);
/// The most of stdin read: far past any payload Claude Code sends (a Write of a large file, a long
/// output); what the hub is sent of it is made small enough by [`payload`].
pub(crate) const MAX_STDIN: u64 = 512 * 1024 * 1024;

/// A hook's payload as read: whole, or, over the hub's limit, its shape with previews.
pub(crate) enum Payload {
    Whole(Vec<u8>),
    Shrunk(preview::Shrunk),
}

impl Payload {
    /// A payload as Claude Code sent it, made small enough for the hub (`clawmux_core::hook::preview`).
    pub(crate) fn new(raw: Vec<u8>) -> Payload {
        match preview::shrink(&raw, clawmux_api::transport::MAX_BODY) {
            Some(shrunk) => Payload::Shrunk(shrunk),
            None => Payload::Whole(raw),
        }
    }

    /// What goes to the hub.
    pub(crate) fn sent(&self) -> &[u8] {
        match self {
            Payload::Whole(bytes) => bytes,
            Payload::Shrunk(shrunk) => &shrunk.bytes,
        }
    }
}

/// Reads the whole payload from stdin.
fn payload() -> Payload {
    let mut raw = Vec::new();
    let _ = std::io::stdin().take(MAX_STDIN).read_to_end(&mut raw);
    Payload::new(raw)
}

fn agent_env() -> Option<AgentEnv> {
    match AgentEnv::load() {
        Ok(env) => env,
        Err(e) => {
            eprintln!("clawmux hook: {e}");
            None
        }
    }
}

/// `clawmux hook stop`: exit 2 with the reason on stderr keeps Claude working (docs/PROTOCOL.md).
pub fn stop() -> ExitCode {
    let payload = payload();
    let Some(env) = agent_env() else {
        return ExitCode::SUCCESS;
    };
    let client = Client::new(&env.hub, HOOK_TIMEOUT);
    let verdict = client
        .post("/api/hooks/stop", Some(&env.session), payload.sent())
        .map_err(|e| e.to_string())
        .and_then(|v| {
            serde_json::from_value::<StopVerdict>(v)
                .map_err(|e| format!("the hub's verdict does not parse: {e}"))
        });
    match verdict {
        Ok(StopVerdict {
            block: true,
            reason,
        }) => {
            eprintln!("{reason}");
            ExitCode::from(2)
        }
        Ok(StopVerdict { block: false, .. }) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("clawmux hook stop: {e}");
            ExitCode::SUCCESS
        }
    }
}

/// `clawmux hook tool-status`: any hook event on stdin, forwarded; the hub's answer goes to stdout.
pub fn tool_status() -> ExitCode {
    let payload = payload();
    let Some(env) = agent_env() else {
        return ExitCode::SUCCESS;
    };
    let client = Client::new(&env.hub, HOOK_TIMEOUT);
    match client.post("/api/hooks/tool-status", Some(&env.session), payload.sent()) {
        Ok(v) if v.get("hookSpecificOutput").is_some() => println!("{v}"),
        Ok(_) => {}
        Err(e) => eprintln!("clawmux hook: {e}"),
    }
    ExitCode::SUCCESS
}

/// `clawmux hook permission`: the PermissionRequest hook. It waits for the user's answer from the app
/// (Claude Code's own timeout for it is as long as a wait's) and prints it for Claude; without an answer
/// (the hub is down, the request ended some other way) it prints nothing and the dialog stays in the
/// terminal.
pub fn permission() -> ExitCode {
    let payload = payload();
    let Some(env) = agent_env() else {
        return ExitCode::SUCCESS;
    };
    let client = Client::new(
        &env.hub,
        Duration::from_millis(clawmux_api::transport::BASH_TIMEOUT_MS),
    );
    match client.post("/api/hooks/permission", Some(&env.session), payload.sent()) {
        Ok(v) if v.get("hookSpecificOutput").is_some() => println!("{}", whole(v, &payload)),
        Ok(_) => {}
        Err(e) => eprintln!("clawmux hook permission: {e}"),
    }
    ExitCode::SUCCESS
}

/// The hub's decision for a permission, with the tool's whole input wherever it hands back the input it
/// was sent (a plan approved, questions answered): a preview never reaches Claude as the input.
pub(crate) fn whole(mut answer: serde_json::Value, payload: &Payload) -> serde_json::Value {
    let Payload::Shrunk(shrunk) = payload else {
        return answer;
    };
    if let Some(input) = answer.pointer_mut("/hookSpecificOutput/decision/updatedInput") {
        *input = preview::restore(
            input,
            &shrunk.sent["tool_input"],
            &shrunk.original["tool_input"],
        );
    }
    answer
}

/// `clawmux hook observe`: a hook of a Claude Code session ClawMux did not start (installed by
/// `clawmux hooks install`). Silent and always exit 0: it must never disturb the user's Claude. Inside an
/// agent ClawMux started it does nothing, as that agent's own hooks report it.
pub fn observe(data_dir: Option<&std::path::Path>) -> ExitCode {
    if std::env::var_os("CLAWMUX_SESSION_ID").is_some_and(|s| !s.is_empty()) {
        return ExitCode::SUCCESS;
    }
    let payload = payload();
    let data_dir = data_dir.map_or_else(clawmux_core::layout::default_data_dir, Path::to_owned);
    let Some(hub) = observed_hub(&data_dir) else {
        return ExitCode::SUCCESS;
    };
    if let Err(e) = Client::new(&hub, HOOK_TIMEOUT).post("/api/observe", None, payload.sent()) {
        eprintln!("clawmux hook observe: {e}");
    }
    ExitCode::SUCCESS
}

/// The hub an observed hook reports to: the one whose socket is in the data folder (reporting needs no
/// token there). `None` when no hub runs there: nothing to report to.
pub(crate) fn observed_hub(data_dir: &Path) -> Option<HubAddr> {
    let socket = clawmux_core::layout::socket_path(data_dir);
    socket.exists().then_some(HubAddr {
        port: 0,
        socket,
        token: None,
    })
}
