//! Where an agent works: the folder asked for, or one of its own under the data folder. The rules are
//! here, apart from the hub, so that every way an agent comes to be (registered, spawned, imported) picks
//! and refuses folders alike.

use std::path::{Path, PathBuf};

use clawmux_core::wire::Code;

use crate::error::HubError;

/// What registering an agent and spawning one check first: a good name no agent in `agents` has, and a
/// usable work folder (given, or the default one under `data_dir`); returns the folder, not created yet.
pub(crate) fn check_new(
    agents: &crate::agents::Agents,
    data_dir: &Path,
    name: &str,
    work_dir: Option<&Path>,
) -> Result<(PathBuf, String), HubError> {
    clawmux_core::wire::check_agent_name(name)
        .map_err(|e| HubError::new(Code::BadAgentName, e.to_string()))?;
    if agents.live(name).is_ok() {
        return Err(HubError::new(
            Code::AgentExists,
            format!("agent `{name}` already exists"),
        ));
    }
    resolve(data_dir, name, work_dir)
}

/// An agent's work folder: `asked` if given (absolute), else `<data_dir>/agents/<name>`; as a path and as
/// the UTF-8 text the store keeps. Refuses a relative path and a path that is not UTF-8.
pub(crate) fn resolve(
    data_dir: &Path,
    name: &str,
    asked: Option<&Path>,
) -> Result<(PathBuf, String), HubError> {
    let dir = match asked {
        Some(dir) if dir.is_absolute() => dir.to_owned(),
        Some(dir) => {
            return Err(HubError::new(
                Code::BadWorkDir,
                format!(
                    "the work folder must be an absolute path, not `{}`",
                    dir.display()
                ),
            ))
        }
        None => data_dir.join("agents").join(name),
    };
    let text = dir
        .to_str()
        .ok_or_else(|| {
            HubError::new(
                Code::BadWorkDir,
                "the work folder's path must be valid UTF-8",
            )
        })?
        .to_owned();
    Ok((dir, text))
}

/// A work folder that could not be made.
pub(crate) fn cannot_create(dir: &Path, e: &std::io::Error) -> HubError {
    HubError::new(
        Code::BadWorkDir,
        format!("cannot create the work folder {}: {e}", dir.display()),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_folder_asked_for_else_one_of_its_own() {
        let data = Path::new("/data");
        let (dir, text) = resolve(data, "sky", Some(Path::new("/src/app"))).unwrap();
        assert_eq!(
            (dir.as_path(), text.as_str()),
            (Path::new("/src/app"), "/src/app")
        );
        let (dir, text) = resolve(data, "sky", None).unwrap();
        assert_eq!(dir, Path::new("/data/agents/sky"));
        assert_eq!(text, "/data/agents/sky");
    }

    #[test]
    fn a_relative_or_non_utf8_folder_is_refused_saying_why() {
        let e = resolve(Path::new("/data"), "sky", Some(Path::new("src/app"))).unwrap_err();
        assert_eq!(e.code, Code::BadWorkDir);
        assert!(e.message.contains("absolute path, not `src/app`"), "{e}");
        use std::os::unix::ffi::OsStrExt;
        let odd = Path::new(std::ffi::OsStr::from_bytes(b"/src/\xff"));
        let e = resolve(Path::new("/data"), "sky", Some(odd)).unwrap_err();
        assert_eq!(e.code, Code::BadWorkDir);
        assert!(e.message.contains("UTF-8"), "{e}");
    }
}
