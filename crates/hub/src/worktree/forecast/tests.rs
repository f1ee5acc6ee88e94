//! Tests of `forecast.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::super::repo::create;
use super::super::testing::{git, repo};
use super::*;

fn overlap(other: &str, conflicts: &[&str]) -> Overlap {
    Overlap {
        other: other.to_owned(),
        conflicts: conflicts.iter().map(|s| (*s).to_owned()).collect(),
        same_files: Vec::new(),
    }
}

#[test]
fn one_look_per_repository_at_a_time_and_one_more_if_asked_during_it() {
    let f = Forecasts::default();
    let (app, other) = (Path::new("/app"), Path::new("/other"));
    assert!(f.begin(app));
    assert!(f.begin(other), "another repository is looked at beside it");
    assert!(!f.begin(app));
    assert!(!f.begin(app), "asked twice during it: still one more");
    assert!(f.end(app), "once more");
    assert!(!f.end(app));
    assert!(f.begin(app), "free again");
}

#[test]
fn only_a_forecast_that_changed_is_told() {
    let f = Forecasts::default();
    let both = |a: Vec<Overlap>, b: Vec<Overlap>| {
        HashMap::from([("sky".to_owned(), a), ("moon".to_owned(), b)])
    };
    assert_eq!(f.record(both(vec![], vec![])), []);
    let told = f.record(both(
        vec![overlap("moon", &["a.rs"])],
        vec![overlap("sky", &["a.rs"])],
    ));
    assert_eq!(
        told.iter().map(|t| t.0.as_str()).collect::<Vec<_>>(),
        ["moon", "sky"]
    );
    assert_eq!(f.of("sky"), [overlap("moon", &["a.rs"])]);
    assert_eq!(
        f.record(both(
            vec![overlap("moon", &["a.rs"])],
            vec![overlap("sky", &["a.rs"])]
        )),
        [],
        "the same again"
    );
    let told = f.record(both(vec![], vec![]));
    assert_eq!(told.len(), 2, "cleared");
    assert_eq!(f.of("sky"), []);
}

#[tokio::test]
async fn the_same_lines_are_a_conflict_the_same_file_a_warning_committed_or_not() {
    let (_tmp, top, data) = repo();
    let lines: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    std::fs::write(top.join("notes.txt"), &lines).unwrap();
    git(&top, &["add", "notes.txt"]);
    git(&top, &["commit", "-q", "-m", "notes"]);
    let scratch = data.join("tmp");
    std::fs::create_dir_all(&scratch).unwrap();
    let (sky, sky_wt) = create(&data, "sky", &top, None).await.unwrap();
    let (moon, moon_wt) = create(&data, "moon", &top, None).await.unwrap();
    let sky_before = git(&sky_wt, &["rev-parse", "HEAD"]);

    // Nothing in common yet.
    std::fs::write(sky_wt.join("sky.txt"), "sky\n").unwrap();
    let (a, b) = (
        work_now(&sky, &sky_wt, &scratch).await.unwrap(),
        work_now(&moon, &moon_wt, &scratch).await.unwrap(),
    );
    assert_eq!(between(&top, "moon", &a, &b).await.unwrap(), None);

    // sky edits the first line, not committed; moon the same line, committed, and the last line of
    // notes.txt, which sky's edit does not touch.
    std::fs::write(sky_wt.join("src/a.rs"), "fn sky() {}\n").unwrap();
    std::fs::write(moon_wt.join("src/a.rs"), "fn moon() {}\n").unwrap();
    git(&moon_wt, &["commit", "-q", "-am", "moon's a"]);
    std::fs::write(
        sky_wt.join("notes.txt"),
        lines.replace("line 1\n", "sky 1\n"),
    )
    .unwrap();
    std::fs::write(
        moon_wt.join("notes.txt"),
        lines.replace("line 20\n", "moon 20\n"),
    )
    .unwrap();
    let (a, b) = (
        work_now(&sky, &sky_wt, &scratch).await.unwrap(),
        work_now(&moon, &moon_wt, &scratch).await.unwrap(),
    );
    assert_eq!(
        between(&top, "moon", &a, &b).await.unwrap(),
        Some(Overlap {
            other: "moon".to_owned(),
            conflicts: vec!["src/a.rs".to_owned()],
            same_files: vec!["notes.txt".to_owned()],
        })
    );
    // Nothing of either agent's moved: no ref, no index, no file.
    assert_eq!(git(&sky_wt, &["rev-parse", "HEAD"]), sky_before);
    assert_eq!(git(&sky_wt, &["diff", "--cached", "--name-only"]), "");
    assert_eq!(
        std::fs::read_to_string(sky_wt.join("src/a.rs")).unwrap(),
        "fn sky() {}\n"
    );
    assert!(!git(&top, &["branch", "--all"]).contains("forecast"));

    // sky's work is merged into the base: it brings nothing more, and conflicts with nobody now.
    git(&sky_wt, &["add", "-A"]);
    git(&sky_wt, &["commit", "-q", "-m", "sky's work"]);
    git(&top, &["merge", "-q", "--no-edit", &sky.branch]);
    let base = base_now(&top, &sky).await;
    let a = work_now(&sky, &sky_wt, &scratch).await.unwrap();
    assert_eq!(on_base(&top, &base, &a).await.unwrap(), None);
    // moon's work still conflicts with the base itself: compared as it stands.
    let b = work_now(&moon, &moon_wt, &scratch).await.unwrap();
    assert_eq!(on_base(&top, &base, &b).await.unwrap(), Some(b));
}

/// An edit of the same size, made in the second the last read's index was written, is seen: the
/// index read starts from is copied with its time, so git still checks that file's content. (Times
/// are set by hand so that it happens every run; git is told not to trust ctimes, which cannot be set.)
#[tokio::test]
async fn a_same_size_edit_in_the_second_of_the_last_read_is_seen() {
    let (_tmp, top, data) = repo();
    std::fs::write(top.join("notes.txt"), "line 20\n").unwrap();
    git(&top, &["add", "notes.txt"]);
    git(&top, &["commit", "-q", "-m", "notes"]);
    let scratch = data.join("tmp");
    std::fs::create_dir_all(&scratch).unwrap();
    let (spec, wt) = create(&data, "moon", &top, None).await.unwrap();
    git(&wt, &["config", "core.trustctime", "false"]);
    let second = std::time::SystemTime::now() - std::time::Duration::from_secs(100);
    let set_time = |path: &std::path::Path, at: std::time::SystemTime| {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(at)
            .unwrap();
    };
    let notes = wt.join("notes.txt");
    set_time(&notes, second);
    work_now(&spec, &wt, &scratch).await.unwrap();
    // The last read's index was written in that same second, after the agent's own index.
    let own = git(
        &wt,
        &["rev-parse", "--path-format=absolute", "--git-path", "index"],
    );
    set_time(
        std::path::Path::new(own.trim()),
        second - std::time::Duration::from_secs(10),
    );
    set_time(&super::super::diff::kept_index(&scratch, &spec), second);
    std::fs::write(&notes, "moon 20\n").unwrap();
    set_time(&notes, second);
    let work = work_now(&spec, &wt, &scratch).await.unwrap();
    assert_eq!(
        git(&wt, &["show", &format!("{work}:notes.txt")]),
        "moon 20\n"
    );
}
