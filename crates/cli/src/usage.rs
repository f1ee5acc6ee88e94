//! `clawmux usage [--json] [--days N]`: every agent's figures, the account's limits and what was used per
//! day.

use std::process::Command;
use std::time::Duration;

use clawmux_api::commands;
use clawmux_api::usage::UsageReply;
use clawmux_core::usage::short;
use clawmux_core::Millis;

use crate::client::Client;
use crate::env::HubArgs;

/// This machine's time zone now, in minutes east of UTC (`date +%z`, as `TZ` and the system say; UTC
/// when it cannot tell).
fn local_offset_minutes() -> i32 {
    let out = Command::new("date").arg("+%z").output().ok();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    text.as_deref().and_then(offset_minutes).unwrap_or(0)
}

/// `+0130` -> 90, `-0500` -> -300.
fn offset_minutes(z: &str) -> Option<i32> {
    let (sign, digits) = match z.as_bytes().first()? {
        b'+' => (1, &z[1..]),
        b'-' => (-1, &z[1..]),
        _ => return None,
    };
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = digits[2..].parse().ok()?;
    Some(sign * (hours * 60 + minutes))
}

fn when(at: Millis) -> String {
    let t = std::time::UNIX_EPOCH + Duration::from_millis(u64::try_from(at.0).unwrap_or(0));
    humantime::format_rfc3339_seconds(t).to_string()
}

/// `clawmux usage`.
pub fn usage(args: &HubArgs, as_json: bool, days: u32) -> Result<(), String> {
    let command = commands::Usage {
        days: Some(days),
        offset_minutes: Some(local_offset_minutes()),
    };
    let reply: UsageReply = Client::of(args, Duration::from_secs(10))?.call(command)?;
    if as_json {
        let json = serde_json::to_string_pretty(&reply).map_err(|e| e.to_string())?;
        println!("{json}");
        return Ok(());
    }
    print!("{}", words(&reply));
    Ok(())
}

fn words(reply: &UsageReply) -> String {
    let mut out = String::new();
    for l in &reply.account.limits {
        out += &format!(
            "{} limit: {:.0}% used, resets {}",
            l.limit.window.name(),
            l.limit.percent,
            when(l.limit.resets_at)
        );
        if let Some(at) = l.reached_at {
            out += &format!(", reached at {} at this pace", when(at));
        }
        out.push('\n');
    }
    if reply.agents.is_empty() {
        out += "No agent has reported its usage yet.\n";
    }
    for a in &reply.agents {
        let s = &a.sample;
        out += &format!("{}: {}", a.session_id, s.model.as_deref().unwrap_or("?"));
        if let Some(c) = s.context {
            out += &format!(
                ", context {}% ({}/{})",
                c.percent,
                short(c.used),
                short(c.size)
            );
        }
        out += &format!(
            ", in {} out {} cached {}",
            short(s.tokens.input),
            short(s.tokens.output),
            short(s.tokens.cache_read)
        );
        if let Some(cost) = s.cost_usd {
            out += &format!(", ${cost:.2}");
        }
        if let Some(l) = a.limited {
            out += &match l.until {
                Some(until) => format!(", rate-limited until {}", when(until)),
                None => ", rate-limited".to_owned(),
            };
        }
        out.push('\n');
    }
    if !reply.days.is_empty() {
        out += "\nday         agent          cost      in      out\n";
        for d in &reply.days {
            out += &format!(
                "{:<11} {:<12} {:>7.2} {:>7} {:>8}\n",
                d.day,
                d.agent,
                d.cost,
                short(d.input),
                short(d.output)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_zone_reads_as_minutes_east_of_utc() {
        assert_eq!(offset_minutes("+0130"), Some(90));
        assert_eq!(offset_minutes("-0500"), Some(-300));
        assert_eq!(offset_minutes("+0000"), Some(0));
        for bad in ["", "0100", "+1", "+01:00", "+ab00"] {
            assert_eq!(offset_minutes(bad), None, "{bad}");
        }
    }
}
