//! Claude Code's own status reports: the Program Status Protocol (OSC 7501), read out of the bytes it writes
//! to its terminal.
//!
//! Claude Code (2.1.33x) asks its terminal once at start whether it takes status reports (`ESC ] 7501 ; ?`,
//! in the same write as its other queries and a DA1 that ends them) and, only if an answer (`ESC ] 7501 ; ?
//! ST`) comes back before the DA1's, reports every change of its state as `ESC ] 7501 ; state=working:
//! app=claude-code[:id=..][:kind=..][:progress=..][:title=<base64>][:msg=<base64>] ST`, and `state=clear`
//! when it leaves. tmux answers the DA1 itself and drops the OSC, so an agent in ClawMux's tmux never reports;
//! the agent's terminal bridge (`clawmux pty`) answers the probe before tmux sees the DA1 and hands each
//! report to the hub, where it is a second opinion beside the hooks and the session file (the hub compares
//! them with its own indicator).
//!
//! [`Scanner`] finds the probe and the reports in a stream cut anywhere into chunks, holding at most one
//! unfinished sequence (bounded); [`parse`] reads one report. Both take any bytes: the terminal's output is
//! the agent's, so everything taken from a report is made printable and bounded.

use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::printable::one_line;

/// What opens every sequence of the protocol.
const INTRO: &[u8] = b"\x1b]7501;";
/// The answer to the probe: the program may report.
pub const PROBE_REPLY: &[u8] = b"\x1b]7501;?\x1b\\";
/// The longest sequence kept while its end has not come (Claude Code's longest is about 2.8 KB).
const MAX_SEQUENCE: usize = 4096;
/// The longest title or message kept, in characters.
const MAX_TEXT: usize = 200;

/// The state a report gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportState {
    /// At its prompt, nothing under way.
    Idle,
    /// The model or a tool is running.
    Working,
    /// Waiting for the user (`kind` says for what).
    Blocked,
    /// A turn ended well.
    Done,
    /// A turn ended with an error.
    Failed,
    /// The report is withdrawn (the program leaves, or a child record ends).
    Clear,
    /// A state this version does not know.
    #[serde(other)]
    Unknown,
}

impl ReportState {
    fn parse(word: &str) -> ReportState {
        match word {
            "idle" => ReportState::Idle,
            "working" => ReportState::Working,
            "blocked" => ReportState::Blocked,
            "done" => ReportState::Done,
            "failed" | "error" => ReportState::Failed,
            "clear" => ReportState::Clear,
            _ => ReportState::Unknown,
        }
    }

    /// The word of the protocol.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportState::Idle => "idle",
            ReportState::Working => "working",
            ReportState::Blocked => "blocked",
            ReportState::Done => "done",
            ReportState::Failed => "failed",
            ReportState::Clear => "clear",
            ReportState::Unknown => "unknown",
        }
    }
}

/// One status report, every text in it printable and bounded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusReport {
    /// The state reported.
    pub state: ReportState,
    /// A child record's id (a subagent, a background task); none for the program itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// What a blocked program waits for: `permission`, `question`, `auth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// How far along, 0 to 100, when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<u8>,
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is doing, in its words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg: Option<String>,
}

/// What the scanner finds in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// The program asks whether the terminal takes reports: answer [`PROBE_REPLY`] before passing on the
    /// bytes that follow it.
    Probe,
    /// A report.
    Report(StatusReport),
}

/// Reads one report's body (what follows `ESC ] 7501 ;`, without its end); `None` for anything without a
/// `state` (a probe, a reply, garbage).
pub fn parse(body: &[u8]) -> Option<StatusReport> {
    let body = std::str::from_utf8(body).ok()?;
    let mut report = StatusReport {
        state: ReportState::Unknown,
        id: None,
        kind: None,
        progress: None,
        title: None,
        msg: None,
    };
    let mut has_state = false;
    for field in body.split(':') {
        let Some((key, value)) = field.split_once('=') else {
            continue;
        };
        match key {
            "state" => {
                report.state = ReportState::parse(value);
                has_state = true;
            }
            "id" => report.id = Some(one_line(value, 64)),
            "kind" => report.kind = Some(one_line(value, 32)),
            "progress" => report.progress = value.parse::<u8>().ok().map(|p| p.min(100)),
            "title" => report.title = decoded(value),
            "msg" => report.msg = decoded(value),
            _ => {}
        }
    }
    has_state.then_some(report)
}

/// A base64 text, printable, on one line and bounded; `None` when it is not base64 or says nothing.
fn decoded(value: &str) -> Option<String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(value)
        .ok()?;
    let text = one_line(&String::from_utf8_lossy(&bytes), MAX_TEXT);
    (!text.is_empty()).then_some(text)
}

/// Finds the protocol's sequences in a stream of terminal output, whatever the chunks.
#[derive(Debug, Default)]
pub struct Scanner {
    /// The unfinished tail of the previous chunks that may still be (the start of) a sequence.
    held: Vec<u8>,
}

impl Scanner {
    /// A scanner at the start of a stream.
    pub fn new() -> Scanner {
        Scanner::default()
    }

    /// What `chunk` finishes, in order. A sequence longer than the bound is dropped.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Heard> {
        let mut heard = Vec::new();
        let data: Vec<u8> = if self.held.is_empty() {
            chunk.to_vec()
        } else {
            let mut d = std::mem::take(&mut self.held);
            d.extend_from_slice(chunk);
            d
        };
        let mut at = 0;
        while let Some(start) = find(&data[at..], INTRO).map(|i| i + at) {
            let body_at = start + INTRO.len();
            match end_of(&data[body_at..]) {
                Some((len, skip, cancelled)) => {
                    let body = &data[body_at..body_at + len];
                    if !cancelled && body == b"?" {
                        heard.push(Heard::Probe);
                    } else if let Some(report) = parse(body).filter(|_| !cancelled) {
                        heard.push(Heard::Report(report));
                    }
                    at = body_at + len + skip;
                }
                None if data.len() - start <= MAX_SEQUENCE => {
                    self.held = data[start..].to_vec();
                    return heard;
                }
                // Too long to be one: dropped, and what follows its start is looked at.
                None => at = body_at,
            }
        }
        // Whatever could still begin a sequence is kept for the next chunk.
        let tail = &data[at..];
        let keep = (1..INTRO.len().min(tail.len() + 1))
            .rev()
            .find(|&n| tail.ends_with(&INTRO[..n]))
            .unwrap_or(0);
        self.held = tail[tail.len() - keep..].to_vec();
        heard
    }
}

/// Where the first `needle` starts in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Where an OSC's body ends: its length, how many bytes its end takes, and whether it was cancelled; `None`
/// while it has not ended. A BEL or ST (`ESC \`) ends it; CAN, SUB or an ESC starting anything else cancels
/// it, as a terminal would.
fn end_of(rest: &[u8]) -> Option<(usize, usize, bool)> {
    for (i, &b) in rest.iter().enumerate() {
        match b {
            0x07 => return Some((i, 1, false)),
            0x18 | 0x1a => return Some((i, 1, true)),
            0x1b => {
                return match rest.get(i + 1) {
                    None => None,
                    Some(b'\\') => Some((i, 2, false)),
                    Some(_) => Some((i, 0, true)),
                };
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(s)
    }

    #[test]
    fn reports_as_claude_code_writes_them() {
        let line = format!(
            "\x1b]7501;state=working:app=claude-code:msg={}\x1b\\",
            b64("Running npm test")
        );
        let heard = Scanner::new().feed(line.as_bytes());
        let [Heard::Report(r)] = heard.as_slice() else {
            panic!("{heard:?}")
        };
        assert_eq!(r.state, ReportState::Working);
        assert_eq!(r.msg.as_deref(), Some("Running npm test"));
        let blocked = parse(b"state=blocked:app=claude-code:kind=permission:progress=250").unwrap();
        assert_eq!(
            (blocked.state, blocked.kind.as_deref(), blocked.progress),
            (ReportState::Blocked, Some("permission"), Some(100))
        );
        assert_eq!(
            parse(b"state=clear:id=t1").unwrap().id.as_deref(),
            Some("t1")
        );
        assert_eq!(parse(b"state=sleepy").unwrap().state, ReportState::Unknown);
        assert_eq!(parse(b"app=claude-code"), None);
        assert_eq!(parse(b"?"), None);
    }

    #[test]
    fn the_probe_is_heard_and_its_reply_is_not() {
        let mut s = Scanner::new();
        assert_eq!(
            s.feed(b"\x1b]7501;?\x1b\\\x1b[>0q\x1b[c"),
            vec![Heard::Probe]
        );
        assert_eq!(s.feed(b"\x1b]7501;?\x07"), vec![Heard::Probe]);
        assert_eq!(s.feed(b"\x1b]7501;?ok\x07"), vec![]);
    }

    #[test]
    fn a_sequence_cut_anywhere_is_found_once() {
        let stream = format!(
            "hello\x1b]7501;?\x1b\\text\x1b]7501;state=idle:app=claude-code\x07more\x1b]7501;state=blocked:kind=question:title={}\x1b\\end",
            b64("Which one?")
        );
        let whole = Scanner::new().feed(stream.as_bytes());
        assert_eq!(whole.len(), 3, "{whole:?}");
        for cut in 0..stream.len() {
            let mut s = Scanner::new();
            let mut heard = s.feed(&stream.as_bytes()[..cut]);
            heard.extend(s.feed(&stream.as_bytes()[cut..]));
            assert_eq!(heard, whole, "cut at {cut}");
        }
        let mut s = Scanner::new();
        let one_by_one: Vec<Heard> = stream.bytes().flat_map(|b| s.feed(&[b])).collect();
        assert_eq!(one_by_one, whole);
    }

    #[test]
    fn hostile_reports_are_printable_and_bounded() {
        let evil = format!(
            "\x1b]7501;state=working:msg={}:title=%%%\x07",
            b64(&format!("\x1b]52;c;AAAA\x07{}", "x".repeat(5000)))
        );
        let heard = Scanner::new().feed(evil.as_bytes());
        let [Heard::Report(r)] = heard.as_slice() else {
            panic!("{heard:?}")
        };
        let msg = r.msg.as_deref().unwrap();
        assert!(
            !msg.contains('\x1b') && msg.chars().count() <= MAX_TEXT + 1,
            "{msg}"
        );
        assert_eq!(r.title, None);
        // An unended sequence is held only up to the bound, then dropped: the next one is still found.
        let mut s = Scanner::new();
        assert!(s.feed(b"\x1b]7501;state=working").is_empty());
        assert!(s.feed(&vec![b'a'; MAX_SEQUENCE * 2]).is_empty());
        assert!(s.held.len() <= MAX_SEQUENCE);
        assert_eq!(s.feed(b"\x1b]7501;state=idle\x07").len(), 1);
        // A cancelled sequence says nothing.
        assert!(Scanner::new().feed(b"\x1b]7501;state=idle\x18").is_empty());
        assert!(Scanner::new()
            .feed(b"\x1b]7501;state=idle\x1b[0m")
            .is_empty());
    }
}
