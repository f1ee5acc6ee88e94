//! Other machines the user reaches over SSH: their names, where each is (`ssh://[user@]host[:port]`),
//! what ssh is asked to run there, and what a failed dial means.
//!
//! Why so strict: a machine's address ends up as arguments of the user's own `ssh`. A host that starts
//! with `-` would be read as an option (`-oProxyCommand=...` runs a program), and a user or host with
//! spaces, quotes or `%` would change what ssh or its config expands. So only the characters a host name,
//! an IP address or a login can hold pass, the host never starts with `-`, and ssh is always given `--`
//! before it.

use std::fmt;

/// What the remote `clawmux` is asked to run: it connects its standard input and output to the hub of
/// that machine (starting it if it does not run), after one line of hello.
pub const DIAL_COMMAND: &str = "clawmux dial-stdio";

/// The options ClawMux gives ssh before the machine's own arguments: no terminal, never asking anything (a
/// link has nobody to answer), and giving up on a connection that does not come within ten seconds.
pub const SSH_OPTIONS: [&str; 5] = ["-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"];

/// The whole command line of a dial, after the program `ssh`: [`SSH_OPTIONS`], `-F config` when the user
/// named a config file for ClawMux (`CLAWMUX_SSH_CONFIG`), the machine, and [`DIAL_COMMAND`].
pub fn dial_args(target: &SshTarget, config: Option<&std::path::Path>) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = SSH_OPTIONS.iter().map(Into::into).collect();
    if let Some(config) = config {
        args.push("-F".into());
        args.push(config.into());
    }
    args.extend(target.ssh_args().into_iter().map(Into::into));
    args.push(DIAL_COMMAND.into());
    args
}

/// The command line, after the program `ssh`, that attaches this terminal to agent `name`'s terminal on
/// `target` (`clawmux attach --machine`): a terminal asked for (`-t`), the user's ssh free to ask for a
/// passphrase, as the user is there. `name` must be a checked agent name: it reaches the remote shell.
pub fn attach_args(
    target: &SshTarget,
    config: Option<&std::path::Path>,
    name: &str,
) -> Result<Vec<std::ffi::OsString>, crate::wire::BadName> {
    crate::wire::check_agent_name(name)?;
    let mut args: Vec<std::ffi::OsString> = vec!["-t".into()];
    if let Some(config) = config {
        args.push("-F".into());
        args.push(config.into());
    }
    args.extend(target.ssh_args().into_iter().map(Into::into));
    args.extend(["clawmux".into(), "attach".into(), name.into()]);
    Ok(args)
}

/// The version of the hello line and of what follows it. A remote `clawmux` that speaks another is refused
/// with the command to update it.
pub const DIAL_VERSION: u32 = 1;

/// An agent as the window addresses it: by its name on this machine, `name@machine` on another (an agent's
/// name never holds `@`). The one parse and the one display in Rust; the page's `machines.js` mirrors it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentAddress<'a> {
    /// The agent's name on its machine.
    pub name: &'a str,
    /// Its machine, when not this one.
    pub machine: Option<&'a str>,
}

impl<'a> AgentAddress<'a> {
    /// Reads `name` or `name@machine`.
    pub fn parse(address: &'a str) -> AgentAddress<'a> {
        match address.rsplit_once('@') {
            Some((name, machine)) => AgentAddress {
                name,
                machine: Some(machine),
            },
            None => AgentAddress {
                name: address,
                machine: None,
            },
        }
    }
}

impl fmt::Display for AgentAddress<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.machine {
            Some(machine) => write!(f, "{}@{machine}", self.name),
            None => f.write_str(self.name),
        }
    }
}

/// The name of a machine: like an agent's, a plain identifier, and not `local` (this machine).
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct MachineName(String);

impl MachineName {
    /// The name of a machine that has none of its own to give (no host name that makes one).
    pub fn here() -> MachineName {
        MachineName("here".to_owned())
    }

    /// Checks a machine's name: 1 to 32 of `a-z A-Z 0-9 _ -`, starting with a letter or digit.
    pub fn parse(name: &str) -> Result<MachineName, BadMachine> {
        let mut bytes = name.bytes();
        let first_ok = bytes.next().is_some_and(|b| b.is_ascii_alphanumeric());
        let rest_ok = bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !first_ok || !rest_ok || name.len() > crate::wire::MAX_NAME_LEN {
            return Err(BadMachine::Name(name.chars().take(40).collect()));
        }
        if name.eq_ignore_ascii_case("local") {
            return Err(BadMachine::Local);
        }
        Ok(MachineName(name.to_owned()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for MachineName {
    type Error = BadMachine;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        MachineName::parse(&s)
    }
}

impl From<MachineName> for String {
    fn from(m: MachineName) -> String {
        m.0
    }
}

impl fmt::Display for MachineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a machine is: `ssh://[user@]host[:port]`. The host may be an alias of the user's ssh config.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SshTarget {
    user: Option<String>,
    host: String,
    port: Option<u16>,
}

impl SshTarget {
    /// Parses `ssh://[user@]host[:port]`; an IPv6 host in brackets (`ssh://[::1]:2222`).
    pub fn parse(url: &str) -> Result<SshTarget, BadMachine> {
        let bad = || BadMachine::Address(url.chars().take(200).collect());
        let rest = url.strip_prefix("ssh://").ok_or_else(bad)?;
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let (user, rest) = match rest.rsplit_once('@') {
            Some((u, r)) => (Some(u), r),
            None => (None, rest),
        };
        let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
            let (host, after) = v6.split_once(']').ok_or_else(bad)?;
            if host.is_empty() || !host.bytes().all(|b| b.is_ascii_hexdigit() || b == b':') {
                return Err(bad());
            }
            let port = match after {
                "" => None,
                p => Some(p.strip_prefix(':').ok_or_else(bad)?),
            };
            (host, port)
        } else {
            match rest.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            }
        };
        let plain = |s: &str| {
            !s.is_empty()
                && s.len() <= 255
                && !s.starts_with('-')
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        };
        if !(plain(host) || rest.starts_with('[')) || user.is_some_and(|u| !plain(u)) {
            return Err(bad());
        }
        let port = port
            .map(|p| p.parse::<u16>().ok().filter(|&p| p > 0).ok_or_else(bad))
            .transpose()?;
        Ok(SshTarget {
            user: user.map(str::to_owned),
            host: host.to_owned(),
            port,
        })
    }

    /// The arguments that point `ssh` at this machine, ending with `--` and the host: what follows is
    /// the command to run there.
    pub fn ssh_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(port) = self.port {
            args.extend(["-p".to_owned(), port.to_string()]);
        }
        if let Some(user) = &self.user {
            args.extend(["-l".to_owned(), user.clone()]);
        }
        args.extend(["--".to_owned(), self.host.clone()]);
        args
    }
}

impl TryFrom<String> for SshTarget {
    type Error = BadMachine;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        SshTarget::parse(&s)
    }
}

impl From<SshTarget> for String {
    fn from(t: SshTarget) -> String {
        t.to_string()
    }
}

impl fmt::Display for SshTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ssh://")?;
        if let Some(user) = &self.user {
            write!(f, "{user}@")?;
        }
        if self.host.contains(':') {
            write!(f, "[{}]", self.host)?;
        } else {
            f.write_str(&self.host)?;
        }
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        Ok(())
    }
}

/// Why a machine was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadMachine {
    /// Not a plain identifier.
    #[error("machine name `{0}` is not a plain identifier (1-32 of a-z, A-Z, 0-9, _ and -, starting with a letter or digit)")]
    Name(String),
    /// `local` is this machine.
    #[error("`local` is this machine's name")]
    Local,
    /// Not `ssh://[user@]host[:port]`.
    #[error("`{0}` is not an address of the form ssh://[user@]host[:port] (a host name, an alias of your ssh config, or an IP address)")]
    Address(String),
}

/// Why the remote `clawmux` could not be reached, read from how `ssh` ended and what it said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialFailure {
    /// The host's key is not the one known: ssh refused to go on.
    HostKey,
    /// No key is known for the host yet: the user has to check and accept it once.
    UnknownHost,
    /// ssh could not log in (no key accepted).
    Denied,
    /// The machine could not be reached (name, network, port).
    Unreachable(String),
    /// No `clawmux` on the remote's PATH.
    Missing,
    /// A `clawmux` without `dial-stdio`, or one that speaks another version.
    TooOld,
    /// Anything else ssh or the remote said.
    Other(String),
}

impl DialFailure {
    /// Reads ssh's exit status and its standard error. What is kept of it is made printable: the other
    /// machine's shell writes there too, and a terminal or the window shows it.
    pub fn of(status: Option<i32>, stderr: &str) -> DialFailure {
        let last = crate::printable::printable(
            stderr
                .lines()
                .map(str::trim)
                .rfind(|l| !l.is_empty())
                .unwrap_or(""),
        )
        .chars()
        .take(500)
        .collect::<String>();
        if stderr.contains("REMOTE HOST IDENTIFICATION HAS CHANGED") {
            return DialFailure::HostKey;
        }
        if stderr.contains("host key is known for") {
            return DialFailure::UnknownHost;
        }
        if stderr.contains("Host key verification failed") {
            return DialFailure::HostKey;
        }
        if stderr.contains("Permission denied") {
            return DialFailure::Denied;
        }
        if stderr.contains("unrecognized subcommand") && stderr.contains("dial-stdio") {
            return DialFailure::TooOld;
        }
        match status {
            Some(127) => DialFailure::Missing,
            Some(255) => DialFailure::Unreachable(last),
            _ => DialFailure::Other(last),
        }
    }

    /// What to tell the user, with what to do.
    pub fn explain(&self, machine: &MachineName) -> String {
        match self {
            DialFailure::HostKey => format!(
                "refused: the host key of `{machine}` does not match the one known to ssh; if the machine was \
                 reinstalled, check its new key and remove the old one with `ssh-keygen -R <host>`"
            ),
            DialFailure::UnknownHost => format!(
                "ssh knows no host key for `{machine}` yet: connect once with ssh yourself, check the key \
                 it shows and accept it, then try again"
            ),
            DialFailure::Denied => format!(
                "ssh could not log in to `{machine}`: no key was accepted; add your key there \
                 (`ssh-copy-id`) or load it into your ssh agent"
            ),
            DialFailure::Unreachable(why) => {
                format!("`{machine}` is not reachable over ssh: {why}")
            }
            DialFailure::Missing => format!(
                "`clawmux` is not installed on `{machine}` (or not on the PATH of a non-interactive \
                 shell there): install it there, e.g. `sudo apt install ./clawmux_*.deb`"
            ),
            DialFailure::TooOld => format!(
                "the `clawmux` on `{machine}` is too old to be reached from here: update it there to this \
                 version ({})",
                env!("CARGO_PKG_VERSION")
            ),
            DialFailure::Other(why) => format!("`{machine}` could not be reached: {why}"),
        }
    }
}

/// The first line `clawmux dial-stdio` writes, before the hub's bytes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Hello {
    /// The remote `clawmux`'s version.
    pub clawmux: String,
    /// [`DIAL_VERSION`] of the remote.
    pub dial: u32,
    /// The remote hub's token, for the calls that need it. It crosses only the SSH channel, to a client
    /// that logged in as the same user who can read it there, and is kept in memory.
    pub token: String,
}

#[cfg(test)]
mod tests;
