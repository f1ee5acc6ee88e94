//! Starting an agent's process: what it runs, Claude Code's trust of its folder, its settings and
//! instructions written, its tmux session started, and its supervisor.

use std::path::{Path, PathBuf};

use clawmux_core::hook::version::Version;
use clawmux_core::wire::Code;
use clawmux_core::State;

use super::launch::{self, Begin, Launch, Start};
use super::relay::Relay;
use super::{create_dir, pulse, supervise, trust, Created, Lifecycle, SpawnRequest};
use crate::error::HubError;

impl Lifecycle {
    /// What a spawn runs: `clawmux` itself for the demo agent, else Claude Code (the one asked for, or the
    /// hub's), which must be installed.
    pub(super) fn program_for(&self, req: &SpawnRequest) -> Result<PathBuf, HubError> {
        if req.demo {
            return Ok(self.options.clawmux.clone());
        }
        let wanted = req.command.as_deref().unwrap_or(&self.options.claude);
        launch::resolve_program(wanted).ok_or_else(|| {
            HubError::new(
                Code::ClaudeMissing,
                format!(
                    "Claude Code (`{wanted}`) is not installed or not executable; install it, \
                     name its path, or start the demo agent"
                ),
            )
        })
    }

    /// Claude Code's trust of `folder`: there already, or given now by the user (recorded), or asked for.
    /// A default work folder (`<data dir>/agents/<name>`) is ClawMux's own, made empty for the agent: it is
    /// trusted without asking.
    pub(super) fn check_trust(&self, folder: &Path, given: bool) -> Result<(), HubError> {
        let config = trust::config_file();
        if trust::trusted(&config, folder) {
            return Ok(());
        }
        let ours = folder.parent() == Some(self.data_dir.join("agents").as_path());
        if !given && !ours {
            return Err(HubError::new(
                Code::FolderNotTrusted,
                format!(
                    "Claude Code has not been trusted with {}: it would ask at start, and exit unless told \
                     yes. Trust the folder to start the agent there",
                    folder.display()
                ),
            ));
        }
        trust::trust(&config, folder).map_err(|e| {
            HubError::new(
                Code::CannotSave,
                format!(
                    "cannot record the trust of {} in {}: {e}",
                    folder.display(),
                    config.display()
                ),
            )
        })
    }

    /// Writes the agent's instructions and settings and starts its process in tmux, its Claude
    /// conversation begun as `begin` says. Starts the supervisor.
    pub(super) async fn start_process(
        &self,
        name: &str,
        work_dir: &Path,
        launch: &Launch,
        begin: Begin<'_>,
        created: &mut Created,
    ) -> Result<(), HubError> {
        let port = self.port()?;
        let clawmux = self.options.clawmux.clone();
        // Claude Code's hooks post to a relay of the agent's own; the demo agent reads no settings. Its
        // version says which hook events they may name, asked meanwhile.
        let (relay, claude) = if launch.demo {
            (None, None)
        } else {
            let (relay, claude) = tokio::join!(
                Relay::start(&clawmux, &self.data_dir, name, self.options.idle_timeout),
                super::version::of(&launch.program)
            );
            (Some(relay?), claude)
        };
        let http = relay.as_ref().map(|r| launch::HttpHooks {
            port: r.port,
            key: &r.key,
        });
        let (settings, append_prompt) = self.write_launch_files(
            name,
            work_dir,
            launch.worktree.is_some(),
            (http, claude),
            created,
        )?;
        let argv = launch::argv(&Start {
            name,
            launch,
            settings: &settings,
            begin,
            append_prompt: append_prompt.as_deref(),
            clawmux: &clawmux,
        });
        let env = launch::env(name, port, work_dir, &self.data_dir, &clawmux);
        // A dead pane of an earlier run may still hold the name.
        self.tmux.kill(name).await?;
        let pid = self.tmux.start(name, work_dir, &env, &argv).await?;
        if let Some(relay) = relay {
            relay.watch(pid).await;
        }
        tracing::info!(agent = name, pid, resume = begin.resumes(), "agent started");
        let live = self.states.live(name)?;
        *live.run.process() = Some(pid);
        *live.run.last_screen() = None;
        live.run
            .pulse
            .send_modify(|p| *p = pulse::Pulse::new(State::Starting));
        self.tasks
            .spawn(supervise::supervise(self.clone(), name.to_owned(), pid));
        Ok(())
    }

    /// Writes the agent's settings file (0600, in the hub's folder) and its instructions: its CLAUDE.md
    /// when that is ours or missing (never in a worktree), else the text to append to Claude's system
    /// prompt, returned.
    fn write_launch_files(
        &self,
        name: &str,
        work_dir: &Path,
        in_worktree: bool,
        (http, claude): (Option<launch::HttpHooks<'_>>, Option<Version>),
        created: &mut Created,
    ) -> Result<(PathBuf, Option<String>), HubError> {
        let clawmux = &self.options.clawmux;
        let launch_dir = launch::launch_dir(&self.data_dir, name);
        let io = |what: &str, path: &Path, e: std::io::Error| {
            HubError::new(
                Code::BadWorkDir,
                format!("cannot write {what} {}: {e}", path.display()),
            )
        };
        create_dir(&launch_dir, created).map_err(|e| io("the folder", &launch_dir, e))?;
        let settings = launch_dir.join("settings.json");
        crate::config::write_private(
            &settings,
            launch::settings(
                clawmux,
                &self.data_dir.join(crate::attachments::FOLDER),
                self.options.bash_timeout,
                crate::usage::bridge::users_command(&crate::usage::bridge::claude_dir(), work_dir)
                    .as_deref(),
                http,
                claude,
            )
            .to_string()
            .as_bytes(),
        )
        .map_err(|e| io("the settings", &settings, e))?;
        let instructions = super::instructions::instructions(name);
        let claude_md = work_dir.join("CLAUDE.md");
        let existing = std::fs::read_to_string(&claude_md).ok();
        // In a worktree a CLAUDE.md of ours would be one more change of the agent's to review and merge.
        if !in_worktree && super::instructions::instructions_ours(existing.as_deref()) {
            if existing.is_none() {
                created.0.push(claude_md.clone());
            }
            std::fs::write(&claude_md, &instructions)
                .map_err(|e| io("the instructions", &claude_md, e))?;
            Ok((settings, None))
        } else {
            Ok((settings, Some(instructions)))
        }
    }
}
