//! Text from an agent or another machine made safe for a terminal: a terminal obeys the control characters
//! it is given (escape sequences can set its title, write the clipboard or redraw what the user sees), so
//! none reaches one but line breaks and tabs. One rule for everything ClawMux prints, or shows, of theirs.

/// `s` without control characters but line breaks and tabs.
pub fn printable(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn only_line_breaks_and_tabs_stay_of_the_control_characters() {
        assert_eq!(
            printable("\u{1b}]0;owned\u{7}\u{1b}[2Jline\none\ttab\u{9b}31m\0"),
            "]0;owned[2Jline\none\ttab31m"
        );
    }
}
