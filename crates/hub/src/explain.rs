//! The indicator, explained and reported: what a click on it opens (`explain`) and "This looks wrong"
//! (`report`), one self-contained case file. (Dismissing a need a notice alone raised is an event the
//! hub applies: `Hub::dismiss`.)
//!
//! The words and the file's format are the core's (`clawmux_core::explain`, `clawmux_core::report`): this
//! module only gathers what they need from the store, the live agent and its transcript.

use std::path::{Path, PathBuf};

use clawmux_core::explain::{explain, Context, Explanation, Run};
use clawmux_core::report::{case_file, Case, RecordedEvent};
use clawmux_core::wire::Code;
use clawmux_core::{Millis, Source};
use clawmux_store::Store;
use serde_json::Value;

use crate::agents::Agents;
use crate::clock::now;
use crate::error::HubError;
use crate::opinion::judge::Opinions;
pub use clawmux_api::explain::{Report, ReportRequest};
use clawmux_core::sync::Locked;

/// How many of the latest decisions an explanation lists.
const RECENT: u32 = 20;
/// The most events a report carries (the latest of its span).
const REPORT_EVENTS: u32 = 5_000;
/// A report's span when none is asked for: the last ten minutes.
pub const DEFAULT_SPAN_MS: u64 = 10 * 60 * 1000;
/// The most of a transcript a report reads (its end).
const TRANSCRIPT_TAIL: u64 = 32 * 1024 * 1024;
/// Where the window's reports are saved, in the data folder.
pub const REPORTS_DIR: &str = "reports";

/// Why an agent's indicator says what it says, and the case file of a span that looks wrong: made once when
/// the hub opens with the store it reads, the agents' registry (an open request, the transcript followed),
/// Claude Code's own view of each session, how long a start may take, and where reports are saved.
pub struct Explain {
    store: Store,
    agents: Agents,
    opinions: Opinions,
    start_timeout: std::time::Duration,
    reports: PathBuf,
}

impl Explain {
    pub(crate) fn new(
        store: Store,
        agents: Agents,
        opinions: Opinions,
        start_timeout: std::time::Duration,
        data_dir: &Path,
    ) -> Explain {
        Explain {
            store,
            agents,
            opinions,
            start_timeout,
            reports: data_dir.join(REPORTS_DIR),
        }
    }

    /// Why an agent's indicator says what it says.
    pub async fn explain(&self, agent: &str) -> Result<Explanation, HubError> {
        let store = &self.store;
        let row = store.agent(agent).await?;
        let recent: Vec<_> = store
            .recent_decisions(agent, RECENT)
            .await?
            .into_iter()
            .map(|d| d.decision)
            .collect();
        let (moved, raised) = store.latest_causes(agent).await?;
        let live = self.agents.live(agent)?;
        let run = if row.snapshot.observed {
            Run::Observed
        } else if row.launch.is_some() {
            Run::Managed
        } else {
            Run::External
        };
        let start_deadline =
            (run == Run::Managed).then(|| row.snapshot.since.after(self.start_timeout));
        let ctx = Context {
            run,
            start_deadline,
            request_open: live.asks.current().is_some(),
            claude_now: self.opinions.locked().theirs(agent),
        };
        Ok(explain(
            &row.snapshot,
            &recent,
            moved.as_ref().map(|d| &d.decision),
            raised.as_ref().map(|d| &d.decision),
            &ctx,
        ))
    }

    /// A case file of the agent's recent span: its events and decisions, its transcript's lines, what the
    /// indicator shows and what the user says was right; saved in `reports/` when asked.
    pub async fn report(&self, req: ReportRequest) -> Result<Report, HubError> {
        let agent = req.session_id.as_str();
        let right = req
            .right
            .as_deref()
            .map(clawmux_core::report::parse_right)
            .transpose()
            .map_err(|e| HubError::new(Code::BadQuery, e))?;
        let until = req.until.unwrap_or_else(now);
        let span_ms = i64::try_from(req.since_ms.unwrap_or(DEFAULT_SPAN_MS)).unwrap_or(i64::MAX);
        let from = Millis(until.0.saturating_sub(span_ms));
        let store = &self.store;
        let row = store.agent(agent).await?;
        let span = store.span(agent, from, REPORT_EVENTS).await?;
        let events: Vec<RecordedEvent> = span
            .events
            .into_iter()
            .filter(|(e, _, _)| e.received_at <= until)
            .filter_map(|(e, payload, decision)| {
                Some(RecordedEvent {
                    at: e.source_time,
                    source: Source::parse(&e.source)?,
                    kind: e.kind,
                    payload,
                    decision,
                })
            })
            .collect();
        let path = self
            .agents
            .live(agent)?
            .transcript()
            .as_ref()
            .map(|w| w.path.clone());
        let transcript = match path {
            Some(path) => tokio::task::spawn_blocking(move || transcript_lines(&path, from, until))
                .await
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let file = case_file(&Case {
            agent,
            from,
            to: until,
            start: &span.start,
            events: &events,
            transcript: &transcript,
            shown: &row.snapshot,
            right,
            keep: req.keep,
        });
        let path = if req.save {
            Some(self.save_report(agent, until, &file.text)?)
        } else {
            None
        };
        Ok(Report { file, until, path })
    }

    /// Writes a report into `<data dir>/reports/` (0600, in the 0700 data folder).
    fn save_report(&self, agent: &str, at: Millis, text: &str) -> Result<PathBuf, HubError> {
        let dir = &self.reports;
        std::fs::create_dir_all(dir).map_err(|e| crate::work_dir::cannot_create(dir, &e))?;
        let path = dir.join(format!("{agent}-{}.jsonl", at.0));
        crate::config::write_private(&path, text.as_bytes()).map_err(|e| {
            HubError::new(
                Code::CannotSave,
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
        Ok(path)
    }
}

/// The transcript's lines whose `timestamp` falls in the span, read from the file's last
/// [`TRANSCRIPT_TAIL`] bytes.
fn transcript_lines(path: &Path, from: Millis, until: Millis) -> Vec<(Millis, Value)> {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let start = len.saturating_sub(TRANSCRIPT_TAIL);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err() || file.read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for line in bytes.split(|b| *b == b'\n') {
        let Ok(value) = serde_json::from_slice::<Value>(line) else {
            continue; // a line cut by the tail, or half written
        };
        let at = value
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(clawmux_core::transcript::parse_time);
        if let Some(at) = at.filter(|at| *at >= from && *at <= until) {
            out.push((at, value));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[tokio::test]
    async fn an_agent_is_explained_and_its_case_file_saved_private() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
        store.add_agent("sky", "/w/sky", Millis(1)).await.unwrap();
        let agents = Agents::default();
        agents.insert("sky", "/w/sky".into(), clawmux_core::State::Starting);
        let opinions: Opinions = std::sync::Arc::new(std::sync::Mutex::new(
            crate::opinion::judge::Judge::new(std::time::Duration::from_secs(5)),
        ));
        let explain = Explain::new(
            store,
            agents,
            opinions,
            std::time::Duration::from_secs(60),
            dir.path(),
        );
        let why = explain.explain("sky").await.unwrap();
        assert_eq!(why.state, clawmux_core::State::Starting);
        assert_eq!(why.claude_now, None);
        assert_eq!(
            explain.explain("moon").await.unwrap_err().code,
            Code::UnknownAgent
        );

        let ask = |right: Option<&str>, save: bool| ReportRequest {
            session_id: "sky".to_owned(),
            since_ms: None,
            until: None,
            right: right.map(str::to_owned),
            keep: false,
            save,
        };
        assert_eq!(
            explain
                .report(ask(Some("sleepy"), true))
                .await
                .unwrap_err()
                .code,
            Code::BadQuery
        );
        assert!(
            !dir.path().join(REPORTS_DIR).exists(),
            "a refused report saves nothing"
        );
        let preview = explain.report(ask(Some("idle"), false)).await.unwrap();
        assert_eq!(preview.path, None);
        let saved = explain.report(ask(Some("idle"), true)).await.unwrap();
        let path = saved.path.unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), saved.file.text);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
