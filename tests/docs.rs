//! The README and docs/ as a person reads them on GitHub: the README stays short, and every
//! relative link in it and in docs/ leads somewhere: a file that exists and, for `#anchor`, a
//! heading of that file (named as GitHub names headings).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// What a person reads in five minutes.
const README_MAX_LINES: usize = 250;

/// The Markdown files people read: the README and every file of docs/.
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/")
        .map(|e| e.expect("an entry of docs/").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, Path::new(ROOT).join("README.md"));
    docs
}

/// `text`'s lines outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// A heading's anchor as GitHub makes it: lower case, markup and punctuation dropped (but `-`
/// and `_`), spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of the Markdown file `text`, a repeated heading's with `-1`, `-2`, ….
fn anchors(text: &str) -> HashSet<String> {
    let mut found = HashSet::new();
    for line in prose(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(line);
        let mut anchor = base.clone();
        let mut n = 0;
        while found.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        found.insert(anchor);
    }
    found
}

/// The targets of the Markdown links (`[text](target)`, `![alt](target)`) in `text`'s prose.
fn links(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose(text) {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            targets.push(target.to_owned());
            rest = &after[end..];
        }
    }
    targets
}

/// Why `target`, linked from `from`, leads nowhere; None when it leads somewhere.
fn broken(from: &Path, target: &str) -> Option<String> {
    let scheme = target.split_once(':').map(|(s, _)| s);
    if scheme.is_some_and(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic())) {
        return None; // https:, mailto:
    }
    let (path, anchor) = match target.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().unwrap_or(Path::new(ROOT)).join(path)
    };
    if !file.exists() {
        return Some(format!("{} does not exist", file.display()));
    }
    let anchor = anchor?;
    if file.extension().is_none_or(|e| e != "md") {
        return None; // a line of a source file: GitHub's, not checked here
    }
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    (!anchors(&text).contains(anchor))
        .then(|| format!("{} has no heading #{anchor}", file.display()))
}

#[test]
fn every_relative_link_of_the_readme_and_docs_leads_somewhere() {
    let mut broken_links = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("a document");
        for target in links(&text) {
            checked += 1;
            if let Some(why) = broken(&doc, &target) {
                broken_links.push(format!("{}: ({target}): {why}", doc.display()));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} links found: is the reader broken?"
    );
    assert!(
        broken_links.is_empty(),
        "links that lead nowhere:\n{}",
        broken_links.join("\n")
    );
}

#[test]
fn the_readme_is_read_in_five_minutes() {
    let lines = std::fs::read_to_string(Path::new(ROOT).join("README.md"))
        .expect("README.md")
        .lines()
        .count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: move the rest to docs/"
    );
}

#[test]
fn the_link_reader_finds_what_is_broken() {
    let readme = Path::new(ROOT).join("README.md");
    assert_eq!(broken(&readme, "https://example.org/x"), None);
    assert_eq!(broken(&readme, "docs/command.md"), None);
    assert!(broken(&readme, "docs/nothing-here.md").is_some());
    assert!(broken(&readme, "docs/command.md#no-such-heading").is_some());
    assert!(broken(&readme, "#no-such-heading").is_some());
    assert_eq!(slug("## The `ask-popup` command"), "the-ask-popup-command");
    assert_eq!(
        slug("### Options (in the alias block of `plugin.kdl`)"),
        "options-in-the-alias-block-of-pluginkdl"
    );
    let text = "# A\n```sh\n# not a heading\n```\n## A\n[x](b.md) `[y](c.md)`";
    assert_eq!(
        anchors(text),
        HashSet::from(["a".to_owned(), "a-1".to_owned()])
    );
    assert_eq!(links(text), ["b.md", "c.md"]);
}
