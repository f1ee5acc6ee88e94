//! What the house tests share: where the workspace is, the cycle finder, and the limits with how a reason
//! for passing one is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The groups of modules that depend on each other (Tarjan's strongly connected components, of two or
/// more).
pub fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in self.graph.get(v).into_iter().flatten() {
                if !self.index.contains_key(w.as_str()) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w.as_str()]);
                    self.low.insert(v, low);
                } else if self.stack.contains(&w.as_str()) {
                    let low = self.low[v].min(self.index[w.as_str()]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    group.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.found.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}

/// The most lines a source file holds (its tests aside) without a reason written at its top.
pub const FILE_LINES: usize = 400;
/// The most lines a function holds without a reason written at its top.
pub const FN_LINES: usize = 60;
/// How a reason is written: a comment line that starts with it, in the module's doc for a file, just above
/// a function (among its doc and attributes) or as the first line of its body.
pub const REASON: &str = "Long: ";

/// Whether `comment_lines` hold a reason.
pub fn reasoned<'a>(mut comment_lines: impl Iterator<Item = &'a str>) -> bool {
    comment_lines.any(|l| {
        l.trim_start()
            .trim_start_matches('/')
            .trim_start_matches('!')
            .trim_start()
            .starts_with(REASON)
    })
}
