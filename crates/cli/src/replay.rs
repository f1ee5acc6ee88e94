//! `clawmux replay FILE`: runs a recorded event sequence (a case of `tests/corpus/`, or an agent's exported
//! `events` log) through the state machine, prints each decision, and checks the file's expectations.

use std::path::Path;

use clawmux_core::replay::replay;

/// The largest file replayed: an agent's exported log of months is far smaller; a span of it
/// (`clawmux report`) replays what one wrong indicator needs.
const MAX_FILE: u64 = 256 * 1024 * 1024;

/// Replays `file`; it is an error when it does not pass ([`clawmux_core::replay::Replay::passed`]): an
/// expectation that does not hold or, without expectations, a sequence that does not reproduce.
/// Long: the replay's report printed in the order the user reads it, one block per part.
pub fn run(file: &Path) -> Result<(), String> {
    let size = std::fs::metadata(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?
        .len();
    if size > MAX_FILE {
        return Err(format!(
            "{} is {} MB, more than the {} MB replayed: take the span that matters with `clawmux report`",
            file.display(),
            size / (1024 * 1024),
            MAX_FILE / (1024 * 1024)
        ));
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let r = replay(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    if let Some(case) = &r.case {
        println!("case: {case}");
    }
    if let Some(seen) = &r.seen {
        println!("seen: {seen}");
    }
    if let Some(right) = &r.right {
        println!("right: {right}");
    }
    for (line, d) in &r.decisions {
        println!("line {line:>4}  {:<28} {}", d.trigger, decision_words(d));
    }
    for m in &r.mismatches {
        println!(
            "line {:>4}  DIFFERS recorded {}, replayed {}",
            m.line,
            decision_words(&m.recorded),
            decision_words(&m.replayed)
        );
    }
    if let (Some(shown), Some(same)) = (&r.shown, r.reproduces_shown()) {
        let shown = serde_json::to_string(shown).unwrap_or_default();
        if same {
            println!("reproduces what was shown: {shown}");
        } else {
            println!("does NOT reproduce what was shown: {shown} was shown");
        }
    }
    let failed = r.checks.iter().filter(|c| !c.holds()).count();
    for c in &r.checks {
        let verdict = if c.holds() { "ok  " } else { "FAIL" };
        println!(
            "line {:>4}  {verdict} want {}  got {}",
            c.line,
            serde_json::to_string(&c.want).unwrap_or_default(),
            serde_json::to_string(&c.got).unwrap_or_default()
        );
    }
    println!(
        "end: {} {:?}{}",
        r.end.state,
        r.end.activity,
        r.end
            .attention
            .as_ref()
            .map(|a| format!(", needs you: {} ({})", a.need.as_str(), a.reason))
            .unwrap_or_default()
    );
    if r.passed() {
        Ok(())
    } else if !r.checks.is_empty() {
        Err(format!(
            "{failed} of {} expectation(s) failed",
            r.checks.len()
        ))
    } else {
        Err(format!(
            "it does not reproduce: {} decision(s) differ{}",
            r.mismatches.len(),
            if r.reproduces_shown() == Some(false) {
                ", and it does not end where the indicator was"
            } else {
                ""
            }
        ))
    }
}

/// A decision in words: `idle -> processing (moved), needs you: permission`.
fn decision_words(d: &clawmux_core::Decision) -> String {
    let outcome = match &d.outcome {
        clawmux_core::Outcome::Moved => format!("{} -> {}", d.from, d.to),
        clawmux_core::Outcome::Stayed => format!("stays {}", d.from),
        clawmux_core::Outcome::Suppressed(why) => format!("suppressed in {} ({why})", d.from),
    };
    let needs = match &d.attention {
        Some(clawmux_core::AttentionChange::Set(a)) => format!(", needs you: {}", a.need.as_str()),
        Some(clawmux_core::AttentionChange::Cleared { need }) => {
            format!(", needs you ended ({})", need.as_str())
        }
        None => String::new(),
    };
    format!("{outcome}{needs}")
}
