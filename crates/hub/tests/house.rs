//! The shape of the house, checked on the sources: no import cycle between the modules of any crate, and
//! `impl Hub` in four files at most: the hub's core (`hub/`: the agents, applying an event, appending a
//! message) and the router (`commands/`). Every feature is a type of its own that the hub composes and
//! routes commands to.
//!
//! A module is a file. It depends on the modules its `crate::` and `super::` paths name (a path to an item
//! counts as its module's; `use a::{b, c}` names each); its own children, named by relative paths, are part
//! of it. Test items (each `#[cfg(test)]` item, cut at its matching brace or its `;`) are left out, and
//! everything around them is read: a test may reach anywhere.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[allow(dead_code)]
mod shape;
use shape::{cycles, ident, reasoned, workspace, FILE_LINES, FN_LINES, REASON};

/// Every module under `root` (`a::b`; the crate's root is ``) with its source up to its tests.
fn modules(root: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut dirs = vec![root.to_owned()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts
                .last()
                .is_some_and(|l| ["mod", "lib", "main"].contains(&l.as_str()))
            {
                parts.pop();
            }
            let source = std::fs::read_to_string(&path).unwrap();
            found.insert(parts.join("::"), without_tests(&source));
        }
    }
    found
}

/// `source` without its `#[cfg(test)]` items: each from its attribute to its matching closing brace (or
/// its `;`, for an item without a body), skipping braces inside strings, characters and comments.
fn without_tests(source: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = source;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        rest = &rest[at + MARK.len()..];
        rest = &rest[item_end(rest)..];
    }
    out.push_str(rest);
    out
}

/// Where the item at the start of `s` ends: after its matching `}`, or its `;` when it has no body.
fn item_end(s: &str) -> usize {
    let bytes = s.as_bytes();
    let (mut i, mut depth) = (0, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += s[i..].find('\n').unwrap_or(s.len() - i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += s[i..].find("*/").map_or(s.len() - i, |e| e + 2);
                continue;
            }
            b'r' if matches!(bytes.get(i + 1), Some(b'#' | b'"')) && !ident_byte(bytes, i) => {
                let hashes = s[i + 1..].bytes().take_while(|b| *b == b'#').count();
                let close = format!("\"{}", "#".repeat(hashes));
                let body = i + 2 + hashes;
                i = body
                    + s[body..]
                        .find(&close)
                        .map_or(s.len() - body, |e| e + close.len());
                continue;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            // A character literal ('{', '\'', '\u{7b}'), not a lifetime ('a).
            b'\'' if bytes.get(i + 2) == Some(&b'\'') || bytes.get(i + 1) == Some(&b'\\') => {
                i += s[i + 2..].find('\'').map_or(s.len() - i, |e| e + 3);
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    s.len()
}

/// Whether the byte before `i` continues an identifier (`br"..."`, `for"`...).
fn ident_byte(bytes: &[u8], i: usize) -> bool {
    i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')
}

#[test]
fn test_items_are_cut_and_what_follows_them_is_read() {
    let source = r###"use crate::a::A;
#[cfg(test)]
use crate::testing::helper;
fn real() { let s = "}"; let c = '}'; let r = r#"}{"#; }
#[cfg(test)]
mod tests {
    // a } in a comment
    use crate::only_in_tests::X;
    fn t<'a>(x: &'a str) -> char { if x.is_empty() { '{' } else { '\'' } }
    /* } */
}
impl Hub {
    fn after_the_tests() { crate::b::B::new(); }
}
"###;
    let kept = without_tests(source);
    assert!(kept.contains("use crate::a::A;"), "{kept}");
    assert!(
        !kept.contains("helper") && !kept.contains("only_in_tests"),
        "{kept}"
    );
    assert!(
        kept.contains("fn real()") && kept.contains("after_the_tests"),
        "{kept}"
    );
    let used: Vec<String> = paths(&kept)
        .into_iter()
        .map(|(_, s)| s.join("::"))
        .collect();
    assert_eq!(used, ["a::A", "b::B::new"]);
}

/// The paths written after each `crate::` or `super::` in `source`, braces expanded: (which, segments).
fn paths(source: &str) -> Vec<(&'static str, Vec<String>)> {
    let mut found = Vec::new();
    for anchor in ["crate::", "super::"] {
        for (at, _) in source.match_indices(anchor) {
            if source[..at].chars().next_back().is_some_and(ident) {
                continue;
            }
            let rest = &source[at + anchor.len()..];
            // The path: identifiers and `::`, or one braced group.
            let mut end = 0;
            let mut depth = 0;
            for (i, c) in rest.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth > 0 => depth -= 1,
                    c if depth > 0 || ident(c) || c == ':' || c == '*' => {}
                    _ => {
                        end = i;
                        break;
                    }
                }
                end = i + c.len_utf8();
                if depth == 0 && c == '}' {
                    break;
                }
            }
            for segments in expand(&rest[..end]) {
                found.push((anchor.trim_end_matches("::"), segments));
            }
        }
    }
    found
}

/// `a::{b, c::{d, e}}` as `[a, b]`, `[a, c, d]`, `[a, c, e]`.
fn expand(path: &str) -> Vec<Vec<String>> {
    let split = |s: &str| -> Vec<String> {
        s.split("::")
            .map(|p| p.split(" as ").next().unwrap_or("").trim().to_owned())
            .filter(|p| !p.is_empty() && p != "self" && p != "*")
            .collect()
    };
    let Some(open) = path.find('{') else {
        return vec![split(path)];
    };
    let prefix = split(&path[..open]);
    let inner = &path[open + 1..path.rfind('}').unwrap_or(path.len())];
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|tail| [prefix.clone(), tail].concat())
        .collect()
}

/// Which module of `all` a path from the crate's root names: its longest prefix that is one.
fn module_of(all: &BTreeMap<String, String>, segments: &[String]) -> Option<String> {
    (1..=segments.len())
        .rev()
        .map(|n| segments[..n].join("::"))
        .find(|m| all.contains_key(m))
}

fn graph(all: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, source) in all {
        let parent: Vec<String> = module
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect::<Vec<_>>()
            .split_last()
            .map(|(_, p)| p.to_vec())
            .unwrap_or_default();
        for (anchor, segments) in paths(source) {
            let base = if anchor == "crate" {
                Vec::new()
            } else {
                parent.clone()
            };
            let full = [base.clone(), segments].concat();
            let target =
                module_of(all, &full).or_else(|| (anchor == "super").then(|| base.join("::")));
            if let Some(target) = target.filter(|t| !t.is_empty() && t != module) {
                graph.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    graph
}

/// Every crate's sources: the libraries and binaries of `crates/`, and the desktop app.
fn crates() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    roots.push(workspace().join("src-tauri"));
    roots.sort();
    roots
}

#[test]
fn no_crate_has_an_import_cycle() {
    let mut found = Vec::new();
    for root in crates() {
        for group in cycles(&graph(&modules(&root))) {
            found.push(format!("{}: {}", root.display(), group.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "modules that depend on each other:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_cycle_check_finds_a_cycle() {
    let all: BTreeMap<String, String> = [
        ("hub", "use crate::asks::Asks;"),
        ("asks", "use crate::{hub::Hub, error};"),
        ("asks::plan", "use super::Verdict;"),
        ("error", ""),
        ("lonely", "use crate::error::HubError;"),
    ]
    .into_iter()
    .map(|(m, s)| (m.to_owned(), s.to_owned()))
    .collect();
    let graph = graph(&all);
    assert_eq!(
        graph["asks"],
        BTreeSet::from(["hub".to_owned(), "error".to_owned()])
    );
    assert_eq!(graph["asks::plan"], BTreeSet::from(["asks".to_owned()]));
    assert_eq!(
        cycles(&graph),
        vec![vec!["asks".to_owned(), "hub".to_owned()]]
    );
}

/// The files of the hub crate with an `impl Hub` block.
fn impl_hub_files() -> Vec<(String, usize)> {
    let root = workspace().join("crates/hub/src");
    let mut files: Vec<(String, usize)> = modules(&root)
        .into_iter()
        .filter_map(|(module, source)| {
            let methods = hub_methods(&source);
            (methods > 0 || source.lines().any(|l| l.starts_with("impl Hub {")))
                .then_some((module, methods))
        })
        .collect();
    files.sort();
    files
}

/// How many functions the `impl Hub` blocks of `source` define.
fn hub_methods(source: &str) -> usize {
    let mut inside = false;
    let mut count = 0;
    for line in source.lines() {
        if line.starts_with("impl Hub {") {
            inside = true;
        } else if inside && line == "}" {
            inside = false;
        } else if inside {
            let item = line
                .trim_start_matches("    ")
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ")
                .trim_start_matches("async ");
            if line.starts_with("    ") && !line.starts_with("     ") && item.starts_with("fn ") {
                count += 1;
            }
        }
    }
    count
}

#[test]
fn impl_hub_spreads_no_further() {
    // New features (worktrees, usage, search, machines) land as types that own their state and rules, which
    // the hub composes: never as more methods of the hub, and never outside the hub and the router (the
    // `commands` folder, a file per feature's commands).
    const AT_MOST: usize = 48;
    let files = impl_hub_files();
    let elsewhere: Vec<&String> = files
        .iter()
        .map(|(module, _)| module)
        .filter(|m| {
            !["commands", "hub"]
                .iter()
                .any(|by_right| *m == by_right || m.starts_with(&format!("{by_right}::")))
        })
        .collect();
    assert!(
        elsewhere.is_empty(),
        "`impl Hub` outside the hub and the router: {elsewhere:?}"
    );
    let methods: usize = files.iter().map(|(_, n)| n).sum();
    assert!(
        methods <= AT_MOST,
        "the hub has {methods} methods, at most {AT_MOST} allowed: a feature is a type the hub composes \
         ({files:?})"
    );
}

#[test]
fn the_hubs_methods_are_counted_in_its_impl_blocks_only() {
    let source = "impl Hub {\n    pub fn a(&self) {}\n    pub(crate) async fn b(&self) {\n        fn inner() {}\n    }\n}\nimpl Other {\n    fn c() {}\n}\n";
    assert_eq!(hub_methods(source), 2);
}

/// Whether a module's code (its comments aside) names the `Hub` type.
fn names_hub(source: &str) -> bool {
    source
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .any(|code| {
            code.match_indices("Hub").any(|(i, _)| {
                let before = code[..i].chars().next_back();
                let after = code[i + 3..].chars().next();
                // `Source::Hub` is a variant of a type, not the hub.
                let variant = code[..i].strip_suffix("::").is_some_and(|path| {
                    let segment: String = path.chars().rev().take_while(|c| ident(*c)).collect();
                    segment.chars().last().is_some_and(char::is_uppercase)
                });
                !before.is_some_and(ident) && !after.is_some_and(ident) && !variant
            })
        })
}

/// The modules that may see the whole hub: the hub itself, the router, the transports, and `serve`.
fn sees_the_hub_by_right(module: &str) -> bool {
    module.is_empty()
        || ["hub", "commands", "http"]
            .iter()
            .any(|m| module == *m || module.starts_with(&format!("{m}::")))
}

#[test]
fn only_the_router_and_the_transports_see_the_whole_hub() {
    let all = modules(&workspace().join("crates/hub/src"));
    let seeing: Vec<&str> = all
        .iter()
        .filter(|(module, source)| !sees_the_hub_by_right(module) && names_hub(source))
        .map(|(module, _)| module.as_str())
        .collect();
    assert!(
        seeing.is_empty(),
        "{seeing:?} name `Hub`: a feature holds what it needs (the store, a UI sender, the features it \
         names), made once when the hub opens"
    );
}

#[test]
fn naming_the_hub_is_told_from_names_that_hold_it_and_from_comments() {
    assert!(names_hub("fn f(hub: &Hub) {}"));
    assert!(names_hub("use crate::hub::{now, Hub};"));
    assert!(!names_hub("use crate::hub::now; // the Hub's clock"));
    assert!(!names_hub("struct HubError; fn is_hub() {} struct TheHub;"));
    assert!(!names_hub("let source = Source::Hub;"));
    assert!(names_hub("let hub = crate::hub::Hub::open(dir);"));
}

/// The functions of `source` longer than [`FN_LINES`] with no reason: (name, lines).
fn long_functions(source: &str) -> Vec<(String, usize)> {
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
        if !reasoned(above) && !reasoned(std::iter::once(first_in_body)) {
            found.push((name, lines));
        }
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
