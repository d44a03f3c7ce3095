//! The code's layout, as docs/ARCHITECTURE.md and docs/development.md promise it: no source file
//! over 600 lines; each of the command's folders a `mod.rs` that only declares its files; and
//! the command's files importing one another one way only (no file imports its parent's
//! `mod.rs`, no circle of imports).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 600;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, as paths relative to `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at)
            .expect("read a source folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path.strip_prefix(dir).expect("under dir").to_path_buf());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn no_source_file_is_over_600_lines() {
    let mut long = Vec::new();
    for dir in ["src", "crates/plugin/src", "crates/protocol/src"] {
        let dir = root().join(dir);
        for file in rust_files(&dir) {
            let lines = std::fs::read_to_string(dir.join(&file))
                .expect("read a source file")
                .lines()
                .count();
            if lines > MAX_LINES {
                long.push(format!("{} ({lines} lines)", dir.join(&file).display()));
            }
        }
    }
    assert!(long.is_empty(), "over {MAX_LINES} lines: {long:#?}");
}

/// The module path of a file of the command (`ask/caller.rs` → `["ask", "caller"]`).
fn module_of(file: &Path) -> Vec<String> {
    let mut parts: Vec<String> = file
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// `text` without its tests module and its comments.
fn code_of(text: &str) -> String {
    let tests = text.match_indices("#[cfg(test)]\n").find(|(at, marker)| {
        text[at + marker.len()..]
            .lines()
            .next()
            .is_some_and(|line| line.trim_end().ends_with("mod tests {"))
    });
    let text = tests.map_or(text, |(at, _)| &text[..at]);
    text.lines()
        .map(|line| match line.trim_start().starts_with("//") {
            true => "",
            false => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a file names: `crate::a::b::c`, `super::a`, with `{…}` groups spread out (one level
/// of nesting, as rustfmt writes them).
fn paths_named(code: &str) -> Vec<(String, Vec<String>)> {
    let mut paths = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let base = ["crate::", "super::"]
            .into_iter()
            .find(|b| rest.starts_with(b));
        let word_start = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_');
        let Some(base) = base.filter(|_| word_start) else {
            i += 1;
            continue;
        };
        let mut j = i + base.len();
        let mut segments = Vec::new();
        let mut word = String::new();
        loop {
            match bytes.get(j) {
                Some(c) if c.is_alphanumeric() || *c == '_' => word.push(*c),
                Some(':') if bytes.get(j + 1) == Some(&':') => {
                    segments.push(std::mem::take(&mut word));
                    j += 1;
                }
                Some('{') => {
                    let end = (j..bytes.len()).find(|k| bytes[*k] == '}').unwrap_or(j);
                    let group: String = bytes[j + 1..end].iter().collect();
                    for item in group.split(',') {
                        let item: Vec<String> = item
                            .split_whitespace()
                            .next()
                            .unwrap_or("")
                            .split("::")
                            .map(str::to_owned)
                            .collect();
                        if item.first().is_some_and(|w| !w.is_empty() && w != "self") {
                            let mut path = segments.clone();
                            path.extend(item);
                            paths.push((base.trim_end_matches(':').to_owned(), path));
                        }
                    }
                    j = end;
                    break;
                }
                _ => {
                    if !word.is_empty() {
                        segments.push(word);
                    }
                    paths.push((base.trim_end_matches(':').to_owned(), segments));
                    break;
                }
            }
            j += 1;
        }
        i = j.max(i + 1);
    }
    paths
}

/// The command's files and the files each imports.
fn imports() -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let src = root().join("src");
    let files = rust_files(&src);
    let by_module: BTreeMap<Vec<String>, PathBuf> =
        files.iter().map(|f| (module_of(f), f.clone())).collect();
    let text: BTreeMap<PathBuf, String> = files
        .iter()
        .map(|f| {
            (
                f.clone(),
                std::fs::read_to_string(src.join(f)).expect("read"),
            )
        })
        .collect();
    // An item a `mod.rs` re-exports with `pub use file::*` or `pub use file::{…}` is the file's.
    let defines = |file: &Path, item: &str| {
        let code = code_of(&text[file]);
        [
            "fn", "struct", "enum", "const", "type", "trait", "static", "mod",
        ]
        .iter()
        .any(|kind| code.contains(&format!("{kind} {item}")))
    };
    let resolve = |path: &[String]| -> Option<PathBuf> {
        let n = (1..=path.len())
            .rev()
            .find(|n| by_module.contains_key(&path[..*n]))?;
        let file = by_module[&path[..n]].clone();
        let Some(item) = path.get(n) else {
            return Some(file);
        };
        if file.ends_with("mod.rs") {
            for line in code_of(&text[&file]).lines() {
                let Some(used) = line.trim().strip_prefix("pub use ") else {
                    continue;
                };
                let child = used.split("::").next().unwrap_or("");
                let mut module = path[..n].to_vec();
                module.push(child.to_owned());
                if let Some(child_file) = by_module.get(&module) {
                    if defines(child_file, item) {
                        return Some(child_file.clone());
                    }
                }
            }
        }
        Some(file)
    };
    let mut graph = BTreeMap::new();
    for file in &files {
        let me = module_of(file);
        let parent: Vec<String> = me[..me.len().saturating_sub(1)].to_vec();
        let mut to = BTreeSet::new();
        for (base, segments) in paths_named(&code_of(&text[file])) {
            let full: Vec<String> = match base.as_str() {
                "crate" => segments,
                _ => parent.iter().cloned().chain(segments).collect(),
            };
            if let Some(target) = resolve(&full).filter(|t| t != file) {
                to.insert(target);
            }
        }
        graph.insert(file.clone(), to);
    }
    graph
}

#[test]
fn each_folder_of_the_command_only_declares_its_files() {
    let src = root().join("src");
    for file in rust_files(&src).iter().filter(|f| f.ends_with("mod.rs")) {
        let text = std::fs::read_to_string(src.join(file)).expect("read");
        let code: String = text
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for statement in code.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let mut line = statement;
            while let Some(rest) = line.strip_prefix("#[") {
                line = rest
                    .split_once(']')
                    .map_or("", |(_, after)| after)
                    .trim_start();
            }
            let declares = line.starts_with("pub mod ")
                || line.starts_with("mod ")
                || line.starts_with("pub use ");
            assert!(
                declares,
                "{} holds more than its files: {statement}",
                file.display()
            );
        }
    }
}

#[test]
fn no_file_of_the_command_imports_its_parents_mod_rs() {
    for (file, to) in imports() {
        for target in to {
            let parents_mod = target.ends_with("mod.rs")
                && !file.ends_with("mod.rs")
                && target.parent() == file.parent();
            assert!(
                !parents_mod,
                "{} imports from its folder's {}",
                file.display(),
                target.display()
            );
        }
    }
}

#[test]
fn the_command_has_no_circle_of_imports() {
    let graph = imports();
    // Depth-first, keeping the path: a file reached again while on it closes a circle.
    fn visit(
        at: &PathBuf,
        graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        path: &mut Vec<PathBuf>,
        done: &mut BTreeSet<PathBuf>,
    ) -> Option<Vec<PathBuf>> {
        if let Some(start) = path.iter().position(|p| p == at) {
            let mut circle = path[start..].to_vec();
            circle.push(at.clone());
            return Some(circle);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.clone());
        for next in graph.get(at).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(at.clone());
        None
    }
    let mut done = BTreeSet::new();
    for file in graph.keys() {
        let circle = visit(file, &graph, &mut Vec::new(), &mut done);
        assert!(
            circle.is_none(),
            "a circle of imports: {}",
            circle
                .unwrap_or_default()
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" → ")
        );
    }
    // It sees imports at all: cli.rs reaches the ask command.
    assert!(graph[Path::new("cli.rs")].contains(Path::new("ask/command.rs")));
}
