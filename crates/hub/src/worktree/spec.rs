//! An agent's worktree as the hub keeps it with the agent's launch (so a restart, of the agent or of the
//! app, finds it again): which repository, which branch, from which base. A type of its own, with no
//! feature behind it, so the launch record can hold it.

use std::path::{Path, PathBuf};

pub use clawmux_api::worktree::WorktreeSpec;

/// The prefix of every agent's branch: `clawmux/<agent>`.
pub const BRANCH_PREFIX: &str = "clawmux/";

/// Files ClawMux once kept at the top of an agent's work folder, never the agent's work: the PID file of
/// a `clawmux wait` under way (`.waiting`) and the demo agent's transcript. They are kept in the agent's
/// launch folder now; one an older version left behind is still left out of its changes.
pub const OWN_FILES: [&str; 2] = [".waiting", ".demo-transcript.jsonl"];

/// The branch of agent `name`.
pub fn branch_of(name: &str) -> String {
    format!("{BRANCH_PREFIX}{name}")
}

/// Where agent `name`'s worktree lives: `<data dir>/worktrees/<name>`. Outside every repository (so git
/// never sees it as something to commit), out of the user's folders, and private like the rest of the
/// data folder (0700), so another user cannot read the code in it.
pub fn path_of(data_dir: &Path, name: &str) -> PathBuf {
    data_dir.join("worktrees").join(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_branch_and_the_folder_are_named_for_the_agent() {
        assert_eq!(branch_of("sky"), "clawmux/sky");
        assert_eq!(
            path_of(Path::new("/home/u/.clawmux"), "sky"),
            Path::new("/home/u/.clawmux/worktrees/sky")
        );
    }
}
