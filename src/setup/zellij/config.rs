//! Zellij's `config.kdl`, edited as a KDL v1 document that keeps everything else byte for byte:
//! the plugin's alias and its "bring the popup back" binding merged in and taken out again.

use super::plugin::{ALIAS, BIND_KEY, BIND_MODE};
use kdl::{KdlDocument, KdlNode, KdlValue};
use std::path::{Path, PathBuf};

/// The comment on the blocks setup creates: they go again with what setup put in them.
pub(super) const MARK: &str = "// Added by `ask-popup setup zellij`";

/// Why a config could not be edited.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KdlError {
    #[error("{path} is not KDL that ask-popup can read ({reason}); it was left alone. Fix it, or add what `ask-popup setup zellij` prints by hand")]
    Unreadable { path: String, reason: String },
    #[error(
        "{path}: `{setting}` is written over several lines; it was left alone. Set it by hand"
    )]
    Unchangeable { path: String, setting: String },
    #[error("{location:?} holds a control character: it cannot be the plugin's location, and config.kdl was left alone")]
    Location { location: String },
    #[error("ask-popup could not write `{text}` as KDL ({reason}); config.kdl was left alone")]
    Unwritable { text: String, reason: String },
}

/// Zellij's config dir as Zellij finds it: `--config-dir`, then `ZELLIJ_CONFIG_DIR`, then the
/// first of `~/.config/zellij` and `$XDG_CONFIG_HOME/zellij` that exists, else
/// `~/.config/zellij` (which Zellij creates and looks in first).
pub fn config_dir(
    arg: Option<&Path>,
    env: impl Fn(&str) -> Option<String>,
    exists: impl Fn(&Path) -> bool,
) -> Option<PathBuf> {
    if let Some(dir) = arg {
        return Some(dir.to_owned());
    }
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    if let Some(dir) = set("ZELLIJ_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    let home = set("HOME").map(|home| Path::new(&home).join(".config").join("zellij"));
    let xdg = set("XDG_CONFIG_HOME").map(|dir| Path::new(&dir).join("zellij"));
    [home.clone(), xdg.clone()]
        .into_iter()
        .flatten()
        .find(|dir| exists(dir))
        .or(home)
        .or(xdg)
}

/// The alias node, with the plugin's options as `plugin.kdl` documents them, indented by
/// `indent`; `location` as Zellij reads it (`file:` and a path, or a URL).
fn alias_text(location: &str, indent: &str) -> String {
    let body = [
        format!("{ALIAS} location={} {{", quote(location)),
        "    // The key that hides the popup while keeping the question pending, or \"off\"."
            .to_owned(),
        "    hide_key \"Ctrl ]\"".to_owned(),
        "    // The popup's width and greatest height: percent of the screen or cells.".to_owned(),
        "    popup_width \"80%\"".to_owned(),
        "    popup_height \"80%\"".to_owned(),
        "    // Mark the asking agent's pane title with ⏳ while it waits.".to_owned(),
        "    indicator true".to_owned(),
        "}".to_owned(),
    ];
    indent_lines(&body, indent)
}

/// The binding node, indented by `indent`.
fn binding_text(indent: &str) -> String {
    let body = [
        format!("bind {} {{", quote(BIND_KEY)),
        format!("    // ask-popup: bring a hidden popup back (Ctrl o, then {BIND_KEY})."),
        format!("    MessagePlugin {} {{", quote(ALIAS)),
        "        name \"show\"".to_owned(),
        "    }".to_owned(),
        "    SwitchToMode \"normal\"".to_owned(),
        "}".to_owned(),
    ];
    indent_lines(&body, indent)
}

fn indent_lines(lines: &[String], indent: &str) -> String {
    lines
        .iter()
        .map(|l| format!("{indent}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `s` as a KDL string, escaped as KDL escapes it.
fn quote(s: &str) -> String {
    KdlValue::String(s.to_owned()).to_string()
}

/// The one node `text` holds, or why it is not a node (text that setup made of what it was
/// given, such as a location).
pub fn node(text: &str) -> Result<KdlNode, KdlError> {
    let doc: KdlDocument = text
        .parse()
        .map_err(|e: kdl::KdlError| KdlError::Unwritable {
            text: text.to_owned(),
            reason: e.to_string(),
        })?;
    doc.nodes()
        .first()
        .cloned()
        .ok_or_else(|| KdlError::Unwritable {
            text: text.to_owned(),
            reason: "no node".to_owned(),
        })
}

pub fn parse(existing: &str, path: &str) -> Result<KdlDocument, KdlError> {
    existing
        .parse()
        .map_err(|e: kdl::KdlError| KdlError::Unreadable {
            path: path.to_owned(),
            reason: e.to_string(),
        })
}

pub fn named(doc: &KdlDocument, name: &str) -> Option<usize> {
    doc.nodes().iter().position(|n| n.name().value() == name)
}

/// The indentation of `doc`'s nodes (children of a block at `parent` indentation).
fn child_indent(doc: &KdlDocument, parent: &str) -> String {
    doc.nodes()
        .first()
        .and_then(|n| n.leading())
        .filter(|l| l.contains('\n'))
        .map(|l| l.rsplit('\n').next().unwrap_or("").to_owned())
        .filter(|i| !i.is_empty() && i.chars().all(|c| c == ' ' || c == '\t'))
        .unwrap_or_else(|| format!("{parent}    "))
}

/// Appends `text` (a node without its indentation's first line) to the block `doc` whose
/// children sit at `indent`.
fn append(doc: &mut KdlDocument, text: &str, indent: &str) -> Result<(), KdlError> {
    let mut new = node(text)?;
    let after_newline = doc
        .nodes()
        .last()
        .map_or(doc.leading().unwrap_or("").ends_with('\n'), |n| {
            n.trailing().unwrap_or("").ends_with('\n')
        });
    let first_line = if after_newline { "" } else { "\n" };
    new.set_leading(format!("{first_line}{indent}"));
    new.set_trailing("\n");
    if doc.nodes().is_empty() {
        // `{` then `}`: the closing brace keeps its own indentation.
        let closing = doc
            .trailing()
            .unwrap_or("")
            .rsplit('\n')
            .next()
            .unwrap_or("");
        doc.set_trailing(closing.to_owned());
        if doc.leading().unwrap_or("").is_empty() {
            new.set_leading(format!("\n{indent}"));
        }
    }
    doc.nodes_mut().push(new);
    Ok(())
}

/// A block node `name { }` at `indent`, marked as setup's own.
fn new_block(name: &str, indent: &str) -> Result<KdlNode, KdlError> {
    let mut block = node(&format!("{name} {{\n{indent}}}"))?;
    block.set_leading(format!("{indent}{MARK}\n{indent}"));
    block.set_trailing("\n");
    Ok(block)
}

/// `existing` (the text of `config.kdl`, `path` for messages) with the alias loading the plugin
/// file at `plugin_path` and the binding added; None when both are there already. An alias
/// already there is left as it is (it may load a build of the user's own).
pub fn merge(existing: &str, path: &str, plugin_path: &str) -> Result<Option<String>, KdlError> {
    merge_at(existing, path, &format!("file:{plugin_path}"), false)
}

/// `existing` with the alias loading the plugin from `url` and the binding added: an alias
/// already there is pointed at `url`, keeping its options (`setup zellij --url` is asked for
/// that URL, a newer release's, say). None when all of it is there already.
pub fn merge_url(existing: &str, path: &str, url: &str) -> Result<Option<String>, KdlError> {
    merge_at(existing, path, url, true)
}

fn merge_at(
    existing: &str,
    path: &str,
    location: &str,
    repoint: bool,
) -> Result<Option<String>, KdlError> {
    if location.chars().any(char::is_control) {
        return Err(KdlError::Location {
            location: location.to_owned(),
        });
    }
    let mut doc = parse(existing, path)?;
    let mut changed = false;
    if !has_alias(&doc) {
        let i = top_block(&mut doc, "plugins")?;
        let plugins = doc.nodes_mut()[i].ensure_children();
        let indent = child_indent(plugins, "");
        let text = alias_text(location, &indent);
        append(plugins, text.trim_start(), &indent)?;
        changed = true;
    } else if repoint {
        changed |= point_alias(&mut doc, location);
    }
    if !has_binding(&doc) {
        let k = top_block(&mut doc, "keybinds")?;
        let keybinds = doc.nodes_mut()[k].ensure_children();
        let mode_indent = child_indent(keybinds, "");
        let m = match mode_block(keybinds) {
            Some(m) => m,
            None => {
                let mut block = new_block(BIND_MODE, &mode_indent)?;
                if keybinds.nodes().is_empty() {
                    block.set_leading(format!("\n{mode_indent}{MARK}\n{mode_indent}"));
                }
                keybinds.nodes_mut().push(block);
                keybinds.nodes().len() - 1
            }
        };
        let mode = keybinds.nodes_mut()[m].ensure_children();
        let indent = child_indent(mode, &mode_indent);
        let text = binding_text(&indent);
        append(mode, text.trim_start(), &indent)?;
        changed = true;
    }
    Ok(changed.then(|| doc.to_string()))
}

/// Points the alias at `location` (its other entries and children kept); whether it changed.
fn point_alias(doc: &mut KdlDocument, location: &str) -> bool {
    let Some(i) = named(doc, "plugins") else {
        return false;
    };
    let Some(alias) = doc.nodes_mut()[i]
        .children_mut()
        .as_mut()
        .and_then(|c| c.nodes_mut().iter_mut().find(|n| is_alias(n)))
    else {
        return false;
    };
    match alias.get_mut("location") {
        Some(entry) if entry.value().as_string() == Some(location) => false,
        Some(entry) => {
            entry.set_value(location);
            entry.set_value_repr(quote(location));
            true
        }
        None => {
            alias.insert("location", location);
            true
        }
    }
}

/// The top-level block `name`: the user's, or one of setup's own appended.
fn top_block(doc: &mut KdlDocument, name: &str) -> Result<usize, KdlError> {
    if let Some(i) = named(doc, name) {
        return Ok(i);
    }
    append_top(doc, new_block(name, "")?);
    Ok(doc.nodes().len() - 1)
}

/// Appends a top-level block after a blank line.
pub fn append_top(doc: &mut KdlDocument, mut block: KdlNode) {
    let ends_with_newline = doc
        .nodes()
        .last()
        .is_none_or(|n| n.trailing().unwrap_or("").ends_with('\n'));
    let lead = block.leading().unwrap_or("").to_owned();
    block.set_leading(
        if doc.nodes().is_empty() && doc.leading().unwrap_or("").is_empty() {
            lead
        } else if ends_with_newline {
            format!("\n{lead}")
        } else {
            format!("\n\n{lead}")
        },
    );
    doc.nodes_mut().push(block);
}

/// The `session` block among `keybinds`' children (not one that clears its defaults).
fn mode_block(keybinds: &KdlDocument) -> Option<usize> {
    keybinds
        .nodes()
        .iter()
        .position(|n| n.name().value() == BIND_MODE && n.entries().is_empty())
}

fn is_alias(node: &KdlNode) -> bool {
    node.name().value() == ALIAS
}

fn is_binding(node: &KdlNode) -> bool {
    node.name().value() == "bind"
        && node.children().is_some_and(|c| {
            c.nodes().iter().any(|n| {
                n.name().value() == "MessagePlugin"
                    && n.entries().first().and_then(|e| e.value().as_string()) == Some(ALIAS)
            })
        })
}

/// The alias node among the `plugins` block's children.
fn alias_node(doc: &KdlDocument) -> Option<&KdlNode> {
    named(doc, "plugins")
        .and_then(|i| doc.nodes()[i].children())
        .and_then(|c| c.nodes().iter().find(|n| is_alias(n)))
}

fn has_alias(doc: &KdlDocument) -> bool {
    alias_node(doc).is_some()
}

fn has_binding(doc: &KdlDocument) -> bool {
    named(doc, "keybinds")
        .and_then(|k| doc.nodes()[k].children())
        .and_then(|keybinds| mode_block(keybinds).and_then(|m| keybinds.nodes()[m].children()))
        .is_some_and(|mode| mode.nodes().iter().any(is_binding))
}

/// What `config.kdl` holds of ask-popup: the alias's plugin location (if any), and whether the
/// binding is there.
pub fn inspect(existing: &str, path: &str) -> Result<(Option<String>, bool), KdlError> {
    let doc = parse(existing, path)?;
    let location = alias_node(&doc)
        .and_then(|n| n.get("location"))
        .and_then(|e| e.value().as_string().map(str::to_owned));
    Ok((location, has_binding(&doc)))
}

/// `existing` without what `merge` added; None when none of it is there.
pub fn remove(existing: &str, path: &str) -> Result<Option<String>, KdlError> {
    let mut doc = parse(existing, path)?;
    let mut changed = false;
    if let Some(i) = named(&doc, "plugins") {
        if let Some(plugins) = doc.nodes_mut()[i].children_mut() {
            let before = plugins.nodes().len();
            plugins.nodes_mut().retain(|n| !is_alias(n));
            changed |= plugins.nodes().len() != before;
        }
        drop_if_ours_and_empty(doc.nodes_mut(), i);
    }
    if let Some(k) = named(&doc, "keybinds") {
        if let Some(keybinds) = doc.nodes_mut()[k].children_mut() {
            if let Some(m) = mode_block(keybinds) {
                if let Some(mode) = keybinds.nodes_mut()[m].children_mut() {
                    let before = mode.nodes().len();
                    mode.nodes_mut().retain(|n| !is_binding(n));
                    changed |= mode.nodes().len() != before;
                }
                drop_if_ours_and_empty(keybinds.nodes_mut(), m);
            }
        }
        drop_if_ours_and_empty(doc.nodes_mut(), k);
    }
    Ok(changed.then(|| doc.to_string()))
}

/// Removes the block at `i` if setup created it (its mark) and it holds nothing any more.
fn drop_if_ours_and_empty(nodes: &mut Vec<KdlNode>, i: usize) {
    let Some(block) = nodes.get(i) else { return };
    let ours = block.leading().is_some_and(|l| l.contains(MARK));
    let empty = block.children().is_none_or(|c| c.nodes().is_empty());
    if ours && empty {
        nodes.remove(i);
    }
}
