//! The code's layout holds what ARCHITECTURE.md says: the library's modules import each
//! other without a circle, the rules engine (`src/game/`) imports nothing else of canju, and
//! the two front ends (`src/cli/`, `src/server/`) never import each other. Read from the
//! source: every `crate::a::b` and `super::b` path outside comments and test modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file's module path under `src/` (`tablebase/probe.rs` → `["tablebase", "probe"]`).
fn module_of(path: &Path) -> Vec<String> {
    let rel = path.strip_prefix("src").unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The code of a file without comments and without its test module.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap();
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Words that follow `prefix` in `text`, each up to `depth` path segments.
fn paths_after(text: &str, prefix: &str, depth: usize) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices(prefix) {
        if i > 0 {
            let before = text.as_bytes()[i - 1];
            if before.is_ascii_alphanumeric() || before == b'_' || before == b':' {
                continue;
            }
        }
        let rest = &text[i + prefix.len()..];
        let mut segs = Vec::new();
        let mut it = rest;
        while segs.len() < depth {
            let word: String = it
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if word.is_empty() {
                break;
            }
            it = &it[word.len()..];
            segs.push(word);
            match it.strip_prefix("::") {
                Some(r) => it = r,
                None => break,
            }
        }
        if !segs.is_empty() {
            out.insert(segs);
        }
    }
    out
}

/// Edges between modules at `level` (1: `tablebase`; 2: `tablebase::probe`).
fn graph(files: &[PathBuf], level: usize) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let m = module_of(f);
        if m.len() < level || ["cli", "server", "main", "output", "remedy"].contains(&m[0].as_str())
        {
            continue;
        }
        let from = m[..level].join("::");
        let text = code(f);
        let mut targets: BTreeSet<Vec<String>> = paths_after(&text, "crate::", level);
        if level == 2 && m.len() >= 2 {
            for p in paths_after(&text, "super::", 1) {
                targets.insert(vec![m[0].clone(), p[0].clone()]);
            }
        }
        for t in targets {
            if t.len() < level || (level == 2 && t[0] != m[0]) {
                continue;
            }
            let to = t[..level].join("::");
            if to != from {
                g.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    g
}

/// A circle in the graph, if there is one.
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        v: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(v.to_string(), 1);
        stack.push(v.to_string());
        for w in g.get(v).into_iter().flatten() {
            match state.get(w.as_str()) {
                Some(1) => {
                    let at = stack.iter().position(|s| s == w).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(w.clone());
                    return Some(c);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(w, g, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(v.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for v in g.keys() {
        if !state.contains_key(v.as_str())
            && let Some(c) = visit(v, g, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn the_library_has_no_import_circle_and_the_rules_engine_stands_alone() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    files.sort();
    for level in [1, 2] {
        let g = graph(&files, level);
        assert!(g.len() > 5, "level {level}: {g:?}");
        if let Some(c) = find_cycle(&g) {
            panic!("an import circle: {}", c.join(" → "));
        }
    }
    let top = graph(&files, 1);
    assert_eq!(
        top.get("game"),
        None,
        "the rules engine imports other modules: {:?}",
        top.get("game")
    );
    // the tablebase stands on the rules engine
    assert!(top["tablebase"].contains("game"));
}

#[test]
fn the_front_ends_do_not_import_each_other() {
    for (dir, other) in [("src/cli", "server"), ("src/server", "cli")] {
        let mut files = Vec::new();
        rust_files(Path::new(dir), &mut files);
        assert!(!files.is_empty(), "{dir}");
        for f in files {
            let text = code(&f);
            let hits = paths_after(&text, "crate::", 1);
            assert!(
                !hits.contains(&vec![other.to_string()]),
                "{} imports crate::{other}",
                f.display()
            );
            assert!(
                !text.contains(&format!("super::{other}")),
                "{} imports super::{other}",
                f.display()
            );
        }
    }
}
