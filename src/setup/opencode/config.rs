//! opencode: where its global config and plugins are, the `ask-popup` MCP server's entry merged
//! into its config (JSON with comments, edited as a document that keeps everything else byte for
//! byte) and taken out again, the plugin that answers opencode's own `question` tool in the
//! popup, and the data that plugin reads from this library.

use crate::setup::error::SetupError;
use crate::setup::json_document::input;
use ask_popup_protocol::error_code::{ErrorCode, Fallback};
use jsonc_parser::cst::CstRootNode;
use jsonc_parser::ParseOptions;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The name the popup shows for opencode (`opencode asks`).
pub const AGENT: &str = "opencode";

/// The MCP server's name in opencode's config; opencode calls its tool
/// `ask-popup_ask_user_question`.
pub const SERVER: &str = "ask-popup";

/// The schema opencode writes into a config that has none (rewriting the file as it loads it):
/// a config that setup writes has it already, so opencode leaves it as it is.
pub const SCHEMA: &str = "https://opencode.ai/config.json";

/// The plugin (`integrations/opencode`), carried by the command so that `setup opencode --write`
/// can write it into opencode's plugin dir: `(path in that dir, text)`. opencode loads every
/// `*.js` and `*.ts` directly in the dir as a plugin, so its data sits in a folder beside it.
pub const PLUGIN: [(&str, &str); 2] = [
    (
        "ask-popup.js",
        include_str!("../../../integrations/opencode/ask-popup.js"),
    ),
    (
        "ask-popup/shared.json",
        include_str!("../../../integrations/opencode/ask-popup/shared.json"),
    ),
];

/// The plugin that asks opencode's permission prompts in the popup, which `setup opencode
/// --approvals --write` writes beside the other: `(path in the plugin dir, text)`.
pub const APPROVALS_PLUGIN: (&str, &str) = (
    "ask-popup-approvals.js",
    include_str!("../../../integrations/opencode/ask-popup-approvals.js"),
);

/// Whether `text`, found at `file` in opencode's plugin dir (one of `PLUGIN`'s or
/// `APPROVALS_PLUGIN`'s paths), is a version of what setup writes there, which `--write` may
/// replace and `--remove` deletes: a script whose first line is the first line of the one this
/// command carries (every version's has been), or the generated data (its `about` says so). A
/// file of the user's own that only has the name is theirs.
pub fn is_plugin_file(file: &str, text: &str) -> bool {
    let carried = PLUGIN
        .iter()
        .chain([&APPROVALS_PLUGIN])
        .find(|(path, _)| *path == file);
    let Some((_, carried)) = carried else {
        return false;
    };
    if file.ends_with(".js") {
        let first = |text: &str| text.lines().next().map(str::to_owned);
        return first(text).is_some_and(|line| line.starts_with("// "))
            && first(text) == first(carried);
    }
    serde_json::from_str::<Value>(text).is_ok_and(|data| {
        data.get("agent") == Some(&json!(AGENT))
            && data
                .get("about")
                .and_then(Value::as_str)
                .is_some_and(|about| {
                    about.starts_with("GENERATED from the Rust library (ask_popup::")
                })
    })
}

/// The plugin dir in opencode's config dir.
pub const PLUGIN_DIR: &str = "plugin";

/// opencode's config dir, as opencode finds it: `$OPENCODE_CONFIG_DIR` (its override, loaded with
/// its config files and plugins), else `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
pub fn config_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(dir) = env("OPENCODE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(dir.into());
    }
    if let Some(config) = env("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        return Some(Path::new(&config).join("opencode"));
    }
    env("HOME")
        .filter(|h| !h.is_empty())
        .map(|home| Path::new(&home).join(".config").join("opencode"))
}

/// The config file in `dir` that setup edits: `opencode.jsonc` when there is one, else
/// `opencode.json` (opencode reads both).
pub fn config_file(dir: &Path, exists: impl Fn(&Path) -> bool) -> PathBuf {
    let jsonc = dir.join("opencode.jsonc");
    if exists(&jsonc) {
        jsonc
    } else {
        dir.join("opencode.json")
    }
}

/// What opencode reads as its config: JSON with comments and trailing commas, nothing else
/// beyond JSON.
fn parse_options() -> ParseOptions {
    crate::setup::json_document::parse_options(true)
}

/// The `mcp."ask-popup"` entry: a local server running `exe mcp`. opencode starts a local MCP
/// server with its own whole environment (Zellij's variables included), so the entry names
/// none; and it waits for a tool call as long as the server sends progress, which the server
/// does every 5 s.
pub fn mcp_entry(exe: &str) -> Value {
    json!({ "type": "local", "command": [exe, "mcp"] })
}

/// Whether an `mcp."ask-popup"` entry is one setup wrote (of this version or another): a local
/// server running an `ask-popup` executable with `mcp`, nothing else. Another (a wrapper of the
/// user's, a server of theirs that has the name) is the user's.
fn is_setups_entry(entry: &Value) -> bool {
    entry.as_object().is_some_and(|entry| {
        entry.get("type") == Some(&json!("local"))
            && entry
                .get("command")
                .and_then(Value::as_array)
                .is_some_and(|command| match command.as_slice() {
                    [program, arg] => {
                        program.as_str().is_some_and(crate::setup::hook::is_program) && arg == "mcp"
                    }
                    _ => false,
                })
    })
}

/// The config that `setup opencode` prints, and writes where there is none.
pub fn snippet(exe: &str) -> String {
    let config = json!({ "$schema": SCHEMA, "mcp": { SERVER: mcp_entry(exe) } });
    format!("{}\n", pretty(&config))
}

/// A config of setup's own without its entry: what `remove` leaves of `snippet`, which then
/// goes with the entry.
pub fn skeleton() -> String {
    format!("{}\n", pretty(&json!({ "$schema": SCHEMA })))
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn parse(text: &str) -> Result<CstRootNode, SetupError> {
    let root = CstRootNode::parse(text, &parse_options())
        .map_err(|e| SetupError::NotJsonc(e.to_string()))?;
    if root.value().is_some_and(|v| v.as_object().is_none()) {
        return Err(SetupError::Unexpected("the file"));
    }
    Ok(root)
}

/// `existing` (the text of opencode's config, empty when there is none) with the `ask-popup`
/// server in its `mcp` object, everything else kept as it was; None when the entry is there as
/// it should be. An `ask-popup` entry setup wrote for another path is replaced; one of the
/// user's own is left alone (`SetupError::NotOurs`). A file that `remove` could
/// not give back byte for byte after the change is refused (with the entry to add by hand).
pub fn merge(existing: &str, exe: &str) -> Result<Option<String>, SetupError> {
    if existing.trim().is_empty() {
        return Ok(Some(snippet(exe)));
    }
    let entry = mcp_entry(exe);
    let root = parse(existing)?;
    let object = root.object_value_or_set();
    let mcp = match object.get("mcp") {
        None => None,
        Some(prop) => Some(prop.object_value().ok_or(SetupError::Unexpected("mcp"))?),
    };
    if let Some(ours) = mcp.as_ref().and_then(|mcp| mcp.get(SERVER)) {
        let there = ours.value().and_then(|v| v.to_serde_value());
        if there.as_ref() == Some(&entry) {
            return Ok(None);
        }
        if !there.as_ref().is_some_and(is_setups_entry) {
            return Err(SetupError::NotOurs("mcp.ask-popup"));
        }
        ours.set_value(input(&entry));
        return Ok(Some(root.to_string()));
    }
    // As a document: each object it touches laid out over lines, as opencode writes its config.
    match &mcp {
        Some(mcp) => {
            mcp.append(SERVER, input(&entry));
        }
        None => {
            object.append("mcp", input(&json!({ SERVER: entry })));
        }
    }
    let merged = root.to_string();
    if gives_back(&merged, existing) {
        return Ok(Some(merged));
    }
    // An object written on one line: the entry on that line too, after its last member.
    if let Some(merged) = insert_on_one_line(existing, mcp.is_some(), &entry) {
        if gives_back(&merged, existing) {
            return Ok(Some(merged));
        }
    }
    Err(SetupError::NotReversible(snippet(exe)))
}

fn gives_back(merged: &str, existing: &str) -> bool {
    matches!(remove(merged), Ok(Some(back)) if back == existing)
}

/// `existing` with the entry written on one line after the last member of the object it goes
/// in (the root's `mcp`, or the root), for an object `merge` would otherwise spread over lines.
fn insert_on_one_line(existing: &str, into_mcp: bool, entry: &Value) -> Option<String> {
    use jsonc_parser::ast::Value as Ast;
    let parsed =
        jsonc_parser::parse_to_ast(existing, &Default::default(), &parse_options()).ok()?;
    let Some(Ast::Object(root)) = parsed.value else {
        return None;
    };
    let (object, member) = if into_mcp {
        let mcp = root.properties.iter().find(|p| p.name.as_str() == "mcp")?;
        let Ast::Object(mcp) = &mcp.value else {
            return None;
        };
        (
            mcp.clone(),
            format!("{}: {}", json!(SERVER), serde_json::to_string(entry).ok()?),
        )
    } else {
        (
            root.clone(),
            format!(
                "\"mcp\": {}",
                serde_json::to_string(&json!({ SERVER: entry })).ok()?
            ),
        )
    };
    let (at, text) = match object.properties.last() {
        Some(last) => (last.range.end, format!(", {member}")),
        None => (object.range.start + 1, member),
    };
    let mut merged = String::with_capacity(existing.len() + text.len());
    merged.push_str(existing.get(..at)?);
    merged.push_str(&text);
    merged.push_str(existing.get(at..)?);
    Some(merged)
}

/// `existing` without the `ask-popup` server setup wrote (`is_setups_entry`), and without `mcp`
/// when nothing else is left in it; None when it has none.
pub fn remove(existing: &str) -> Result<Option<String>, SetupError> {
    if existing.trim().is_empty() {
        return Ok(None);
    }
    let root = parse(existing)?;
    let Some(object) = root.object_value() else {
        return Ok(None);
    };
    let Some(mcp_prop) = object.get("mcp") else {
        return Ok(None);
    };
    let Some(mcp) = mcp_prop.object_value() else {
        return Ok(None);
    };
    let Some(ours) = mcp.get(SERVER) else {
        return Ok(None);
    };
    if !ours
        .value()
        .and_then(|v| v.to_serde_value())
        .as_ref()
        .is_some_and(is_setups_entry)
    {
        return Ok(None);
    }
    ours.remove();
    if mcp.properties().is_empty() {
        mcp_prop.remove();
    }
    Ok(Some(root.to_string()))
}

/// The value `text` holds, when it reads as opencode reads its config.
pub(super) fn value_of(text: &str) -> Option<Value> {
    CstRootNode::parse(text, &parse_options())
        .ok()?
        .value()?
        .to_serde_value()
}

/// How opencode's config names the `ask-popup` server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// No `mcp."ask-popup"` (or a config it cannot read).
    Missing,
    /// It runs `exe mcp`.
    Current,
    /// It is one setup wrote, running another path of `ask-popup`.
    Other,
    /// It is not one setup wrote (the user's own, which setup leaves alone).
    NotSetups,
}

/// What `config` (the text of opencode's config) says of the `ask-popup` server run by `exe`.
pub fn entry_in(config: &str, exe: &str) -> Entry {
    let Some(value) = value_of(config) else {
        return Entry::Missing;
    };
    match value.get("mcp").and_then(|mcp| mcp.get(SERVER)) {
        None => Entry::Missing,
        Some(entry) if *entry == mcp_entry(exe) => Entry::Current,
        Some(entry) if is_setups_entry(entry) => Entry::Other,
        Some(_) => Entry::NotSetups,
    }
}

/// The data the plugin reads (`integrations/opencode/ask-popup/shared.json`): the agent's name,
/// and the endings after which opencode's own dialog asks, as decided for every agent on
/// `ErrorCode` (`Fallback::OPENCODE`).
pub fn shared() -> Value {
    json!({
        "about": "GENERATED from the Rust library (ask_popup::setup::opencode::shared); write it anew with `ASK_POPUP_WRITE_SHARED=1 cargo test --lib opencode`",
        "agent": AGENT,
        "fallback": ErrorCode::ALL
            .iter()
            .copied()
            .filter(|code| Fallback::OPENCODE.after(*code))
            .map(ErrorCode::as_str)
            .collect::<Vec<_>>(),
    })
}

/// `shared()` as the plugin's file: pretty JSON and a final newline.
pub fn shared_file() -> String {
    format!("{}\n", pretty(&shared()))
}
