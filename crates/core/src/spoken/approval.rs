//! An answer to an open request, said aloud: the one place a mishearing costs something, so the grammar
//! is closed and everything outside it is asked again.
//!
//! - The whole utterance must be the answer: `allow`, `always allow`, `deny`, `skip` (each may end with
//!   `it`). "Okay, allow" or "allow or deny?" (the app's own question heard back) is not an answer.
//! - A negation or a hesitation anywhere (`no`, `not`, `don't`, `wait`, `stop`, `but`, `um`...) means it
//!   is not an answer: "allow... no, deny" and "I would not allow that" are asked again, never approved.
//! - A command judged dangerous ([`danger`]: deleting, pushing, publishing, deploying) is allowed only by
//!   its confirmation phrase, `allow` and its words ("allow git push"); `allow` alone is asked again with
//!   the phrase to say.

use serde_json::Value;

use super::{clean, words};

/// What an utterance says to an open request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged {
    /// Let it run.
    Allow,
    /// Let it run, and do not ask again for the like.
    AllowAlways,
    /// Refuse it.
    Deny,
    /// Leave it open and go on (the next announcement).
    Skip,
    /// Not an answer: ask again, saying why.
    Again(Why),
}

/// Why an utterance was not taken as an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// Nothing was heard.
    Nothing,
    /// A negation or a hesitation was in it.
    Unsure,
    /// It was not one of the answers.
    NotAnAnswer,
    /// The command is dangerous: this phrase allows it.
    SayThePhrase(String),
}

/// A dangerous command's confirmation words, said after `allow`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Danger {
    /// The words, lower case (`["git", "push"]`).
    pub words: Vec<String>,
}

impl Danger {
    /// The phrase that allows it: `allow git push`.
    pub fn phrase(&self) -> String {
        format!("allow {}", self.words.join(" "))
    }
}

/// Words that make an utterance not an answer, wherever they are.
const UNSURE: &[&str] = &[
    "no", "not", "nope", "dont", "doesnt", "never", "wait", "stop", "hold", "cancel", "but", "or",
    "maybe", "um", "uh", "er", "erm", "hmm", "cant", "cannot", "wont", "wouldnt", "shouldnt",
    "isnt", "nah", "later", "unless", "except",
];

/// Judges `text` (as heard) as the answer to a request whose command is `danger`ous or not.
pub fn judge(text: &str, danger: Option<&Danger>) -> Judged {
    let said = words(&clean(text));
    if said.is_empty() {
        return Judged::Again(Why::Nothing);
    }
    if said.iter().any(|w| UNSURE.contains(&w.as_str())) {
        return Judged::Again(Why::Unsure);
    }
    let said: Vec<&str> = said.iter().map(String::as_str).collect();
    let body = match said.as_slice() {
        [rest @ .., "it"] if !rest.is_empty() => rest,
        all => all,
    };
    match body {
        ["deny"] => return Judged::Deny,
        ["skip"] => return Judged::Skip,
        _ => {}
    }
    let (always, after) = match body {
        ["always", "allow", after @ ..] => (true, after),
        ["allow", after @ ..] => (false, after),
        _ => return Judged::Again(Why::NotAnAnswer),
    };
    let confirmed = match danger {
        None => after.is_empty(),
        Some(d) => after.iter().copied().eq(d.words.iter().map(String::as_str)),
    };
    match (confirmed, always, danger) {
        (true, true, _) => Judged::AllowAlways,
        (true, false, _) => Judged::Allow,
        (false, _, Some(d)) => Judged::Again(Why::SayThePhrase(d.phrase())),
        (false, _, None) => Judged::Again(Why::NotAnAnswer),
    }
}

/// How long an approval may take to say, per word of it, and at least: speech much longer than its words
/// held more than they say. (Said clearly, "allow" takes 0.4-0.7 s, "always allow" and "allow git push"
/// 0.7-1.1 s.)
const SECONDS_PER_WORD: f32 = 0.6;
const SECONDS_AT_LEAST: f32 = 1.0;

/// What the audio of an utterance says beside its words.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sound {
    /// From its first to its last loud moment.
    pub seconds: f32,
    /// How many runs of speech it holds, apart by a pause: "um, allow" is two, "allow" one.
    pub runs: usize,
    /// How long its first run lasts, when more follow ("Wren," of "Wren, stop the build.").
    pub opening: f32,
}

/// Whether an approval heard with the recognizer's prompt (`prompted`) stands against what the same
/// speech gives without the prompt (`plain`) and what its audio says (`sound`). A prompt biases the
/// recognizer towards the answers, and on a small model it can drop the rest of what was said ("Allow,
/// but not the push." heard as "Allow."); and recognizers drop fillers ("um, allow" is heard "Allow."),
/// so the words alone cannot tell a hesitant answer from a clear one. So: the plain words must hold no
/// negation or hesitation and not be longer than the answer by more than a word; the speech must not last
/// longer than its words take; and it must be said in one run: anything said before or after the answer,
/// apart from it by a pause, is more than the answer.
pub fn confirmed(prompted: &str, plain: Option<&str>, sound: Option<Sound>) -> bool {
    let answer = words(&clean(prompted)).len();
    if let Some(plain) = plain {
        let plain = words(&clean(plain));
        if plain.iter().any(|w| UNSURE.contains(&w.as_str())) || plain.len() > answer + 1 {
            return false;
        }
    }
    sound.is_none_or(|s| {
        s.runs <= 1 && s.seconds <= (answer as f32 * SECONDS_PER_WORD).max(SECONDS_AT_LEAST)
    })
}

/// Programs whose every run is dangerous: what they do cannot be taken back.
const DANGEROUS_PROGRAMS: &[&str] = &["rm", "rmdir", "shred", "dd", "mkfs", "truncate", "unlink"];
/// Words that make a command dangerous wherever they are in it (`npm publish`, `kubectl delete`).
const DANGEROUS_WORDS: &[&str] = &[
    "push", "publish", "deploy", "delete", "destroy", "drop", "rm", "prune", "purge",
];

/// Programs that only read or print, whose arguments are words rather than what they do (`grep push`).
const READ_ONLY: &[&str] = &[
    "grep", "rg", "echo", "printf", "cat", "less", "head", "tail", "man", "wc", "ls",
];

/// Whether a tool call is dangerous, and its confirmation words: for a shell command, the program and
/// the dangerous word of the first simple command that has one (`git push`, `npm publish`, `rm`); for
/// another tool, a dangerous word in its name.
pub fn danger(tool_name: &str, tool_input: &Value) -> Option<Danger> {
    if tool_name != "Bash" {
        let name = tool_name.to_lowercase();
        return DANGEROUS_WORDS
            .iter()
            .find(|w| name.contains(*w))
            .map(|w| Danger {
                words: vec![(*w).to_owned()],
            });
    }
    let command = tool_input.get("command").and_then(Value::as_str)?;
    command
        .split(['\n', ';', '|', '&', '(', ')', '`'])
        .find_map(simple_command_danger)
}

/// The danger of one simple command (`sudo` and variable assignments skipped).
fn simple_command_danger(command: &str) -> Option<Danger> {
    let tokens: Vec<&str> = command
        .split_whitespace()
        .skip_while(|t| t.contains('=') || ["sudo", "env", "exec", "nohup", "time"].contains(t))
        .collect();
    let program = tokens.first()?.rsplit('/').next()?.to_lowercase();
    let program_words = words(&program);
    let spoken_program = program_words.join(" ");
    if DANGEROUS_PROGRAMS
        .iter()
        .any(|p| program == *p || program.starts_with(&format!("{p}.")))
    {
        return Some(Danger {
            words: vec![spoken_program],
        });
    }
    if let Some(w) = DANGEROUS_WORDS.iter().find(|w| program.contains(*w)) {
        return Some(Danger {
            words: vec![(*w).to_owned()],
        });
    }
    if READ_ONLY.contains(&program.as_str()) {
        return None;
    }
    // The subcommand: `git push`, `gh repo delete`.
    tokens[1..]
        .iter()
        .filter(|t| !t.starts_with('-'))
        .take(2)
        .find_map(|t| DANGEROUS_WORDS.iter().find(|w| t.to_lowercase() == **w))
        .map(|w| Danger {
            words: program_words
                .into_iter()
                .chain(std::iter::once((*w).to_owned()))
                .collect(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash(command: &str) -> Option<Danger> {
        danger("Bash", &json!({ "command": command }))
    }

    #[test]
    fn the_four_answers_said_whole_are_taken() {
        assert_eq!(judge("Allow.", None), Judged::Allow);
        assert_eq!(judge("allow it", None), Judged::Allow);
        assert_eq!(judge("Always allow!", None), Judged::AllowAlways);
        assert_eq!(judge("Deny.", None), Judged::Deny);
        assert_eq!(judge("skip it", None), Judged::Skip);
    }

    #[test]
    fn nothing_unsure_or_outside_the_grammar_is_ever_an_approval() {
        for phrase in [
            "Okay, wait, don't run that.",
            "allow... no, deny",
            "I would not allow that",
            "Allow or deny?",
            "allow all the eye.",
            "below.",
            "Always below.",
            "SCIP!",
            "okay allow",
            "allow everything",
            "yes",
            "sure, go ahead",
            "don't allow",
            "allow, but not the push",
            "um, allow",
            "maybe allow",
            "allow allow allow allow wait",
        ] {
            let judged = judge(phrase, None);
            assert!(
                matches!(judged, Judged::Again(_)),
                "`{phrase}` was taken as {judged:?}"
            );
        }
        assert_eq!(judge("[BLANK_AUDIO]", None), Judged::Again(Why::Nothing));
        assert_eq!(judge("no, don't", None), Judged::Again(Why::Unsure));
    }

    /// One run of speech this long.
    fn said(seconds: f32) -> Option<Sound> {
        Some(Sound {
            seconds,
            runs: 1,
            ..Sound::default()
        })
    }

    #[test]
    fn an_approval_heard_with_the_prompt_must_agree_with_the_plain_words_and_the_speechs_length() {
        // As measured (tiny.en, espeak-ng): the prompt made these "Allow."
        assert!(!confirmed(
            "Allow.",
            Some("allow, but not in the bush."),
            said(1.36)
        ));
        assert!(!confirmed(
            "Allow.",
            Some("allow, but out of the push."),
            said(1.66)
        ));
        assert!(!confirmed("Allow.", Some("loud"), said(1.46)));
        // Real answers, heard badly without the prompt.
        assert!(confirmed("Allow.", Some("below."), said(0.38)));
        assert!(confirmed("Allow.", Some("Allows"), said(0.68)));
        assert!(confirmed(
            "Allow git push.",
            Some("I'll get push."),
            said(0.80)
        ));
        assert!(confirmed(
            "Always allow.",
            Some("Always allow."),
            said(1.10)
        ));
        // Nothing to check against (typed, or a service's words): the grammar alone decides.
        assert!(confirmed("Allow.", None, None));
        assert!(!confirmed("Allow.", Some("no"), None));
    }

    #[test]
    fn a_hesitant_approval_is_none_though_its_words_are_the_answer() {
        // "Um, allow." as tiny.en hears espeak-ng say it: the filler dropped, the words an answer, its
        // length within an answer's; two runs of speech tell it.
        let hesitant = Some(Sound {
            seconds: 0.86,
            runs: 2,
            opening: 0.3,
        });
        assert!(!confirmed("Allow.", Some("allow."), hesitant));
        assert!(!confirmed("Allow.", None, hesitant));
        assert!(!confirmed(
            "Allow git push.",
            Some("allow git push"),
            Some(Sound {
                seconds: 1.0,
                runs: 2,
                opening: 0.4,
            })
        ));
        assert!(confirmed("Allow.", Some("allow."), said(0.86)));
    }

    #[test]
    fn a_dangerous_command_is_allowed_by_its_phrase_only() {
        let push = bash("git push origin main").unwrap();
        assert_eq!(push.phrase(), "allow git push");
        assert_eq!(
            judge("Allow.", Some(&push)),
            Judged::Again(Why::SayThePhrase("allow git push".into()))
        );
        assert_eq!(judge("Allow git push.", Some(&push)), Judged::Allow);
        assert_eq!(
            judge("always allow git push", Some(&push)),
            Judged::AllowAlways
        );
        assert!(matches!(
            judge("allow git pull", Some(&push)),
            Judged::Again(Why::SayThePhrase(_))
        ));
        assert_eq!(judge("deny", Some(&push)), Judged::Deny);
    }

    #[test]
    fn dangerous_commands_are_found_in_any_part_of_a_shell_line() {
        let words = |c: &str| bash(c).map(|d| d.words.join(" "));
        assert_eq!(
            words("npm publish --access public").as_deref(),
            Some("npm publish")
        );
        assert_eq!(words("cd x && rm -rf build").as_deref(), Some("rm"));
        assert_eq!(words("sudo rm /etc/hosts").as_deref(), Some("rm"));
        assert_eq!(
            words("FOO=1 kubectl delete pod x").as_deref(),
            Some("kubectl delete")
        );
        assert_eq!(words("./scripts/deploy.sh prod").as_deref(), Some("deploy"));
        assert_eq!(words("cargo test && git push").as_deref(), Some("git push"));
        assert_eq!(words("ls -la"), None);
        assert_eq!(words("npm test"), None);
        assert_eq!(words("grep -r push src"), None);
        assert_eq!(
            words("echo done; docker push img"),
            Some("docker push".into())
        );
        assert_eq!(
            danger("mcp__github__delete_branch", &json!({})).map(|d| d.phrase()),
            Some("allow delete".into())
        );
        assert_eq!(danger("Edit", &json!({"file_path": "/x"})), None);
    }
}
