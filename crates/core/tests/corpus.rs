//! The regression corpus (`tests/corpus/*.jsonl` at the top of the repository): every recorded case of a
//! wrong indicator, replayed against the machine; each must give the state that was right.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;

use clawmux_core::replay::replay;

#[test]
fn every_case_of_the_corpus_gives_the_right_state() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut cases = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/corpus") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let r = replay(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(r.case.is_some(), "{}: no header", path.display());
        assert!(!r.checks.is_empty(), "{}: nothing checked", path.display());
        for c in &r.checks {
            assert!(
                c.holds(),
                "{}:{}: want {:?}, got {:?}",
                path.display(),
                c.line,
                c.want,
                c.got
            );
        }
        cases += 1;
    }
    assert!(cases >= 5, "the corpus has {cases} cases");
}
