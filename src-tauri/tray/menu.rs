//! What the tray shows, as a pure value: which agents need the user (their count is the badge), whether
//! hands-free is on, and the menu made of them. The tray (`mod.rs`) only draws it, so the rules are
//! tested here without a desktop.

use std::collections::BTreeMap;

use clawmux_core::Attention;

/// The longest line of the menu: a reason longer than this is cut with an ellipsis.
const LABEL_CHARS: usize = 70;

/// What a click on the menu asks for. Its id is the menu item's (`muda` ids are strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrayItem {
    /// Open this agent in the window (`name`, or `name@machine` for another machine's).
    Agent(String),
    /// Turn hands-free on or off (the window listens).
    HandsFree,
    /// Bring the window back.
    Open,
    /// End the app.
    Quit,
}

const AGENT: &str = "agent:";
const HANDS_FREE: &str = "hands-free";
const OPEN: &str = "open";
const QUIT: &str = "quit";

impl TrayItem {
    /// The menu item's id.
    pub fn id(&self) -> String {
        match self {
            TrayItem::Agent(name) => format!("{AGENT}{name}"),
            TrayItem::HandsFree => HANDS_FREE.to_owned(),
            TrayItem::Open => OPEN.to_owned(),
            TrayItem::Quit => QUIT.to_owned(),
        }
    }

    /// The item an id names; `None` for one this menu never made.
    pub fn parse(id: &str) -> Option<TrayItem> {
        match id {
            HANDS_FREE => Some(TrayItem::HandsFree),
            OPEN => Some(TrayItem::Open),
            QUIT => Some(TrayItem::Quit),
            _ => id
                .strip_prefix(AGENT)
                .filter(|name| !name.is_empty())
                .map(|name| TrayItem::Agent(name.to_owned())),
        }
    }
}

/// A line of the menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// A line that does something when clicked.
    Item(TrayItem, String),
    /// A line that says something and does nothing.
    Note(String),
    /// A line with a tick.
    Check(TrayItem, String, bool),
    /// A rule between groups.
    Separator,
}

/// The agents that need the user and whether hands-free is on: all the tray shows.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TrayState {
    needs: BTreeMap<String, Attention>,
    hands_free: bool,
}

impl TrayState {
    /// An agent's status changed; whether what the tray shows changed with it. Counted are the agents
    /// that need the user (`Attention::needs_user`, as the notices and hands-free count them: a rate
    /// limit is not, there is nothing to do about it but wait, and the sidebar says it).
    pub fn on_status(&mut self, agent: &str, needs: Option<&Attention>) -> bool {
        match needs.filter(|a| a.needs_user()) {
            Some(a) => self.needs.insert(agent.to_owned(), a.clone()).as_ref() != Some(a),
            None => self.needs.remove(agent).is_some(),
        }
    }

    /// Hands-free went on or off; whether that changed anything.
    pub fn set_hands_free(&mut self, on: bool) -> bool {
        std::mem::replace(&mut self.hands_free, on) != on
    }

    /// Whether hands-free is on.
    pub fn hands_free(&self) -> bool {
        self.hands_free
    }

    /// How many agents need the user: the badge.
    pub fn count(&self) -> usize {
        self.needs.len()
    }

    /// The label beside the icon: the count, or nothing when no agent needs the user.
    pub fn title(&self) -> Option<String> {
        (self.count() > 0).then(|| self.count().to_string())
    }

    /// The menu: the agents that need the user (oldest need first, the one waiting longest), then
    /// hands-free, the window and quitting.
    pub fn rows(&self) -> Vec<Row> {
        let mut waiting: Vec<(&String, &Attention)> = self.needs.iter().collect();
        waiting.sort_by_key(|(name, a)| (a.since, name.as_str()));
        let mut rows: Vec<Row> = waiting
            .into_iter()
            .map(|(name, a)| Row::Item(TrayItem::Agent(name.clone()), label(name, &a.reason)))
            .collect();
        if rows.is_empty() {
            rows.push(Row::Note("No agent needs you".to_owned()));
        }
        rows.extend([
            Row::Separator,
            Row::Check(
                TrayItem::HandsFree,
                "Hands-free".to_owned(),
                self.hands_free,
            ),
            Row::Item(TrayItem::Open, "Open ClawMux".to_owned()),
            Row::Separator,
            Row::Item(TrayItem::Quit, "Quit ClawMux".to_owned()),
        ]);
        rows
    }
}

/// One line for an agent: its name and why it needs the user, printable, on one line, not too long (the
/// reason comes from the agent, which may be hostile).
fn label(agent: &str, reason: &str) -> String {
    clawmux_core::printable::one_line(&format!("{agent}: {reason}"), LABEL_CHARS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawmux_core::time::Millis;
    use clawmux_core::Need;

    fn need(need: Need, reason: &str, since: i64) -> Attention {
        Attention {
            need,
            reason: reason.to_owned(),
            tool_use_id: None,
            tool_name: None,
            since: Millis(since),
            notice: false,
        }
    }

    fn agents(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .filter_map(|r| {
                if let Row::Item(TrayItem::Agent(name), _) = r {
                    Some(name.clone())
                } else {
                    None
                }
            })
            .collect()
    }

    #[test]
    fn ids_read_back_as_the_items_they_came_from() {
        for item in [
            TrayItem::Agent("sky".into()),
            TrayItem::Agent("sky@box".into()),
            TrayItem::HandsFree,
            TrayItem::Open,
            TrayItem::Quit,
        ] {
            assert_eq!(TrayItem::parse(&item.id()), Some(item));
        }
        assert_eq!(TrayItem::parse("agent:"), None);
        assert_eq!(TrayItem::parse("settings"), None);
    }

    #[test]
    fn the_badge_counts_the_agents_that_need_the_user_and_not_a_rate_limit() {
        let mut tray = TrayState::default();
        assert_eq!((tray.count(), tray.title()), (0, None));
        assert!(tray.on_status("sky", Some(&need(Need::Permission, "Permission: Bash", 2))));
        assert!(tray.on_status("ivy", Some(&need(Need::Answer, "Question: which?", 1))));
        assert!(!tray.on_status("oak", Some(&need(Need::RateLimited, "rate_limit", 3))));
        assert_eq!(tray.title().as_deref(), Some("2"));
        // The same need again changes nothing; a new one does.
        assert!(!tray.on_status("sky", Some(&need(Need::Permission, "Permission: Bash", 2))));
        assert!(tray.on_status("sky", Some(&need(Need::Permission, "Permission: Edit", 4))));
        assert!(tray.on_status("ivy", None));
        assert!(!tray.on_status("ivy", None));
        assert_eq!(tray.title().as_deref(), Some("1"));
    }

    #[test]
    fn the_menu_lists_who_waits_longest_first_then_the_app() {
        let mut tray = TrayState::default();
        assert_eq!(
            tray.rows().first(),
            Some(&Row::Note("No agent needs you".into()))
        );
        tray.on_status("sky", Some(&need(Need::Permission, "Permission: Bash", 20)));
        tray.on_status("ivy@box", Some(&need(Need::PlanApproval, "Plan", 10)));
        tray.set_hands_free(true);
        let rows = tray.rows();
        assert_eq!(agents(&rows), ["ivy@box", "sky"]);
        assert_eq!(
            rows[1],
            Row::Item(
                TrayItem::Agent("sky".into()),
                "sky: Permission: Bash".into()
            )
        );
        assert!(rows.contains(&Row::Check(TrayItem::HandsFree, "Hands-free".into(), true)));
        assert_eq!(
            rows.last(),
            Some(&Row::Item(TrayItem::Quit, "Quit ClawMux".into()))
        );
        assert!(!tray.set_hands_free(true));
    }

    #[test]
    fn a_hostile_reason_is_one_short_printable_line() {
        let mut tray = TrayState::default();
        let reason = format!("Permission: \u{1b}]0;owned\u{7}rm\n-rf {}", "x".repeat(200));
        tray.on_status("sky", Some(&need(Need::Permission, &reason, 1)));
        let Row::Item(_, line) = &tray.rows()[0] else {
            panic!("no agent row");
        };
        assert!(
            line.starts_with("sky: Permission: ]0;ownedrm -rf xx"),
            "{line}"
        );
        assert_eq!(line.chars().count(), LABEL_CHARS);
        assert!(line.ends_with('…') && !line.chars().any(char::is_control));
    }
}
