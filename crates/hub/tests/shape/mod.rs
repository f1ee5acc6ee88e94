//! What the house tests share: where the workspace is, its crates and their modules read as files (their
//! test items cut), the cycle finder, and the limits with how a reason for passing one is written.

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

/// Every module under `root` (`a::b`; the crate's root is ``) with its source up to its tests.
pub fn modules(root: &Path) -> BTreeMap<String, String> {
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
            // A `tests.rs` is a module's tests in a file of their own (`#[cfg(test)] mod tests;`): test
            // code, left out as inline tests are.
            if parts.last().is_some_and(|l| l == "tests") {
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap();
            found.insert(parts.join("::"), without_tests(&source));
        }
    }
    found
}

/// `source` without its `#[cfg(test)]` items: each from its attribute to its matching closing brace (or
/// its `;`, for an item without a body), skipping braces inside strings, characters and comments.
pub fn without_tests(source: &str) -> String {
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
pub fn item_end(s: &str) -> usize {
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
pub fn ident_byte(bytes: &[u8], i: usize) -> bool {
    i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')
}

/// Every crate's sources: the libraries and binaries of `crates/`, and the desktop app.
pub fn crates() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    roots.push(workspace().join("src-tauri"));
    roots.sort();
    roots
}
