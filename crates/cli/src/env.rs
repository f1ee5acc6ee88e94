//! Where the hub is and who we are: the agent environment of docs/PROTOCOL.md, and flags for people.

use std::path::PathBuf;

/// The hub's default port.
pub const DEFAULT_PORT: u16 = 3460;

/// How to reach the hub, from flags or the environment.
#[derive(clap::Args, Clone, Debug)]
pub struct HubArgs {
    /// The hub's port.
    #[arg(long, env = "CLAWMUX_PORT", default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// The hub's data folder (where its token is).
    #[arg(long, env = "CLAWMUX_HOME")]
    pub data_dir: Option<PathBuf>,
    /// The hub of another machine of `clawmux remote list`, reached over ssh.
    #[arg(long)]
    pub machine: Option<String>,
}

/// A resolved hub address with its token.
#[derive(Clone, Debug)]
pub struct HubAddr {
    /// The port on 127.0.0.1, for browsers (`clawmux open`): the `clawmux` command itself never uses it.
    pub port: u16,
    /// The hub's private socket in its data folder, which every call of the `clawmux` command goes to.
    pub socket: PathBuf,
    /// The API token, for what only the user may do. An agent has none: what it does (hooks, wait, send)
    /// the hub allows on its private socket, which only the user's processes can reach.
    pub token: Option<String>,
}

impl HubAddr {
    /// The hub's data folder (where its socket is).
    pub fn data_dir(&self) -> &std::path::Path {
        self.socket.parent().unwrap_or(std::path::Path::new("."))
    }
}

impl HubArgs {
    /// This machine's data folder.
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir
            .clone()
            .unwrap_or_else(clawmux_core::layout::default_data_dir)
    }

    /// This machine's hub: resolves the token (`CLAWMUX_TOKEN`, else the data folder's token file). A
    /// command that calls this works on this machine only, and refuses `--machine`.
    pub fn resolve(&self) -> Result<HubAddr, String> {
        if let Some(machine) = &self.machine {
            return Err(format!(
                "this command works on this machine only, not with --machine {machine}: run it there (ssh)"
            ));
        }
        let data_dir = self.data_dir();
        let token = token_from(&data_dir)?;
        Ok(HubAddr {
            port: self.port,
            socket: clawmux_core::layout::socket_path(&data_dir),
            token: Some(token),
        })
    }
}

fn token_from(data_dir: &std::path::Path) -> Result<String, String> {
    if let Some(t) = std::env::var("CLAWMUX_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
    {
        return Ok(t);
    }
    let path = data_dir.join(clawmux_core::layout::TOKEN_FILE);
    std::fs::read_to_string(&path)
        .map(|t| t.trim().to_owned())
        .map_err(|e| {
            format!(
                "cannot read the hub's token at {} ({e}); is the hub running? set CLAWMUX_TOKEN",
                path.display()
            )
        })
}

/// The environment an agent process runs in (docs/PROTOCOL.md).
#[derive(Clone, Debug)]
pub struct AgentEnv {
    /// `CLAWMUX_SESSION_ID`: the agent's name.
    pub session: String,
    /// The hub.
    pub hub: HubAddr,
    /// `CLAWMUX_HOME`, else the default data folder.
    pub data_dir: PathBuf,
}

impl AgentEnv {
    /// Reads the agent environment; `Ok(None)` outside an agent (no `CLAWMUX_SESSION_ID`).
    pub fn load() -> Result<Option<AgentEnv>, String> {
        let Some(session) = std::env::var("CLAWMUX_SESSION_ID")
            .ok()
            .filter(|s| !s.is_empty())
        else {
            return Ok(None);
        };
        let port = match std::env::var("CLAWMUX_PORT") {
            Ok(p) => p
                .trim()
                .parse()
                .map_err(|_| format!("CLAWMUX_PORT `{p}` is not a port number"))?,
            Err(_) => DEFAULT_PORT,
        };
        let data_dir = std::env::var_os("CLAWMUX_HOME")
            .map_or_else(clawmux_core::layout::default_data_dir, PathBuf::from);
        // Only if the agent was given one (an older hub's agents were): agents need none.
        let token = std::env::var("CLAWMUX_TOKEN")
            .ok()
            .filter(|t| !t.is_empty());
        Ok(Some(AgentEnv {
            session,
            hub: HubAddr {
                port,
                socket: clawmux_core::layout::socket_path(&data_dir),
                token,
            },
            data_dir,
        }))
    }

    /// Like [`AgentEnv::load`], for commands that make no sense outside an agent.
    pub fn require() -> Result<AgentEnv, String> {
        AgentEnv::load()?
            .ok_or_else(|| "CLAWMUX_SESSION_ID is not set: run this inside an agent".to_owned())
    }
}
