//! Finding anything any agent or the user ever said: the store's full-text index over every message, asked
//! with the user's words (`clawmux_core::search`: words as words, a documented prefix and phrase), newest
//! first, filtered by agent, speaker and time, a page at a time.
//!
//! The index is kept by the store itself, in the statement that stores each message, so it never lacks or
//! duplicates one. A store from before search is indexed after the hub starts ([`index_older`]), newest
//! first, in small paced batches that each hold the writer briefly; the window hears how many are left.
//!
//! The user's own Claude Code sessions come in too when they opt in (`sessions.rs`): their transcripts,
//! read incrementally, found beside the agents' messages.

pub mod sessions;

use clawmux_core::search::{fts_query, Role};
use clawmux_core::wire::Code;
use clawmux_core::Millis;
use clawmux_store::SearchQuery;

use std::path::PathBuf;
use std::sync::Arc;

use clawmux_store::Store;
use tokio::sync::broadcast;

use crate::agents::Agents;
use crate::error::HubError;
use crate::ui_event::UiEvent;
pub use clawmux_api::search::{SearchReply, SearchRequest, Who};

/// Results per page unless asked otherwise.
const PAGE: u32 = 20;
/// The most results per page.
const MAX_PAGE: u32 = 200;
/// Older messages indexed per transaction: each holds the writer for a few milliseconds at most.
const BATCH: i64 = 250;
/// The pause between two batches, so that hooks and messages find the writer free most of the time while
/// an older store is indexed.
const PAUSE: std::time::Duration = std::time::Duration::from_millis(10);

/// The search feature: made once when the hub opens with the store it asks, the agents it filters by, the
/// window it tells how indexing goes, and the Claude Code folder whose sessions it reads when asked.
#[derive(Clone)]
pub struct Search {
    store: Store,
    agents: Agents,
    ui: broadcast::Sender<UiEvent>,
    claude_dir: PathBuf,
    /// One scan of the user's sessions at a time, whoever asks (the timer, the user opting in).
    scanning: Arc<tokio::sync::Mutex<()>>,
    /// A scan the user asked for is the hub's task.
    tasks: crate::tasks::Tasks,
}

impl Search {
    pub(crate) fn new(
        store: Store,
        agents: Agents,
        ui: broadcast::Sender<UiEvent>,
        claude_dir: PathBuf,
        tasks: crate::tasks::Tasks,
    ) -> Search {
        Search {
            store,
            agents,
            ui,
            claude_dir,
            scanning: Arc::default(),
            tasks,
        }
    }

    /// Its background work, until the hub stops: the older messages indexed, and the user's sessions read
    /// again every [`sessions::SCAN_EVERY`].
    pub(crate) fn start(&self) {
        self.tasks.spawn(self.clone().index_older());
        self.tasks.spawn(sessions::watch(self.clone()));
    }

    /// `search` (`clawmux search`, Ctrl+K in the window).
    pub async fn find(&self, req: &SearchRequest) -> Result<SearchReply, HubError> {
        let fts =
            fts_query(&req.query).map_err(|e| HubError::new(Code::BadQuery, e.to_string()))?;
        let limit = req.limit.unwrap_or(PAGE);
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(HubError::new(
                Code::BadQuery,
                format!("limit must be 1 to {MAX_PAGE}"),
            ));
        }
        if let Some(agent) = &req.session_id {
            self.agents.live(agent)?;
        }
        let query = SearchQuery {
            fts,
            agent: req.session_id.clone(),
            kinds: req.who.map(Who::kinds).unwrap_or_default(),
            since: req.since.map(Millis),
            before: req.before,
            limit,
        };
        let sessions_searched = self.store.sessions_searched().await?;
        let sessions = if sessions_searched && req.session_id.is_none() {
            let wanted = |r: Role| match req.who {
                None => true,
                Some(Who::User) => r == Role::User,
                Some(Who::Agents) => r != Role::User,
            };
            let mut found = self
                .store
                .search_sessions(&query.fts, query.since, limit)
                .await?;
            found.retain(|f| wanted(f.role));
            found
        } else {
            Vec::new()
        };
        let tasks = self.tasks_found(req, limit).await?;
        Ok(SearchReply {
            results: self.store.search(&query).await?,
            indexing: self.store.search_backlog().await?.left,
            sessions,
            sessions_searched,
            tasks,
        })
    }

    /// The board's items with the words, on the first page of a search of everything (moved since
    /// `since`, if named).
    async fn tasks_found(
        &self,
        req: &SearchRequest,
        limit: u32,
    ) -> Result<Vec<clawmux_core::board::Task>, HubError> {
        if req.session_id.is_some() || req.who.is_some() || req.before.is_some() {
            return Ok(Vec::new());
        }
        let mut tasks = self
            .store
            .tasks(&clawmux_store::TaskFilter {
                state: None,
                owner: None,
                text: Some(req.query.clone()),
                limit: i64::from(limit),
            })
            .await?;
        tasks.retain(|t| req.since.is_none_or(|since| t.updated_at.0 >= since));
        Ok(tasks)
    }

    /// `search_sessions`: whether the user's own Claude Code sessions are searched; on, they are read at
    /// once (in the background), off, what was read of them is forgotten.
    pub async fn set_sessions(&self, on: bool) -> Result<(), HubError> {
        self.store.set_sessions_searched(on).await?;
        if on {
            let search = self.clone();
            self.tasks.spawn(async move {
                let kept = sessions::scan(&search).await;
                tracing::info!(
                    lines = kept,
                    "read the user's Claude Code sessions for search"
                );
            });
        }
        Ok(())
    }

    /// Indexes the messages stored before search came, newest first, telling the window how many are left
    /// after each batch; returns when none are.
    async fn index_older(self) {
        // Counted once; each batch says how many it indexed.
        let mut left = match self.store.search_backlog().await {
            Ok(b) if b.left > 0 => b.left,
            Ok(_) => return,
            Err(e) => {
                tracing::warn!(error = %e, "cannot count the older messages to index for search");
                return;
            }
        };
        loop {
            match self.store.index_older(BATCH).await {
                Ok(Some(indexed)) => {
                    left = left
                        .saturating_sub(i64::try_from(indexed).unwrap_or(i64::MAX))
                        .max(0);
                }
                Ok(None) => left = 0,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot index older messages for search");
                    return;
                }
            }
            let _ = self.ui.send(UiEvent::SearchIndex { left });
            if left == 0 {
                tracing::info!("every older message is indexed for search");
                return;
            }
            // Each batch held the writer briefly: hooks and messages go first.
            tokio::time::sleep(PAUSE).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawmux_core::wire::Kind;
    use clawmux_store::NewMessage;

    /// The feature with a temporary store, `sky` registered, and a Claude Code folder of the test's own.
    async fn search() -> (Search, broadcast::Receiver<UiEvent>, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
        store.add_agent("sky", "/w/sky", Millis(1)).await.unwrap();
        let agents = Agents::default();
        agents.insert("sky", PathBuf::from("/w/sky"), clawmux_core::State::Idle);
        let ui = broadcast::channel(16).0;
        let events = ui.subscribe();
        let claude = dir.path().join("claude");
        (
            Search::new(store, agents, ui, claude, crate::tasks::Tasks::default()),
            events,
            dir,
        )
    }

    #[tokio::test]
    async fn finds_what_was_said_and_refuses_a_bad_request_whole() {
        let (search, _events, _dir) = search().await;
        let said = NewMessage {
            agent: "sky",
            kind: Kind::Assistant,
            sender: "sky",
            recipient: Some("user"),
            text: "the login test passes now",
            parent: None,
            voice: false,
            aloud: false,
            attachments: &[],
            idem_key: None,
            at: Millis(10),
        };
        search.store.append(&said).await.unwrap();
        let ask = |query: &str| SearchRequest {
            query: query.to_owned(),
            ..SearchRequest::default()
        };
        let found = search.find(&ask("login")).await.unwrap();
        assert_eq!(found.results.len(), 1);
        assert_eq!(found.results[0].agent, "sky");
        assert!(!found.sessions_searched);
        let only_user = SearchRequest {
            who: Some(Who::User),
            ..ask("login")
        };
        assert!(search.find(&only_user).await.unwrap().results.is_empty());

        let unknown = SearchRequest {
            session_id: Some("moon".to_owned()),
            ..ask("login")
        };
        assert_eq!(
            search.find(&unknown).await.unwrap_err().code,
            Code::UnknownAgent
        );
        let too_many = SearchRequest {
            limit: Some(MAX_PAGE + 1),
            ..ask("login")
        };
        assert_eq!(
            search.find(&too_many).await.unwrap_err().code,
            Code::BadQuery
        );
        assert_eq!(
            search.find(&ask("")).await.unwrap_err().code,
            Code::BadQuery
        );
    }

    #[tokio::test]
    async fn opting_in_reads_the_users_sessions_at_once_and_they_are_found() {
        let (search, mut events, _dir) = search().await;
        let folder = search.claude_dir.join("projects").join("-src-app");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("0b5e.jsonl"),
            "{\"type\":\"user\",\"cwd\":\"/src/app\",\"message\":{\"content\":\"fix the login test\"}}\n",
        )
        .unwrap();
        search.set_sessions(true).await.unwrap();
        let read = tokio::time::timeout(std::time::Duration::from_secs(10), events.recv())
            .await
            .expect("the sessions were never read")
            .unwrap();
        assert!(
            matches!(read, UiEvent::SessionsRead { lines: 1 }),
            "{read:?}"
        );
        let found = search
            .find(&SearchRequest {
                query: "login".to_owned(),
                ..SearchRequest::default()
            })
            .await
            .unwrap();
        assert!(found.sessions_searched);
        assert_eq!(found.sessions.len(), 1);
        assert_eq!(found.sessions[0].session_id, "0b5e");
    }
}
