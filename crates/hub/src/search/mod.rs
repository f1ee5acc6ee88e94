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

use clawmux_core::search::{fts_query, Found, FoundInSession, Role};
use clawmux_core::wire::{Code, Kind};
use clawmux_core::Millis;
use clawmux_store::SearchQuery;
use serde::{Deserialize, Serialize};

use crate::error::HubError;
use crate::hub::Hub;
use crate::ui_event::UiEvent;

/// Results per page unless asked otherwise.
const PAGE: u32 = 20;
/// The most results per page.
const MAX_PAGE: u32 = 200;
/// Older messages indexed per transaction: each holds the writer for a few milliseconds at most.
const BATCH: i64 = 250;
/// The pause between two batches, so that hooks and messages find the writer free most of the time while
/// an older store is indexed.
const PAUSE: std::time::Duration = std::time::Duration::from_millis(10);

/// Who spoke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Who {
    /// The user (typed or spoken).
    User,
    /// The agents: their answers and their messages to each other.
    Agents,
}

impl Who {
    /// Both, as the wire names them.
    pub const ALL: [Who; 2] = [Who::User, Who::Agents];

    fn kinds(self) -> Vec<Kind> {
        match self {
            Who::User => vec![Kind::User],
            Who::Agents => vec![Kind::Assistant, Kind::Agent],
        }
    }
}

/// `search`: what to look for, and where.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct SearchRequest {
    /// The user's words.
    pub query: String,
    /// Only this agent's conversation.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Only what the user, or the agents, said.
    #[serde(default)]
    pub who: Option<Who>,
    /// Only messages from this time on (ms since the epoch).
    #[serde(default)]
    pub since: Option<i64>,
    /// The next page: results before this one's `seq`.
    #[serde(default)]
    pub before: Option<i64>,
    /// At most this many (default 20, at most 200).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// `search`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchReply {
    /// The messages found, newest first.
    pub results: Vec<Found>,
    /// Older messages not indexed yet (a store from before search): they are not found until they are.
    pub indexing: i64,
    /// Lines of the user's own Claude Code sessions found, newest first (when they opted in, and the
    /// search is not of one agent).
    pub sessions: Vec<FoundInSession>,
    /// Whether the user opted in to searching their Claude Code sessions.
    pub sessions_searched: bool,
}

/// The search feature as the hub composes it.
#[derive(Clone, Copy)]
pub struct Search<'h> {
    hub: &'h Hub,
}

impl<'h> Search<'h> {
    /// The feature of `hub`.
    pub fn of(hub: &'h Hub) -> Search<'h> {
        Search { hub }
    }
}

impl Search<'_> {
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
            self.hub.live(agent)?;
        }
        let query = SearchQuery {
            fts,
            agent: req.session_id.clone(),
            kinds: req.who.map(Who::kinds).unwrap_or_default(),
            since: req.since.map(Millis),
            before: req.before,
            limit,
        };
        let sessions_searched = self.hub.store().sessions_searched().await?;
        let sessions = if sessions_searched && req.session_id.is_none() {
            let wanted = |r: Role| match req.who {
                None => true,
                Some(Who::User) => r == Role::User,
                Some(Who::Agents) => r != Role::User,
            };
            let mut found = self
                .hub
                .store()
                .search_sessions(&query.fts, query.since, limit)
                .await?;
            found.retain(|f| wanted(f.role));
            found
        } else {
            Vec::new()
        };
        Ok(SearchReply {
            results: self.hub.store().search(&query).await?,
            indexing: self.hub.store().search_backlog().await?.left,
            sessions,
            sessions_searched,
        })
    }

    /// `search_sessions`: whether the user's own Claude Code sessions are searched; on, they are read at
    /// once (in the background), off, what was read of them is forgotten.
    pub async fn set_sessions(&self, on: bool) -> Result<(), HubError> {
        self.hub.store().set_sessions_searched(on).await?;
        if on {
            let hub = self.hub.clone();
            tokio::spawn(async move {
                let kept = sessions::scan(&hub).await;
                tracing::info!(
                    lines = kept,
                    "read the user's Claude Code sessions for search"
                );
            });
        }
        Ok(())
    }
}

/// Indexes the messages stored before search came, newest first, telling the window how many are left
/// after each batch; returns when none are.
pub async fn index_older(hub: Hub) {
    // Counted once; each batch says how many it indexed.
    let mut left = match hub.store().search_backlog().await {
        Ok(b) if b.left > 0 => b.left,
        Ok(_) => return,
        Err(e) => {
            tracing::warn!(error = %e, "cannot count the older messages to index for search");
            return;
        }
    };
    loop {
        match hub.store().index_older(BATCH).await {
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
        hub.broadcast(UiEvent::SearchIndex { left });
        if left == 0 {
            tracing::info!("every older message is indexed for search");
            return;
        }
        // Each batch held the writer briefly: hooks and messages go first.
        tokio::time::sleep(PAUSE).await;
    }
}
