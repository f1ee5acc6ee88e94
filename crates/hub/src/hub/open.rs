//! Opening the hub: its data folder made private, its token and database, and each feature made once
//! with what it uses, in the order they name each other (the composition root).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU16;
use std::sync::{Arc, Mutex};

use clawmux_core::observe::{LogObserver, Observers};
use clawmux_core::wire::Code;
use clawmux_store::Store;
use tokio::sync::broadcast;

use super::{Hub, Inner, UI_BACKLOG};
use crate::agents::Agents;
use crate::clock::now;
use crate::config::{load_or_create_token, make_private, Options};
use crate::error::HubError;
use crate::lifecycle::tmux::Tmux;
use crate::metrics::SharedMetrics;
use crate::states::States;
use clawmux_core::layout::DB_FILE;

impl Hub {
    /// Opens the hub's data folder with the options of the environment ([`Options::from_env`]).
    pub async fn open(data_dir: &Path) -> Result<Hub, HubError> {
        Hub::open_with(data_dir, Options::from_env()).await
    }

    /// Opens the hub's data folder: creates it, the token and the database if needed, and loads the agents.
    /// Long: the composition root: each feature made once, in the order they name each other.
    pub async fn open_with(data_dir: &Path, options: Options) -> Result<Hub, HubError> {
        let internal = |what: &str, e: &dyn std::fmt::Display| {
            HubError::new(Code::Startup, format!("{what}: {e}"))
        };
        make_private(data_dir)
            .map_err(|e| internal(&format!("cannot make {} private", data_dir.display()), &e))?;
        let token = load_or_create_token(data_dir)
            .map_err(|e| internal(&format!("cannot use {}", data_dir.display()), &e))?;
        let store = Store::open(&data_dir.join(DB_FILE)).await?;
        let agents = Agents::default();
        for row in store.agents().await? {
            agents.insert(&row.name, PathBuf::from(row.work_dir), row.snapshot.state);
        }
        let mut observers = Observers::default();
        observers.subscribe(Box::new(LogObserver));
        let metrics = SharedMetrics::default();
        observers.subscribe(Box::new(metrics.clone()));
        let options_second_opinion = options.second_opinion_after;
        let ui = broadcast::channel(UI_BACKLOG).0;
        let tasks = crate::tasks::Tasks::default();
        let opinions: crate::opinion::judge::Opinions = std::sync::Arc::new(std::sync::Mutex::new(
            crate::opinion::judge::Judge::new(options_second_opinion),
        ));
        let voice = crate::voice::Voice::new(
            data_dir.to_owned(),
            crate::voice::device::DeviceVoice::new(
                data_dir.join("models"),
                options.models_url.clone(),
                ui.clone(),
            ),
            crate::voice::speaker::DeviceSpeaker::new(
                data_dir.join("models"),
                options.models_url.clone(),
                ui.clone(),
            ),
        );
        let (errands, errands_in) = tokio::sync::mpsc::unbounded_channel();
        let usage = crate::usage::Usage::new(
            store.clone(),
            agents.clone(),
            ui.clone(),
            crate::usage::figures::Figures::restore(&store).await?,
            errands,
            &options,
            tasks.clone(),
        );
        let (answers_waiting, answers_told) = tokio::sync::mpsc::unbounded_channel();
        let machines = crate::machines::Machines::new(
            data_dir.to_owned(),
            options.ssh_config.clone(),
            ui.clone(),
            tasks.clone(),
            crate::machines::Answers {
                here: options.machine_name.clone(),
                waiting: answers_waiting,
            },
        );
        let (finds, found) = crate::found::Finds::channel();
        let opinion = crate::opinion::SecondOpinion::new(
            store.clone(),
            ui.clone(),
            opinions.clone(),
            finds.clone(),
        );
        let requests = crate::asks::Requests::new(agents.clone(), finds.clone());
        let search = crate::search::Search::new(
            store.clone(),
            agents.clone(),
            ui.clone(),
            crate::usage::bridge::claude_dir(),
            tasks.clone(),
        );
        let import = crate::import::Import::new(
            data_dir.to_owned(),
            store.clone(),
            agents.clone(),
            ui.clone(),
        );
        let worktrees = crate::worktree::Worktrees::new(
            store.clone(),
            agents.clone(),
            data_dir.to_owned(),
            ui.clone(),
            tasks.clone(),
        );
        let states = States::new(
            store.clone(),
            agents.clone(),
            ui.clone(),
            observers,
            usage.clone(),
            opinion.clone(),
        );
        let inbox = crate::inbox::Inbox::new(states.clone());
        let between = crate::between::Between::new(
            states.clone(),
            inbox.clone(),
            crate::between::Rules {
                turns_per_hour: options.turns_per_hour,
                undelivered_after: options.undelivered_after,
            },
            (machines.clone(), answers_told),
        );
        let transcripts = crate::transcript::Transcripts::new(
            states.clone(),
            usage.clone(),
            between.clone(),
            finds.clone(),
            options.reorder_window,
            tasks.clone(),
        );
        let leads = crate::lead::Leads::new(states.clone(), inbox.clone(), requests.clone());
        let hooks = crate::hooks::Hooks::new(
            states.clone(),
            inbox.clone(),
            requests.clone(),
            transcripts.clone(),
            worktrees.clone(),
            leads.clone(),
            tasks.clone(),
        );
        let board = crate::board::Board::new(states.clone(), inbox.clone(), worktrees.clone());
        let messages =
            crate::messages::Messages::new(states.clone(), inbox.clone(), between.clone());
        let roster = crate::roster::Roster::new(
            states.clone(),
            worktrees.clone(),
            usage.clone(),
            data_dir.to_owned(),
        );
        let options = Arc::new(options);
        let port = Arc::new(AtomicU16::new(0));
        let tmux = Tmux::new(options.tmux.clone(), data_dir);
        let lifecycle = crate::lifecycle::Lifecycle::new(
            states.clone(),
            tmux.clone(),
            options.clone(),
            data_dir.to_owned(),
            port.clone(),
            tasks.clone(),
        );
        let explain = crate::explain::Explain::new(
            store.clone(),
            agents.clone(),
            opinions.clone(),
            options.start_timeout,
            data_dir,
        );
        let hands_free = crate::hands_free::HandsFree::new(store.clone(), board.clone());
        let attachments = crate::attachments::Attachments::new(data_dir, store.clone());
        let phone = crate::phone::Phone::open(
            store.clone(),
            port.clone(),
            data_dir,
            options.push_on_loopback,
        )
        .await?;
        Ok(Hub {
            inner: Arc::new(Inner {
                store,
                token,
                data_dir: data_dir.to_owned(),
                states,
                ui,
                metrics,
                started_at: now(),
                inbox,
                hooks,
                hands_free,
                tmux,
                options,
                port,
                lifecycle,
                voice,
                attachments,
                phone,
                opinion,
                worktrees,
                usage,
                machines,
                tasks,
                search,
                import,
                explain,
                requests,
                between,
                board,
                messages,
                roster,
                leads,
                found: Mutex::new(Some(found)),
                errands: Mutex::new(Some(errands_in)),
            }),
        })
    }
}
