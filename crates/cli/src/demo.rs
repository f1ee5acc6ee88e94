//! `clawmux demo-agent NAME`: a stand-in for Claude Code that lives in the wait loop.
//!
//! It does what a Claude agent configured by ClawMux does, through the same paths: tool hooks are HTTP
//! POSTs to the hub with the session header (as Claude Code's HTTP hooks send them), SessionStart goes
//! through `clawmux hook tool-status` (Claude only runs commands for it), and `clawmux wait`,
//! `clawmux send` and `clawmux hook stop` run as child processes, the way Claude's Bash tool and its
//! command hooks run them. It reads a file, edits one, sometimes compacts, and answers every message.
//!
//! Like Claude Code, it keeps a transcript (JSON lines: the prompt, each tool call and its result, each
//! answer) and every hook names it, so the hub watches a real, growing file for each demo agent: the load
//! and the figures measured with demo agents are those of real ones.

use std::io::Write;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clawmux_api::commands;
use clawmux_api::session::SessionInfo;
use clawmux_core::wire::Code;
use serde_json::{json, Value};

use crate::client::{CallError, Client};
use crate::env::{HubAddr, HubArgs};

/// The agent's transcript, appended to as Claude Code appends to its own.
struct Transcript {
    path: std::path::PathBuf,
    session: String,
}

impl Transcript {
    /// Appends one line of `kind` (`user`, `assistant`) holding `content`, stamped now.
    fn append(&self, kind: &str, content: Value) {
        let line = json!({
            "type": kind,
            "sessionId": self.session,
            "timestamp": humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
            "message": {"role": kind, "content": content},
        });
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .and_then(|mut f| f.write_all(format!("{line}\n").as_bytes()));
        if let Err(e) = written {
            eprintln!("demo-agent: cannot write {}: {e}", self.path.display());
        }
    }
}

struct Demo {
    name: String,
    transcript: Transcript,
    hub: HubAddr,
    client: Client,
    work_dir: String,
    pace: Duration,
    stop: Arc<AtomicBool>,
    tool_seq: u64,
    answered: u64,
}

pub fn run(args: &HubArgs, name: &str, pace_ms: u64, limit: Option<u64>) -> Result<(), String> {
    let hub = args.resolve()?;
    let client = Client::new(&hub, Duration::from_secs(5));
    let add = commands::AddAgent {
        name: name.to_owned(),
        work_dir: None,
    };
    match client.call(add) {
        Ok(_)
        | Err(CallError::Api {
            code: Some(Code::AgentExists),
            ..
        }) => {}
        Err(e) => return Err(e.to_string()),
    }
    let sessions: Vec<SessionInfo> = client.call(commands::Sessions {})?;
    let work_dir = sessions
        .into_iter()
        .find(|s| s.session_id == name)
        .ok_or_else(|| format!("agent {name} vanished"))?
        .work_dir;
    let stop = Arc::new(AtomicBool::new(false));
    for s in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        let _ = signal_hook::flag::register(s, stop.clone());
    }
    let path = clawmux_core::layout::demo_transcript(hub.data_dir(), name);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let transcript = Transcript {
        path,
        session: format!("demo-{name}"),
    };
    let mut demo = Demo {
        name: name.to_owned(),
        transcript,
        hub,
        client,
        work_dir,
        pace: Duration::from_millis(pace_ms),
        stop,
        tool_seq: 0,
        answered: 0,
    };
    demo.main_loop(limit)
}

/// A message line as `clawmux wait` prints it: `[MSG id:.. from:..] text` or `[VOICE ...]`.
fn parse_line(line: &str) -> Option<(String, String)> {
    let rest = line
        .strip_prefix("[MSG id:")
        .or_else(|| line.strip_prefix("[VOICE id:"))?;
    let (id, rest) = rest.split_once(' ')?;
    let (_, text) = rest.split_once("] ")?;
    Some((id.to_owned(), text.to_owned()))
}

impl Demo {
    fn main_loop(&mut self, limit: Option<u64>) -> Result<(), String> {
        // What its terminal shows (the app's terminal panel, `clawmux attach`): what it does, as Claude
        // Code shows its own turns.
        println!(
            "ClawMux demo agent `{}` (not Claude): it reads NOTES.md, edits it, and answers.",
            self.name
        );
        self.command_hook(
            &["hook", "tool-status"],
            json!({"hook_event_name":"SessionStart","source":"startup"}),
        )?;
        while !self.stopped() {
            if limit.is_some_and(|l| self.answered >= l) {
                return Ok(());
            }
            // A wait that fails (the hub restarting, or too slow to answer) is run again, as Claude runs a
            // failed command again: the demo agent lives as long as it is not told to stop.
            let mut inbox = match self.wait() {
                Ok(inbox) => inbox,
                Err(_) if self.stopped() => return Ok(()),
                Err(e) => {
                    eprintln!("demo-agent {}: {e}; waiting again", self.name);
                    std::thread::sleep(Duration::from_secs(1));
                    continue;
                }
            };
            while let Some((id, text)) = inbox.pop() {
                inbox.extend(self.answer(&id, &text)?);
                if limit.is_some_and(|l| self.answered >= l) {
                    break;
                }
            }
            // Like a model that ends its turn before remembering the wait: the Stop hook catches it.
            inbox.extend(self.stop_hook()?);
            while let Some((id, text)) = inbox.pop() {
                inbox.extend(self.answer(&id, &text)?);
            }
        }
        Ok(())
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn pause(&self) {
        std::thread::sleep(self.pace);
    }

    fn exe() -> Result<std::path::PathBuf, String> {
        std::env::current_exe().map_err(|e| format!("cannot find the clawmux binary: {e}"))
    }

    fn child(&self, args: &[&str]) -> Result<Command, String> {
        let mut cmd = Command::new(Self::exe()?);
        cmd.args(args)
            .env("CLAWMUX_SESSION_ID", &self.name)
            .env("CLAWMUX_PORT", self.hub.port.to_string())
            .env("CLAWMUX_HOME", self.hub.data_dir())
            .env("CLAWMUX_WORK_DIR", &self.work_dir)
            .current_dir(&self.work_dir);
        Ok(cmd)
    }

    fn payload(&self, event: &str, mut extra: Value) -> Value {
        extra["hook_event_name"] = json!(event);
        extra["session_id"] = json!(format!("demo-{}", self.name));
        extra["cwd"] = json!(self.work_dir);
        extra["transcript_path"] = json!(self.transcript.path);
        extra
    }

    /// A hook the way Claude Code's HTTP hooks send it. Returns message lines it was handed, if any.
    fn http_hook(&self, event: &str, extra: Value) -> Vec<(String, String)> {
        let body = self.payload(event, extra).to_string();
        match self
            .client
            .post("/api/hooks/tool-status", Some(&self.name), body.as_bytes())
        {
            Ok(v) => v
                .pointer("/hookSpecificOutput/additionalContext")
                .and_then(Value::as_str)
                .map(|c| c.lines().filter_map(parse_line).collect())
                .unwrap_or_default(),
            Err(e) => {
                eprintln!("demo-agent: hook {event}: {e}");
                Vec::new()
            }
        }
    }

    /// A command hook: the payload on stdin of a `clawmux` child.
    fn command_hook(&self, args: &[&str], extra: Value) -> Result<(ExitStatus, String), String> {
        let event = extra
            .get("hook_event_name")
            .and_then(Value::as_str)
            .unwrap_or("Stop")
            .to_owned();
        let mut child = self
            .child(args)?
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run clawmux: {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(self.payload(&event, extra).to_string().as_bytes());
        }
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        Ok((
            out.status,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ))
    }

    fn tool(&mut self, name: &str, input: Value) -> (String, Vec<(String, String)>) {
        self.tool_seq += 1;
        let id = format!("toolu_demo_{}_{}", self.name, self.tool_seq);
        self.transcript.append(
            "assistant",
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
        );
        let got = self.http_hook(
            "PreToolUse",
            json!({"tool_name": name, "tool_input": input, "tool_use_id": id}),
        );
        (id, got)
    }

    fn tool_done(&self, name: &str, id: &str, input: Value) -> Vec<(String, String)> {
        self.transcript.append(
            "user",
            json!([{"type": "tool_result", "tool_use_id": id, "content": "done"}]),
        );
        self.http_hook(
            "PostToolUse",
            json!({"tool_name": name, "tool_input": input, "tool_use_id": id, "tool_response": {"success": true}}),
        )
    }

    /// Runs `clawmux wait` as Claude's Bash tool would and returns the messages it printed.
    fn wait(&mut self) -> Result<Vec<(String, String)>, String> {
        let input = json!({"command": "clawmux wait", "description": "clawmux wait"});
        let (id, mut got) = self.tool("Bash", input.clone());
        let child = self
            .child(&["wait"])?
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot run clawmux wait: {e}"))?;
        let output = self.supervise(child)?;
        got.extend(output.lines().filter_map(parse_line));
        got.extend(self.tool_done("Bash", &id, input));
        got.reverse();
        Ok(got)
    }

    /// Waits for a child, killing it if the demo agent is told to stop.
    fn supervise(&self, mut child: Child) -> Result<String, String> {
        loop {
            if self.stopped() {
                let _ = child.kill();
                let _ = child.wait();
                return Err("stopped".into());
            }
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(e.to_string()),
            }
        }
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("clawmux wait failed: {}", out.status));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Works on one message the way a small Claude task would, then answers it.
    fn answer(&mut self, msg_id: &str, text: &str) -> Result<Vec<(String, String)>, String> {
        let mut got = Vec::new();
        println!("\n> {text}");
        let notes = format!("{}/NOTES.md", self.work_dir);
        for (tool, input) in [
            ("Read", json!({"file_path": notes})),
            (
                "Edit",
                json!({"file_path": notes, "old_string": "", "new_string": text}),
            ),
        ] {
            println!("● {tool} NOTES.md");
            self.pause();
            let (id, handed) = self.tool(tool, input.clone());
            got.extend(handed);
            self.pause();
            got.extend(self.tool_done(tool, &id, input));
        }
        if self.answered % 5 == 4 {
            self.http_hook(
                "PreCompact",
                json!({"trigger": "auto", "custom_instructions": ""}),
            );
            self.pause();
            self.command_hook(
                &["hook", "tool-status"],
                json!({"hook_event_name":"SessionStart","source":"compact"}),
            )?;
        }
        let reply = format!(
            "**Demo agent `{}`** got your message:\n\n> {}",
            self.name,
            text.replace('\n', "\n> ")
        );
        self.transcript
            .append("assistant", json!([{"type": "text", "text": reply}]));
        let send_input = json!({"command": format!("clawmux send --to user --re {msg_id} ..."), "description": "reply to the user"});
        self.pause();
        let (id, handed) = self.tool("Bash", send_input.clone());
        got.extend(handed);
        self.send_reply(msg_id, &reply)?;
        got.extend(self.tool_done("Bash", &id, send_input));
        self.answered += 1;
        Ok(got)
    }

    /// `clawmux send --to user --re ID reply`. A send that fails is sent again (sends are idempotent):
    /// the answer is never dropped.
    fn send_reply(&mut self, msg_id: &str, reply: &str) -> Result<(), String> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let out = self
                .child(&["send", "--to", "user", "--re", msg_id, reply])?
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()
                .map_err(|e| format!("cannot run clawmux send: {e}"))?;
            if out.status.success() {
                return Ok(());
            }
            let why = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            if attempt >= 5 || self.stopped() {
                return Err(format!("clawmux send failed: {why}"));
            }
            eprintln!(
                "demo-agent {}: clawmux send failed ({why}); sending again",
                self.name
            );
            std::thread::sleep(Duration::from_secs(1));
        }
    }

    /// Fires the Stop hook; returns the messages it handed over (exit 2 with message lines).
    fn stop_hook(&self) -> Result<Vec<(String, String)>, String> {
        let (status, stderr) = self.command_hook(
            &["hook", "stop"],
            json!({"hook_event_name":"Stop","stop_hook_active":false}),
        )?;
        if status.code() == Some(2) {
            return Ok(stderr.lines().filter_map(parse_line).collect());
        }
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests;
