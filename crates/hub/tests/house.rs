//! The shape of the house, checked on the sources: no import cycle between the modules of any crate, and
//! `impl Hub` in four files at most: the hub's core (`hub/`: the agents, applying an event, appending a
//! message) and the router (`commands/`). Every feature is a type of its own that the hub composes and
//! routes commands to.
//!
//! A module is a file. It depends on the modules its `crate::` and `super::` paths name (a path to an item
//! counts as its module's; `use a::{b, c}` names each); its own children, named by relative paths, are part
//! of it. Test items (each `#[cfg(test)]` item, cut at its matching brace or its `;`, and a module's tests
//! in a `tests.rs` of their own) are left out, and everything around them is read: a test may reach
//! anywhere.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::{BTreeMap, BTreeSet};

#[allow(dead_code)]
mod shape;
use shape::{crates, cycles, ident, modules, without_tests, workspace};

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
