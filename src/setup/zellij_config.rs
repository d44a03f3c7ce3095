//! `ask-popup setup zellij`: the plugin file in Zellij's config dir, and the plugin's alias and
//! its "bring the popup back" binding merged into `config.kdl`, edited as a KDL v1 document that
//! keeps everything else byte for byte (the user's comments, layout and other nodes). What setup
//! adds it can take out again, leaving the file as it was.

use kdl::{KdlDocument, KdlNode, KdlValue};
use std::path::{Path, PathBuf};

/// The plugin this command was built with (see `build.rs`): empty when it was built without.
pub const PLUGIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/ask-popup.wasm"));

/// The plugin's alias, which agents and the binding name.
pub const ALIAS: &str = "ask-popup";
/// The plugin file's name in `<config dir>/plugins/`.
pub const PLUGIN_FILE: &str = "ask-popup.wasm";
/// The binding brings a hidden popup back: `y` in Zellij's session mode (`Ctrl o`, then `y`).
/// Behind Zellij's own prefix, no shell, editor or agent ever sees the key; session mode binds
/// no `y` by default.
pub const BIND_MODE: &str = "session";
pub const BIND_KEY: &str = "y";
/// The comment on the blocks setup creates: they go again with what setup put in them.
const MARK: &str = "// Added by `ask-popup setup zellij`";

/// This command's (and its plugin's) version, which is the release's: the one the plugin's
/// `version` pipe answers.
pub use ask_popup_protocol::VERSION;
/// The project's repository (the manifest's `repository`), whose releases carry the plugin.
pub const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");
/// The Zellij line this release is built against (zellij-tile's version) and tested with:
/// Zellij loads a plugin built for another version, but plugins break across its minor versions.
pub const ZELLIJ_LINE: &str = "0.45";
/// The Zellij version the tests run, and the one to install.
pub const ZELLIJ_TESTED: &str = "0.45.1";

/// Where the release of `version` has its plugin, for `location` in config.kdl.
pub fn release_url(version: &str) -> String {
    format!("{REPOSITORY}/releases/download/v{version}/{PLUGIN_FILE}")
}

/// Whether a plugin location is a URL Zellij downloads (not a file or one of its own).
pub fn is_url(location: &str) -> bool {
    location.starts_with("https://") || location.starts_with("http://")
}

/// The release a URL names (`…/download/v1.2.3/…`), if it names one.
fn release_in(url: &str) -> Option<&str> {
    url.split('/')
        .skip_while(|part| *part != "download")
        .nth(1)
        .and_then(|tag| tag.strip_prefix('v'))
}

/// The check of `zellij --version`'s output (None: no `zellij` that answers): this release is
/// built and tested for one Zellij line; another line is a warning, since Zellij still loads
/// the plugin and it may work.
pub fn zellij_check(version: Option<&str>) -> Check {
    let install = format!("cargo install --locked zellij --version {ZELLIJ_TESTED}");
    let Some(printed) = version.map(str::trim) else {
        return Check::fail("zellij", "not on PATH", install);
    };
    let line = format!("{ZELLIJ_LINE}.");
    match printed.strip_prefix("zellij ") {
        Some(v) if v.starts_with(&line) => Check::pass(
            "zellij",
            format!(
                "{printed} (ask-popup {VERSION} is built and tested for Zellij {ZELLIJ_LINE}.x)"
            ),
        ),
        _ => Check::warn(
            "zellij",
            format!(
                "{printed} on PATH; ask-popup {VERSION} is built and tested for Zellij \
                 {ZELLIJ_LINE}.x, and plugins can break across Zellij's minor versions"
            ),
            format!("use the ask-popup release made for your Zellij, or: {install}"),
        ),
    }
}

/// One line of `ask-popup doctor`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Check {
    pub check: String,
    /// None: not checked here (e.g. outside Zellij, or the agent is not installed).
    pub ok: Option<bool>,
    pub detail: String,
    /// For a failed check: the command that fixes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// A check that holds with a doubt (`ok` is true): said, with its fix, but no failure.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub warning: bool,
}

impl Check {
    pub fn pass(check: &str, detail: impl Into<String>) -> Check {
        Check {
            check: check.to_owned(),
            ok: Some(true),
            detail: detail.into(),
            fix: None,
            warning: false,
        }
    }
    pub fn fail(check: &str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            check: check.to_owned(),
            ok: Some(false),
            detail: detail.into(),
            fix: Some(fix.into()),
            warning: false,
        }
    }
    /// Holds, but with a doubt worth saying and what would remove it.
    pub fn warn(check: &str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            check: check.to_owned(),
            ok: Some(true),
            detail: detail.into(),
            fix: Some(fix.into()),
            warning: true,
        }
    }
    pub fn skip(check: &str, detail: impl Into<String>) -> Check {
        Check {
            check: check.to_owned(),
            ok: None,
            detail: detail.into(),
            fix: None,
            warning: false,
        }
    }
}

/// The doctor's report: one line per check (✓, ✗ with its fix, ⚠ with its fix, or – not
/// checked).
pub fn report(checks: &[Check]) -> String {
    let mut out = String::new();
    for c in checks {
        let mark = match c.ok {
            Some(true) if c.warning => "⚠",
            Some(true) => "✓",
            Some(false) => "✗",
            None => "–",
        };
        out.push_str(&format!("{mark} {}: {}\n", c.check, c.detail));
        if let Some(fix) = &c.fix {
            out.push_str(&format!("    fix: {fix}\n"));
        }
    }
    out
}

/// Whether every check that ran held.
pub fn all_hold(checks: &[Check]) -> bool {
    checks.iter().all(|c| c.ok != Some(false))
}

/// The checks of the plugin file and `config.kdl` in Zellij's config dir `dir`, from what the
/// files hold (None: no such file). An alias that loads the plugin from a URL needs no file
/// (the plugin answering in the session says which version Zellij downloaded).
pub fn config_checks(dir: &Path, plugin: Option<&[u8]>, config: Option<&str>) -> Vec<Check> {
    let fix = "ask-popup setup zellij --write";
    let plugin_path = dir.join("plugins").join(PLUGIN_FILE);
    let config_path = dir.join("config.kdl");
    let found = config.map(|c| inspect(c, &config_path.display().to_string()));
    let url = match &found {
        Some(Ok((Some(location), _))) if is_url(location) => Some(location.clone()),
        _ => None,
    };
    let mut checks = Vec::new();
    checks.push(match (plugin, &url) {
        (_, Some(url)) => Check::skip(
            "plugin file",
            format!("none needed: Zellij downloads the plugin from {url}"),
        ),
        (None, None) => Check::fail(
            "plugin file",
            format!("{} is missing", plugin_path.display()),
            fix,
        ),
        (Some(bytes), None) if !PLUGIN.is_empty() && bytes != PLUGIN => Check::fail(
            "plugin file",
            format!(
                "{} is another version than this command's",
                plugin_path.display()
            ),
            fix,
        ),
        (Some(_), None) => Check::pass(
            "plugin file",
            format!("{}, this command's version", plugin_path.display()),
        ),
    });
    let (location, binding) = match found {
        None => (None, false),
        Some(Ok(found)) => found,
        Some(Err(e)) => {
            checks.push(Check::fail(
                "config.kdl",
                e.to_string(),
                "fix the file, then: ask-popup setup zellij --write",
            ));
            return checks;
        }
    };
    let wanted = format!("file:{}", plugin_path.display());
    checks.push(match location {
        None => Check::fail(
            "alias",
            format!("{} has no `{ALIAS}` alias", config_path.display()),
            fix,
        ),
        Some(found) if is_url(&found) => match release_in(&found) {
            Some(release) if release != VERSION => Check::fail(
                "alias",
                format!("`{ALIAS}` loads release {release}'s plugin from {found}, not this command's {VERSION}"),
                format!("ask-popup setup zellij --url {} --write", release_url(VERSION)),
            ),
            _ => Check::pass("alias", format!("`{ALIAS}` → {found}")),
        },
        Some(found) if found != wanted && !found.ends_with(&format!("/{PLUGIN_FILE}")) => {
            Check::fail(
                "alias",
                format!("`{ALIAS}` points at {found}, not {wanted}"),
                fix,
            )
        }
        Some(found) => Check::pass("alias", format!("`{ALIAS}` → {found}")),
    });
    checks.push(if binding {
        Check::pass(
            "binding",
            format!("Ctrl o, then {BIND_KEY} brings a hidden popup back"),
        )
    } else {
        Check::fail(
            "binding",
            format!(
                "{} has no binding that brings the popup back",
                config_path.display()
            ),
            fix,
        )
    });
    checks
}

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

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: &str = "config.kdl";
    const LOCATION: &str = "/home/u/.config/zellij/plugins/ask-popup.wasm";

    /// Whether `small`'s lines appear in `big` in order (`big` only adds lines).
    fn only_adds(small: &str, big: &str) -> bool {
        let mut big = big.lines();
        small.lines().all(|line| big.any(|b| b == line))
    }

    fn round_trip(original: &str) -> String {
        let merged = merge(original, PATH, LOCATION)
            .unwrap()
            .expect("something added");
        assert!(only_adds(original, &merged), "{merged}");
        round_trip_of(original, merged)
    }

    fn round_trip_of(original: &str, merged: String) -> String {
        let _: KdlDocument = merged.parse().expect("the result is KDL");
        assert_eq!(
            inspect(&merged, PATH).unwrap(),
            (Some(format!("file:{LOCATION}")), true)
        );
        assert_eq!(
            merge(&merged, PATH, LOCATION).unwrap(),
            None,
            "a second run"
        );
        assert_eq!(
            remove(&merged, PATH).unwrap().as_deref(),
            Some(original),
            "remove gives back the file byte for byte; merged:\n{merged}"
        );
        merged
    }

    #[test]
    fn an_empty_config_gets_both_blocks_and_loses_them_again() {
        let merged = round_trip("");
        assert!(merged.starts_with(MARK), "{merged}");
        assert!(
            merged.contains("plugins {\n    ask-popup location="),
            "{merged}"
        );
        assert!(
            merged.contains("keybinds {\n    // Added by `ask-popup setup zellij`\n    session {\n        bind \"y\" {"),
            "{merged}"
        );
        assert_eq!(inspect("", PATH).unwrap(), (None, false));
    }

    #[test]
    fn a_users_config_keeps_its_comments_nodes_and_other_bindings() {
        let original = "// my zellij\ntheme \"dracula\"\n\n\
            plugins {\n    // bars\n    tab-bar location=\"zellij:tab-bar\"\n    status-bar location=\"zellij:status-bar\"\n}\n\n\
            keybinds clear-defaults=false {\n    normal {\n        bind \"Alt y\" { NewPane; }\n    }\n    locked {\n        bind \"Ctrl y\" { SwitchToMode \"normal\"; }\n    }\n}\n// the end\n";
        let merged = round_trip(original);
        assert!(
            merged
                .contains("    status-bar location=\"zellij:status-bar\"\n    ask-popup location="),
            "{merged}"
        );
        assert!(merged.ends_with("// the end\n"), "{merged}");
    }

    #[test]
    fn a_session_block_of_the_users_gets_the_binding_inside_it() {
        let original = "keybinds {\n\tsession {\n\t\tbind \"d\" { Detach; }\n\t}\n}\n";
        let merged = round_trip(original);
        assert!(
            merged.contains("\t\tbind \"d\" { Detach; }\n\t\tbind \"y\" {"),
            "{merged}"
        );
        assert_eq!(merged.matches("session").count(), 1, "{merged}");
    }

    #[test]
    fn one_line_and_empty_blocks_get_the_nodes_and_lose_them_again() {
        // Their lines must be split, so only the nodes come back out, not every byte.
        for original in [
            "plugins { tab-bar location=\"zellij:tab-bar\"; }",
            "keybinds { }\nplugins {\n}",
        ] {
            let merged = merge(original, PATH, LOCATION).unwrap().unwrap();
            assert!(inspect(&merged, PATH).unwrap().1, "{merged}");
            let removed = remove(&merged, PATH).unwrap().unwrap();
            assert_eq!(inspect(&removed, PATH).unwrap(), (None, false), "{removed}");
            let doc: KdlDocument = removed.parse().unwrap();
            assert_eq!(
                doc.nodes().len(),
                original.matches('{').count(),
                "{removed}"
            );
        }
    }

    #[test]
    fn an_alias_already_there_is_left_as_it_is() {
        let original = "plugins {\n    ask-popup location=\"file:/elsewhere.wasm\"\n}\n";
        let merged = merge(original, PATH, LOCATION).unwrap().unwrap();
        assert!(merged.starts_with(original), "{merged}");
        assert_eq!(
            inspect(&merged, PATH).unwrap().0.as_deref(),
            Some("file:/elsewhere.wasm")
        );
    }

    const URL: &str = "https://example.org/releases/download/v9.9.9/ask-popup.wasm";

    #[test]
    fn a_url_setup_adds_the_alias_with_the_url_and_points_one_already_there_at_it() {
        let merged = merge_url("", PATH, URL).unwrap().unwrap();
        assert_eq!(
            inspect(&merged, PATH).unwrap(),
            (Some(URL.to_owned()), true)
        );
        assert!(
            merged.contains(&format!("ask-popup location=\"{URL}\" {{\n")),
            "{merged}"
        );
        assert_eq!(merge_url(&merged, PATH, URL).unwrap(), None, "a second run");
        assert_eq!(remove(&merged, PATH).unwrap().as_deref(), Some(""));

        // A file setup's alias, and the user's options in it, pointed at the URL and only that.
        let filed = merge("", PATH, LOCATION).unwrap().unwrap();
        let user = filed.replace("hide_key \"Ctrl ]\"", "hide_key \"off\"");
        let pointed = merge_url(&user, PATH, URL).unwrap().unwrap();
        assert_eq!(
            pointed,
            user.replace(
                &format!("location=\"file:{LOCATION}\""),
                &format!("location=\"{URL}\"")
            )
        );
        // A newer release's URL replaces the older one.
        let newer = URL.replace("v9.9.9", "v10.0.0");
        let again = merge_url(&pointed, PATH, &newer).unwrap().unwrap();
        assert_eq!(inspect(&again, PATH).unwrap().0, Some(newer));
        // The default (file) setup leaves a URL alias as it is.
        assert_eq!(merge(&pointed, PATH, LOCATION).unwrap(), None);
    }

    #[test]
    fn the_release_url_is_the_repositorys_download_of_this_version() {
        let url = release_url(VERSION);
        assert_eq!(
            url,
            format!("{REPOSITORY}/releases/download/v{VERSION}/ask-popup.wasm")
        );
        assert!(
            is_url(&url) && url.starts_with("https://github.com/"),
            "{url}"
        );
        assert_eq!(release_in(&url), Some(VERSION));
        assert_eq!(release_in("http://127.0.0.1:8080/ask-popup.wasm"), None);
        assert!(!is_url("file:/x/ask-popup.wasm") && !is_url("zellij:tab-bar"));
    }

    fn line(checks: &[Check], name: &str) -> Check {
        checks
            .iter()
            .find(|c| c.check == name)
            .unwrap_or_else(|| panic!("no {name} in {checks:?}"))
            .clone()
    }

    #[test]
    fn a_url_alias_needs_no_plugin_file_and_names_another_release() {
        let dir = Path::new("/h/.config/zellij");
        let ours = merge_url("", PATH, &release_url(VERSION)).unwrap().unwrap();
        let checks = config_checks(dir, None, Some(&ours));
        assert_eq!(line(&checks, "plugin file").ok, None, "{checks:?}");
        assert_eq!(line(&checks, "alias").ok, Some(true), "{checks:?}");
        assert!(all_hold(&checks), "{checks:?}");
        // A stale file beside a URL alias is no failure either.
        let checks = config_checks(dir, Some(b"\0asm old"), Some(&ours));
        assert!(all_hold(&checks), "{checks:?}");
        // Any other URL holds: the version pipe says what Zellij downloaded.
        let served = merge_url("", PATH, "http://127.0.0.1:8080/ask-popup.wasm")
            .unwrap()
            .unwrap();
        assert!(all_hold(&config_checks(dir, None, Some(&served))));
        // Another release's URL: pointed at this one's.
        let older = merge_url("", PATH, URL).unwrap().unwrap();
        let alias = line(&config_checks(dir, None, Some(&older)), "alias");
        assert_eq!(alias.ok, Some(false), "{alias:?}");
        assert!(alias.detail.contains("release 9.9.9"), "{alias:?}");
        assert_eq!(
            alias.fix,
            Some(format!(
                "ask-popup setup zellij --url {} --write",
                release_url(VERSION)
            ))
        );
        // A file alias without its file still fails, as before.
        let filed = merge("", PATH, "/h/.config/zellij/plugins/ask-popup.wasm")
            .unwrap()
            .unwrap();
        let file = line(&config_checks(dir, None, Some(&filed)), "plugin file");
        assert_eq!(file.ok, Some(false), "{file:?}");
    }

    #[test]
    fn zellij_of_the_tested_line_passes_and_another_line_is_a_warning() {
        let tested = zellij_check(Some("zellij 0.45.1\n"));
        assert_eq!((tested.ok, tested.warning), (Some(true), false));
        assert!(
            tested.detail.contains("built and tested for Zellij 0.45.x"),
            "{tested:?}"
        );
        let patch = zellij_check(Some("zellij 0.45.7"));
        assert_eq!((patch.ok, patch.warning), (Some(true), false));
        for other in [
            "zellij 0.46.0",
            "zellij 0.44.3",
            "zellij 0.450.0",
            "something else",
        ] {
            let check = zellij_check(Some(other));
            assert_eq!((check.ok, check.warning), (Some(true), true), "{other}");
            assert!(check.detail.contains("0.45.x"), "{check:?}");
            assert!(all_hold(std::slice::from_ref(&check)));
            assert!(report(&[check]).starts_with("⚠ zellij: "));
        }
        let missing = zellij_check(None);
        assert_eq!(missing.ok, Some(false));
        assert_eq!(
            missing.fix.as_deref(),
            Some("cargo install --locked zellij --version 0.45.1")
        );
    }

    #[test]
    fn a_file_that_is_not_kdl_is_refused_and_named() {
        let err = merge("plugins {\n", "/x/config.kdl", LOCATION).unwrap_err();
        assert!(
            err.to_string().starts_with("/x/config.kdl is not KDL"),
            "{err}"
        );
        assert!(remove("plugins {\n", PATH).is_err());
    }

    #[test]
    fn the_config_dir_is_found_as_zellij_finds_it() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let none = |_: &Path| false;
        let all: &[(&str, &str)] = &[
            ("ZELLIJ_CONFIG_DIR", "/z"),
            ("XDG_CONFIG_HOME", "/x"),
            ("HOME", "/h"),
        ];
        assert_eq!(
            config_dir(Some(Path::new("/arg")), env(all), none),
            Some("/arg".into())
        );
        assert_eq!(config_dir(None, env(all), none), Some("/z".into()));
        let both: &[(&str, &str)] = &[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")];
        // Neither exists: the one Zellij creates and looks in first.
        assert_eq!(
            config_dir(None, env(both), none),
            Some("/h/.config/zellij".into())
        );
        assert_eq!(
            config_dir(None, env(both), |p: &Path| p == Path::new("/x/zellij")),
            Some("/x/zellij".into())
        );
        assert_eq!(
            config_dir(None, env(both), |_: &Path| true),
            Some("/h/.config/zellij".into())
        );
        assert_eq!(
            config_dir(None, env(&[("XDG_CONFIG_HOME", "/x")]), none),
            Some("/x/zellij".into())
        );
        assert_eq!(config_dir(None, env(&[]), none), None);
    }
}
