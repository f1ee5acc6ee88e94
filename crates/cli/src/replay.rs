//! `clawmux replay FILE`: runs a recorded event sequence (a case of `tests/corpus/`, or an agent's exported
//! `events` log) through the state machine, prints each decision, and checks the file's expectations.

use std::path::Path;

use clawmux_core::replay::replay;

/// Replays `file`; an expectation that does not hold is an error.
pub fn run(file: &Path) -> Result<(), String> {
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
        let outcome = match &d.outcome {
            clawmux_core::Outcome::Moved => format!("{} -> {}", d.from, d.to),
            clawmux_core::Outcome::Stayed => format!("stays {}", d.from),
            clawmux_core::Outcome::Suppressed(why) => format!("suppressed in {} ({why})", d.from),
        };
        let needs = match &d.attention {
            Some(clawmux_core::AttentionChange::Set(a)) => {
                format!("  needs you: {}", a.need.as_str())
            }
            Some(clawmux_core::AttentionChange::Cleared { need }) => {
                format!("  needs you ended ({})", need.as_str())
            }
            None => String::new(),
        };
        println!("line {line:>4}  {:<28} {outcome}{needs}", d.trigger);
    }
    for m in &r.mismatches {
        println!(
            "line {:>4}  DIFFERS recorded {} -> {} ({}), replayed {} -> {} ({})",
            m.line,
            m.recorded.from,
            m.recorded.to,
            outcome_word(&m.recorded.outcome),
            m.replayed.from,
            m.replayed.to,
            outcome_word(&m.replayed.outcome)
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
    let failed: Vec<_> = r.checks.iter().filter(|c| !c.holds()).collect();
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
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {} expectation(s) failed",
            failed.len(),
            r.checks.len()
        ))
    }
}

fn outcome_word(o: &clawmux_core::Outcome) -> &'static str {
    match o {
        clawmux_core::Outcome::Moved => "moved",
        clawmux_core::Outcome::Stayed => "stayed",
        clawmux_core::Outcome::Suppressed(_) => "suppressed",
    }
}
