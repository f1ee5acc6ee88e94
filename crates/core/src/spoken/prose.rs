//! An agent's answer as it is said aloud: its first paragraph, with "say more" for the rest; code and
//! tables are not read out but named ("there is code on screen"), and markdown's marks are dropped.

/// An answer made speakable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spoken {
    /// The paragraphs, in order, each ready to be said.
    pub paragraphs: Vec<String>,
}

impl Spoken {
    /// Makes `markdown` speakable.
    pub fn of(markdown: &str) -> Spoken {
        let mut paragraphs: Vec<String> = Vec::new();
        let mut current: Vec<String> = Vec::new();
        let mut in_code = false;
        let push = |current: &mut Vec<String>, paragraphs: &mut Vec<String>| {
            let p = current.join(" ").trim().to_owned();
            if !p.is_empty() && paragraphs.last() != Some(&p) {
                paragraphs.push(p);
            }
            current.clear();
        };
        for line in markdown.lines() {
            let t = line.trim();
            if t.starts_with("```") || t.starts_with("~~~") {
                if !in_code {
                    push(&mut current, &mut paragraphs);
                    current.push("There is code on screen.".to_owned());
                    push(&mut current, &mut paragraphs);
                }
                in_code = !in_code;
                continue;
            }
            if in_code {
                continue;
            }
            if t.starts_with('|') {
                if !current.iter().any(|l| l == "There is a table on screen.") {
                    push(&mut current, &mut paragraphs);
                    current.push("There is a table on screen.".to_owned());
                    push(&mut current, &mut paragraphs);
                }
                continue;
            }
            if t.is_empty() {
                push(&mut current, &mut paragraphs);
                continue;
            }
            current.push(plain(t));
        }
        push(&mut current, &mut paragraphs);
        Spoken { paragraphs }
    }

    /// The first paragraph, ending with "Say more for the rest." when there is more.
    pub fn first(&self) -> String {
        match self.paragraphs.as_slice() {
            [] => String::new(),
            [only] => only.clone(),
            [first, ..] => format!("{first} Say more for the rest."),
        }
    }

    /// Everything after the first paragraph.
    pub fn rest(&self) -> String {
        self.paragraphs.get(1..).unwrap_or_default().join(" ")
    }
}

/// One line without markdown's marks: headings, list bullets, emphasis, inline code's ticks, a link's
/// address (its text kept), a bare address named.
fn plain(line: &str) -> String {
    let heading = line.starts_with('#') && !line.ends_with(['.', '!', '?', ':']);
    let line = line.trim_start_matches('#').trim_start();
    let line = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or_else(|| line.strip_prefix("> "))
        .unwrap_or(line);
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let (before, after) = rest.split_at(open);
        out.push_str(before);
        match after.find("](").zip(after.find(')')) {
            Some((mid, close)) if mid < close => {
                out.push_str(&after[1..mid]);
                rest = &after[close + 1..];
            }
            _ => {
                out.push('[');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace()
        .map(|w| {
            if w.starts_with("http://") || w.starts_with("https://") {
                "a link"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
        .replace(['*', '`', '_'], "")
        + if heading { "." } else { "" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_answer_is_said_as_its_first_paragraph_then_the_rest() {
        let s = Spoken::of(
            "## Done\n\nThe **tests** pass in `crates/core`.\nSee [the log](https://x/y).\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two",
        );
        assert_eq!(
            s.paragraphs,
            [
                "Done.",
                "The tests pass in crates/core. See the log.",
                "There is code on screen.",
                "There is a table on screen.",
                "one two"
            ]
        );
        assert_eq!(s.first(), "Done. Say more for the rest.");
        assert!(s.rest().starts_with("The tests pass"));
        assert_eq!(Spoken::of("Yes.").first(), "Yes.");
        assert_eq!(
            Spoken::of("Visit https://example.com now").first(),
            "Visit a link now"
        );
    }
}
