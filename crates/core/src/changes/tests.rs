//! Tests of `changes.rs`.

#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn edits_commands_and_unknown_tools_may_change_files_reads_do_not() {
    for tool in [
        "Edit",
        "Write",
        "MultiEdit",
        "NotebookEdit",
        "Bash",
        "Task",
        "mcp__fs__write",
    ] {
        assert!(may_change_files(tool), "{tool}");
    }
    for tool in ["Read", "Grep", "Glob", "WebFetch", "TodoWrite"] {
        assert!(!may_change_files(tool), "{tool}");
    }
}

#[test]
fn each_status_with_its_counts_and_what_is_shown() {
    let ns = [
        "M",
        "src/a.rs",
        "A",
        "new file.txt",
        "D",
        "gone.rs",
        "R087",
        "old/name.rs",
        "new/name.rs",
        "A",
        "logo.png",
        "M",
        "Cargo.lock",
        "M",
        "big.csv",
        "",
    ]
    .join("\0");
    let num = [
        "3\t1\tsrc/a.rs",
        "10\t0\tnew file.txt",
        "0\t7\tgone.rs",
        "2\t2\t",
        "old/name.rs",
        "new/name.rs",
        "-\t-\tlogo.png",
        "40\t12\tCargo.lock",
        "9000\t0\tbig.csv",
        "",
    ]
    .join("\0");
    let files = files(&ns, &num, |_| false).unwrap();
    let brief: Vec<_> = files
        .iter()
        .map(|f| (f.path.as_str(), f.status, f.added, f.removed, f.shown))
        .collect();
    assert_eq!(
        brief,
        [
            (
                "Cargo.lock",
                FileStatus::Modified,
                Some(40),
                Some(12),
                Shown::Generated
            ),
            (
                "big.csv",
                FileStatus::Modified,
                Some(9000),
                Some(0),
                Shown::Huge
            ),
            (
                "gone.rs",
                FileStatus::Deleted,
                Some(0),
                Some(7),
                Shown::Diff
            ),
            ("logo.png", FileStatus::Added, None, None, Shown::Binary),
            (
                "new file.txt",
                FileStatus::Added,
                Some(10),
                Some(0),
                Shown::Diff
            ),
            (
                "new/name.rs",
                FileStatus::Renamed,
                Some(2),
                Some(2),
                Shown::Diff
            ),
            (
                "src/a.rs",
                FileStatus::Modified,
                Some(3),
                Some(1),
                Shown::Diff
            ),
        ]
    );
    let renamed = files.iter().find(|f| f.path == "new/name.rs").unwrap();
    assert_eq!(renamed.old_path.as_deref(), Some("old/name.rs"));
}

#[test]
fn a_path_the_repository_marks_generated_is_named_not_shown() {
    let files = files("M\0gen/api.rs\0", "1\t1\tgen/api.rs\0", |p| {
        p.starts_with("gen/")
    })
    .unwrap();
    assert_eq!(files[0].shown, Shown::Generated);
}

#[test]
fn odd_paths_survive_and_nothing_is_no_change() {
    let odd = "tab\there\nnewline \u{e9}.txt";
    let files = files(&format!("M\0{odd}\0"), &format!("1\t0\t{odd}\0"), |_| false).unwrap();
    assert_eq!(files[0].path, odd);
    assert_eq!(files[0].added, Some(1));
    assert!(super::files("", "", |_| false).unwrap().is_empty());
}

#[test]
fn output_that_is_not_gits_is_an_error_not_a_guess() {
    assert!(files("X\0a\0", "", |_| false).is_err());
    assert!(files("R100\0only-old\0", "", |_| false).is_err());
    assert!(files("M\0a\0", "x\ty\ta\0", |_| false).is_err());
    assert!(commits("abc\x1fonly two\0").is_err());
}

#[test]
fn commits_newest_first_as_git_lists_them() {
    let log = "c2\x1fSecond: a summary\x1fAda\x1f1700000100\0\nc1\x1fFirst\x1fBob\x1f1700000000\0";
    let commits = commits(log).unwrap();
    assert_eq!(commits.len(), 2);
    assert_eq!(commits[0].id, "c2");
    assert_eq!(commits[0].summary, "Second: a summary");
    assert_eq!(commits[0].at, Millis(1_700_000_100_000));
    assert_eq!(commits[1].author, "Bob");
}

fn commit(summary: &str) -> Commit {
    Commit {
        id: "c".to_owned(),
        summary: summary.to_owned(),
        author: "A".to_owned(),
        at: Millis(0),
    }
}

#[test]
fn a_merge_message_from_the_agents_own_words_and_commits() {
    let commits = [commit("Add b"), commit("Add a")];
    let said = "## Added the parser\n\nIt reads both formats.\nTests pass.";
    assert_eq!(
            merge_message("sky", Some(said), &commits),
            "Added the parser\n\nIt reads both formats.\nTests pass.\n\nFrom sky's branch:\n- Add a\n- Add b"
        );
    assert_eq!(
        merge_message("sky", None, &commits[..1]),
        "Add b\n\nFrom sky's branch:\n- Add b"
    );
    assert_eq!(merge_message("sky", Some("  "), &[]), "The work of sky");
    let long = "x".repeat(100);
    let subject = merge_message("sky", Some(&long), &[]);
    assert_eq!(subject.chars().count(), SUBJECT_MAX + 3, "{subject}");
    assert!(subject.ends_with("..."));
}
