//! The shape of the UI's code (`ui/js`), checked on its sources: no import cycle between its modules, no
//! module past its size (a reason does not lift that cap), and no long function without a reason.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::{BTreeMap, BTreeSet};

#[allow(dead_code)]
mod shape;
use shape::{cycles, ident, reasoned, workspace, FILE_LINES, FN_LINES, REASON};

/// At most this many UI modules hold more than [`FILE_LINES`] lines.
const LONG_FILES: usize = 5;
/// No UI module holds more lines than this.
const MOST_LINES: usize = 600;

/// Every UI module (its file name) with its source.
fn ui_modules() -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir(workspace().join("ui/js")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "js") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            found.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
    found
}

/// The modules of the same folder a UI module imports (`from './x.js'`).
fn ui_imports(source: &str) -> BTreeSet<String> {
    source
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            if !l.starts_with("import ") && !l.starts_with("} from ") {
                return None;
            }
            let from = &l[l.find("'./")? + 3..];
            Some(from[..from.find('\'')?].to_owned())
        })
        .collect()
}

#[test]
fn the_uis_modules_import_no_cycle() {
    let modules = ui_modules();
    let graph: BTreeMap<String, BTreeSet<String>> = modules
        .iter()
        .map(|(name, source)| (name.clone(), ui_imports(source)))
        .collect();
    assert!(
        graph.values().flatten().count() > 10,
        "the imports were read"
    );
    let found = cycles(&graph);
    assert!(
        found.is_empty(),
        "UI modules that import each other: {found:?}"
    );
}

#[test]
fn the_import_reader_finds_a_cycle() {
    let a = "import { x } from './b.js';\nimport {\n  y,\n} from './c.js';\n";
    assert_eq!(
        ui_imports(a),
        BTreeSet::from(["b.js".to_owned(), "c.js".to_owned()])
    );
    let graph = BTreeMap::from([
        ("a.js".to_owned(), ui_imports(a)),
        ("b.js".to_owned(), ui_imports("import { a } from './a.js';")),
    ]);
    assert_eq!(cycles(&graph), [["a.js".to_owned(), "b.js".to_owned()]]);
}

#[test]
fn no_ui_module_is_past_its_size() {
    let lines: BTreeMap<String, usize> = ui_modules()
        .into_iter()
        .map(|(name, source)| (name, source.lines().count()))
        .collect();
    let long: Vec<_> = lines.iter().filter(|(_, n)| **n > FILE_LINES).collect();
    assert!(
        long.len() <= LONG_FILES,
        "more than {LONG_FILES} UI modules over {FILE_LINES} lines: split one: {long:?}"
    );
    let past: Vec<_> = lines.iter().filter(|(_, n)| **n > MOST_LINES).collect();
    assert!(
        past.is_empty(),
        "UI modules over {MOST_LINES} lines: split them: {past:?}"
    );
}

/// The functions and methods of a UI module longer than [`FN_LINES`] with no reason: (name, lines). The UI's
/// code is formatted one way: a function's body ends at the first `}` line at its own indentation.
fn long_ui_functions(source: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let head = code
            .trim_start_matches("export ")
            .trim_start_matches("static ")
            .trim_start_matches("async ");
        let head = head.strip_prefix("function ").unwrap_or(head);
        let name: String = head
            .chars()
            .take_while(|c| ident(*c) || *c == '$')
            .collect();
        let is_function = !name.is_empty()
            && head[name.len()..].starts_with('(')
            && code.ends_with('{')
            && !code.contains("=>")
            && !["if", "for", "while", "switch", "catch", "return"].contains(&name.as_str())
            && (code.contains("function ") || !indent.is_empty());
        if !is_function {
            continue;
        }
        let close = format!("{indent}}}");
        let Some(len) = lines[i + 1..].iter().position(|l| *l == close) else {
            continue;
        };
        let length = len + 2;
        let above = lines[..i].iter().rev().take_while(|l| {
            let l = l.trim_start();
            l.starts_with("//") || l.starts_with("/**") || l.starts_with('*')
        });
        let reason = above.map(|l| l.trim_start().trim_start_matches(['/', '*']));
        if length > FN_LINES && !reasoned(reason) {
            found.push((name, length));
        }
    }
    found
}

#[test]
fn a_long_ui_function_is_found() {
    let body = "    step();\n".repeat(FN_LINES);
    let long = format!(
        "function big() {{\n{body}}}\n\nclass A {{\n  async method(a) {{\n  {body}  }}\n}}\n"
    );
    assert_eq!(
        long_ui_functions(&long),
        [
            ("big".to_owned(), FN_LINES + 2),
            ("method".to_owned(), FN_LINES + 2)
        ]
    );
    let reasoned = format!("/** Does much.\n * {REASON}a table. */\n{long}");
    assert_eq!(
        long_ui_functions(&reasoned).len(),
        1,
        "only the reasoned one is excused"
    );
    assert!(long_ui_functions("  if (x) {\n  }\n").is_empty());
}

#[test]
fn the_uis_functions_are_short() {
    let mut unexplained = Vec::new();
    for entry in std::fs::read_dir(workspace().join("ui/js")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "js") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        for (name, lines) in long_ui_functions(&source) {
            unexplained.push(format!("{}: {name}, {lines} lines", path.display()));
        }
    }
    unexplained.sort();
    assert!(
        unexplained.is_empty(),
        "a UI function over {FN_LINES} lines with no `{REASON}` line: split it\n{}",
        unexplained.join("\n")
    );
}
