//! Text from an agent or another machine made safe for a terminal: a terminal obeys the control characters
//! it is given (escape sequences can set its title, write the clipboard or redraw what the user sees), so
//! none reaches one but line breaks and tabs. One rule for everything ClawMux prints, or shows, of theirs.

/// `s` without control characters but line breaks and tabs.
pub fn printable(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect()
}

/// `s` printable and on one line (every run of whitespace one space); longer than `cut_at` characters, its
/// first `cut_at` and an ellipsis. For a line shown of an agent's words: a notification, a menu.
pub fn one_line(s: &str, cut_at: usize) -> String {
    let line = printable(s)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if line.chars().count() <= cut_at {
        return line;
    }
    let cut: String = line.chars().take(cut_at).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::{one_line, printable};

    #[test]
    fn one_line_collapses_whitespace_drops_controls_and_cuts_with_an_ellipsis() {
        assert_eq!(
            one_line("Done.\n\n  All \u{1b}[2J  tests\tpass.", 40),
            "Done. All [2J tests pass."
        );
        assert_eq!(one_line("abc def", 4), "abc…");
        assert_eq!(one_line("abcdef", 6), "abcdef");
    }

    #[test]
    fn only_line_breaks_and_tabs_stay_of_the_control_characters() {
        assert_eq!(
            printable("\u{1b}]0;owned\u{7}\u{1b}[2Jline\none\ttab\u{9b}31m\0"),
            "]0;owned[2Jline\none\ttab31m"
        );
    }
}
