//! The list of the other machines: their
//! names and addresses, kept in the data folder (`machines.json`, 0600 like every file there, replaced
//! whole by a rename so that a crash leaves the old list or the new one).
//!
//! Only names and `ssh://` addresses are kept: no password, no key, no token. Reaching a machine is the
//! user's own `ssh` with its config, keys, agent and known hosts (`clawmux dial-stdio` on the other end).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clawmux_core::remote::{MachineName, SshTarget};

use clawmux_core::layout::MACHINES_FILE;

/// Why the list could not be read or changed; nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum MachinesError {
    /// A machine by that name is in the list already.
    #[error("a machine named `{0}` is already in the list (`clawmux remote remove {0}` first)")]
    Exists(MachineName),
    /// No machine by that name.
    #[error("no machine named `{0}`; `clawmux remote list` shows them")]
    Unknown(String),
    /// The file could not be read or written.
    #[error("{path}: {why}")]
    File {
        /// The list's file.
        path: PathBuf,
        /// What went wrong.
        why: String,
    },
}

/// The machines, by name.
#[derive(Debug)]
pub struct MachineList {
    path: PathBuf,
    list: BTreeMap<MachineName, SshTarget>,
}

impl MachineList {
    /// The list kept in `data_dir` (empty when there is none yet).
    pub fn load(data_dir: &Path) -> Result<MachineList, MachinesError> {
        let path = data_dir.join(MACHINES_FILE);
        let fail = |why: String| MachinesError::File {
            path: path.clone(),
            why,
        };
        let list = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| fail(e.to_string()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(fail(e.to_string())),
        };
        Ok(MachineList { path, list })
    }

    /// Adds a machine and keeps the list.
    pub fn add(&mut self, name: MachineName, at: SshTarget) -> Result<(), MachinesError> {
        if self.list.contains_key(&name) {
            return Err(MachinesError::Exists(name));
        }
        self.list.insert(name.clone(), at);
        self.save().inspect_err(|_| {
            self.list.remove(&name);
        })
    }

    /// Removes a machine and keeps the list; where it was.
    pub fn remove(&mut self, name: &str) -> Result<SshTarget, MachinesError> {
        let key = MachineName::parse(name).map_err(|_| MachinesError::Unknown(name.to_owned()))?;
        let at = self
            .list
            .remove(&key)
            .ok_or_else(|| MachinesError::Unknown(name.to_owned()))?;
        self.save().inspect_err(|_| {
            self.list.insert(key, at.clone());
        })?;
        Ok(at)
    }

    /// Where the machine of that name is.
    pub fn get(&self, name: &str) -> Result<(MachineName, &SshTarget), MachinesError> {
        MachineName::parse(name)
            .ok()
            .and_then(|k| self.list.get_key_value(&k))
            .map(|(k, v)| (k.clone(), v))
            .ok_or_else(|| MachinesError::Unknown(name.to_owned()))
    }

    /// Every machine, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&MachineName, &SshTarget)> {
        self.list.iter()
    }

    fn save(&self) -> Result<(), MachinesError> {
        let fail = |e: std::io::Error| MachinesError::File {
            path: self.path.clone(),
            why: e.to_string(),
        };
        let json = serde_json::to_vec_pretty(&self.list).map_err(|e| MachinesError::File {
            path: self.path.clone(),
            why: e.to_string(),
        })?;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700)
            .create(dir)
            .map_err(fail)?;
        let temp = self.path.with_extension("json.new");
        crate::config::write_private(&temp, &json).map_err(fail)?;
        std::fs::rename(&temp, &self.path).map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn name(n: &str) -> MachineName {
        MachineName::parse(n).unwrap()
    }

    #[test]
    fn machines_are_kept_private_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let mut m = MachineList::load(&data).unwrap();
        assert_eq!(m.iter().count(), 0);
        m.add(name("gpu"), SshTarget::parse("ssh://me@gpu:2222").unwrap())
            .unwrap();
        m.add(name("dev"), SshTarget::parse("ssh://dev").unwrap())
            .unwrap();
        assert!(matches!(
            m.add(name("gpu"), SshTarget::parse("ssh://other").unwrap()),
            Err(MachinesError::Exists(_))
        ));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&data.join(MACHINES_FILE)), 0o600);
        assert_eq!(mode(&data), 0o700);

        let mut again = MachineList::load(&data).unwrap();
        let names: Vec<String> = again.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(names, ["dev", "gpu"]);
        assert_eq!(again.get("gpu").unwrap().1.to_string(), "ssh://me@gpu:2222");
        assert_eq!(again.remove("dev").unwrap().to_string(), "ssh://dev");
        assert!(matches!(
            again.remove("dev"),
            Err(MachinesError::Unknown(_))
        ));
        assert!(matches!(again.get("nope"), Err(MachinesError::Unknown(_))));
        assert_eq!(MachineList::load(&data).unwrap().iter().count(), 1);
    }

    #[test]
    fn a_list_that_is_not_ours_is_refused_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MACHINES_FILE);
        for bad in [
            &b"not json"[..],
            br#"{"gpu": "ssh://-oProxyCommand=x"}"#,
            br#"{"bad name": "ssh://gpu"}"#,
        ] {
            std::fs::write(&path, bad).unwrap();
            let err = MachineList::load(dir.path()).unwrap_err();
            assert!(err.to_string().contains(MACHINES_FILE), "{err}");
            assert_eq!(std::fs::read(&path).unwrap(), bad);
        }
    }
}
