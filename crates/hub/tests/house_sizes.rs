//! The house's sizes, checked on the sources: a file over 400 lines or a function over 60 says why at its
//! top (a `Long:` line); and caps no reason lifts: files counted whole (a reader opens the whole file),
//! none over 600 and fewer over 400 as the house is split, and the long functions counted.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};

#[allow(dead_code)]
mod shape;
use shape::{crates, ident, item_end, modules, reasoned, workspace, FILE_LINES, FN_LINES, REASON};

/// The functions of `source` longer than [`FN_LINES`] with no reason: (name, lines).
fn long_functions(source: &str) -> Vec<(String, usize)> {
    functions_over(source)
        .into_iter()
        .filter(|(_, _, reasoned)| !reasoned)
        .map(|(name, lines, _)| (name, lines))
        .collect()
}

/// The functions of `source` longer than [`FN_LINES`]: (name, lines, whether a reason is written).
fn functions_over(source: &str) -> Vec<(String, usize, bool)> {
    let mut found = Vec::new();
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let code = line.trim_start();
        let Some(after) = code
            .split_once("fn ")
            .filter(|(head, _)| {
                head.split_whitespace().all(|w| {
                    [
                        "pub",
                        "pub(crate)",
                        "pub(super)",
                        "async",
                        "const",
                        "unsafe",
                    ]
                    .contains(&w)
                })
            })
            .map(|(_, after)| after)
        else {
            continue;
        };
        let name: String = after.chars().take_while(|c| ident(*c)).collect();
        let len = item_end(&source[at..]);
        let body = &source[at..at + len];
        let lines = body.lines().count();
        if lines <= FN_LINES {
            continue;
        }
        let above = source[..at].lines().rev().take_while(|l| {
            let l = l.trim_start();
            l.starts_with("//") || l.starts_with("#[")
        });
        let first_in_body = body
            .split_once('{')
            .map_or("", |(_, b)| b.trim_start().lines().next().unwrap_or(""));
        let said = reasoned(above) || reasoned(std::iter::once(first_in_body));
        found.push((name, lines, said));
    }
    found
}

#[test]
fn a_long_function_is_found_and_a_reason_excuses_it() {
    let long = format!("fn big() {{\n{}}}\n", "    step();\n".repeat(FN_LINES));
    assert_eq!(long_functions(&long), [("big".to_owned(), FN_LINES + 2)]);
    let above = format!("/// Does much.\n/// {REASON}one match over every command.\n{long}");
    assert!(long_functions(&above).is_empty());
    let inside = long.replacen("{\n", &format!("{{\n    // {REASON}a table.\n"), 1);
    assert!(long_functions(&inside).is_empty());
    let short = "pub async fn small() {\n    step();\n}\n";
    assert!(long_functions(short).is_empty());
}

#[test]
fn long_files_and_functions_say_why() {
    let mut unexplained = Vec::new();
    for root in crates() {
        for (module, source) in modules(&root) {
            let crate_dir = root
                .strip_prefix(workspace())
                .unwrap_or(&root)
                .display()
                .to_string();
            let place = format!(
                "{crate_dir} {}",
                if module.is_empty() { "(root)" } else { &module }
            );
            let lines = source.lines().count();
            let doc = source
                .lines()
                .take_while(|l| l.starts_with("//!") || l.is_empty());
            if lines > FILE_LINES && !reasoned(doc) {
                unexplained.push(format!("{place}: {lines} lines"));
            }
            for (name, lines) in long_functions(&source) {
                unexplained.push(format!("{place}: fn {name}, {lines} lines"));
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "over {FILE_LINES} lines a file, over {FN_LINES} a function, and no `{REASON}` line says \
         why: split them, or say why they are one\n{}",
        unexplained.join("\n")
    );
}

/// Files over [`FILE_LINES`] counted whole (a reader opens the whole file, its inline tests too), at most
/// this many, and none over [`FILE_CAP`]; functions over [`FN_LINES`] (tests aside), at most
/// [`LONG_FNS_AT_MOST`]. Caps that a `Long:` reason does not lift; the counts only go down.
const LONG_FILES_AT_MOST: usize = 3;
/// The most lines any Rust file holds, counted whole.
const FILE_CAP: usize = 600;
/// The most functions over [`FN_LINES`] in the crates' sources, reasons or not.
const LONG_FNS_AT_MOST: usize = 10;

/// Every Rust file of the workspace: the crates (sources, tests, benches), the desktop app and the fuzzers.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_caps_hold_whatever_the_reasons() {
    let mut files = Vec::new();
    for dir in ["crates", "src-tauri", "fuzz/fuzz_targets"] {
        rust_files(&workspace().join(dir), &mut files);
    }
    let whole: Vec<(String, usize)> = files
        .iter()
        .map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (
                f.strip_prefix(workspace())
                    .unwrap_or(f)
                    .display()
                    .to_string(),
                lines,
            )
        })
        .filter(|(_, lines)| *lines > FILE_LINES)
        .collect();
    let past_cap: Vec<&(String, usize)> = whole.iter().filter(|(_, l)| *l > FILE_CAP).collect();
    assert!(
        past_cap.is_empty(),
        "over {FILE_CAP} lines, a reason or not: {past_cap:?}"
    );
    assert!(
        whole.len() <= LONG_FILES_AT_MOST,
        "{} files over {FILE_LINES} lines counted whole, at most {LONG_FILES_AT_MOST}: {whole:?}",
        whole.len()
    );
    let long_fns: Vec<String> = crates()
        .iter()
        .flat_map(|root| modules(root).into_iter())
        .flat_map(|(module, source)| {
            functions_over(&source)
                .into_iter()
                .map(move |(name, lines, _)| format!("{module}::{name} ({lines})"))
        })
        .collect();
    assert!(
        long_fns.len() <= LONG_FNS_AT_MOST,
        "{} functions over {FN_LINES} lines, at most {LONG_FNS_AT_MOST}: {long_fns:?}",
        long_fns.len()
    );
}
