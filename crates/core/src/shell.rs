//! Words for the POSIX shell that runs the commands ClawMux writes (Claude Code's hooks and status line,
//! the `export` lines of `clawmux agent add`): one quoting, and its inverse for the commands ClawMux reads
//! back out of a settings file (`clawmux hooks uninstall` restoring the user's status line). Pure.

/// Quotes a word for the shell: `it's` is `'it'\''s'`, whatever characters it holds.
pub fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The words of a command made of words [`quote`] made (and plain words), split as the shell would; `None`
/// for anything else (another quoting, an unterminated quote, an expansion).
pub fn words(command: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' => out.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            '"' | '$' | '`' => return None,
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_word_splits_back_to_itself() {
        assert_eq!(quote("it's"), r"'it'\''s'");
        for word in ["plain", "it's", r#"echo "$(pwd)" 'x' \ y"#, "", "a  b"] {
            let command = format!("run {} --x", quote(word));
            assert_eq!(words(&command).unwrap(), ["run", word, "--x"], "{command}");
        }
        assert_eq!(words("'unterminated"), None);
        assert_eq!(words("echo $HOME"), None);
    }
}
