//! opencode: where its global config and plugins are, the `ask-popup` MCP server's entry merged
//! into its config (JSON with comments, edited as a document that keeps everything else byte for
//! byte) and taken out again, the plugin that answers opencode's own `question` tool in the
//! popup, and the data that plugin reads from this library.

use super::agents::SetupError;
use super::json_document::input;
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
        include_str!("../../integrations/opencode/ask-popup.js"),
    ),
    (
        "ask-popup/shared.json",
        include_str!("../../integrations/opencode/ask-popup/shared.json"),
    ),
];

/// The plugin that asks opencode's permission prompts in the popup, which `setup opencode
/// --approvals --write` writes beside the other: `(path in the plugin dir, text)`.
pub const APPROVALS_PLUGIN: (&str, &str) = (
    "ask-popup-approvals.js",
    include_str!("../../integrations/opencode/ask-popup-approvals.js"),
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
    super::json_document::parse_options(true)
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
                        program.as_str().is_some_and(super::agents::is_program) && arg == "mcp"
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
fn value_of(text: &str) -> Option<Value> {
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

#[cfg(test)]
mod tests {
    use super::*;

    const EXE: &str = "/usr/local/bin/ask-popup";

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn the_config_dir_is_found_as_opencode_finds_it() {
        let home = [("HOME", "/home/u")];
        assert_eq!(
            config_dir(env(&home)),
            Some(PathBuf::from("/home/u/.config/opencode"))
        );
        let xdg = [("HOME", "/home/u"), ("XDG_CONFIG_HOME", "/x")];
        assert_eq!(config_dir(env(&xdg)), Some(PathBuf::from("/x/opencode")));
        let own = [
            ("HOME", "/home/u"),
            ("XDG_CONFIG_HOME", "/x"),
            ("OPENCODE_CONFIG_DIR", "/oc"),
        ];
        assert_eq!(config_dir(env(&own)), Some(PathBuf::from("/oc")));
        let empty = [("HOME", "/home/u"), ("XDG_CONFIG_HOME", "")];
        assert_eq!(
            config_dir(env(&empty)),
            Some(PathBuf::from("/home/u/.config/opencode"))
        );
        assert_eq!(config_dir(env(&[])), None);
        let dir = Path::new("/oc");
        assert_eq!(config_file(dir, |_| false), dir.join("opencode.json"));
        assert_eq!(
            config_file(dir, |p| p.ends_with("opencode.jsonc")),
            dir.join("opencode.jsonc")
        );
    }

    #[test]
    fn a_new_config_is_the_snippet_with_the_schema_and_goes_with_the_entry() {
        let text = merge("", EXE).unwrap().unwrap();
        assert_eq!(
            text,
            "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"mcp\": {\n    \"ask-popup\": {\n      \"type\": \"local\",\n      \"command\": [\n        \"/usr/local/bin/ask-popup\",\n        \"mcp\"\n      ]\n    }\n  }\n}\n"
        );
        assert_eq!(entry_in(&text, EXE), Entry::Current);
        assert_eq!(merge(&text, EXE).unwrap(), None);
        assert_eq!(remove(&text).unwrap(), Some(skeleton()));
    }

    /// Configs as users write them: merged, merged again (nothing), and taken out byte for byte.
    #[test]
    fn the_entry_goes_in_keeping_the_rest_and_comes_out_byte_for_byte() {
        let configs = [
            // As opencode writes a config of its own.
            "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}",
            "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"model\": \"anthropic/claude\"\n}\n",
            // Comments, a trailing comma, a block comment before the closing brace.
            "// mine\n{\n  // the model\n  \"model\": \"x\", // fast\n  /* more */\n}\n",
            // Other servers, tabs.
            "{\n\t\"mcp\": {\n\t\t\"other\": {\"type\": \"local\", \"command\": [\"x\"]}\n\t}\n}\n",
            // CRLF line ends.
            "{\r\n  \"model\": \"x\"\r\n}\r\n",
            // On one line.
            "{\"model\": \"x\"}\n",
            "{\"mcp\": {\"other\": {\"type\": \"remote\", \"url\": \"http://x\"}}}",
            "{}",
        ];
        for config in configs {
            let merged = merge(config, EXE)
                .unwrap_or_else(|e| panic!("{config:?}: {e}"))
                .unwrap_or_else(|| panic!("{config:?}: nothing merged"));
            assert_eq!(entry_in(&merged, EXE), Entry::Current, "{merged}");
            assert_eq!(merge(&merged, EXE).unwrap(), None, "{merged}");
            assert_eq!(
                remove(&merged).unwrap().as_deref(),
                Some(config),
                "{merged}"
            );
            assert_eq!(remove(config).unwrap(), None, "{config:?}");
            // What it had before, it still has.
            let before = value_of(config).unwrap();
            let after = value_of(&merged).unwrap();
            for (key, value) in before.as_object().unwrap() {
                if key != "mcp" {
                    assert_eq!(&after[key], value, "{merged}");
                }
            }
            if let Some(other) = before["mcp"].get("other") {
                assert_eq!(&after["mcp"]["other"], other, "{merged}");
            }
        }
    }

    #[test]
    fn an_entry_of_another_command_is_replaced() {
        let config = "{\n  \"mcp\": {\n    \"ask-popup\": {\"type\": \"local\", \"command\": [\"/old/ask-popup\", \"mcp\"]}\n  }\n}\n";
        assert_eq!(entry_in(config, EXE), Entry::Other);
        let merged = merge(config, EXE).unwrap().unwrap();
        assert_eq!(entry_in(&merged, EXE), Entry::Current);
        assert_eq!(remove(&merged).unwrap().as_deref(), Some("{}\n"));
    }

    #[test]
    fn a_server_or_a_plugin_file_of_the_users_own_is_left_alone() {
        for theirs in [
            "{\n  \"mcp\": {\n    \"ask-popup\": {\"type\": \"local\", \"command\": [\"/home/me/bin/audit-wrapper\", \"ask-popup\", \"mcp\"]}\n  }\n}\n",
            "{\"mcp\": {\"ask-popup\": {\"type\": \"remote\", \"url\": \"http://x/ask-popup\"}}}",
            "{\"mcp\": {\"ask-popup\": {\"type\": \"local\", \"command\": [\"/x/ask-popup\", \"mcp\", \"--log\"]}}}",
        ] {
            assert_eq!(
                merge(theirs, EXE),
                Err(SetupError::NotOurs("mcp.ask-popup")),
                "{theirs}"
            );
            assert_eq!(remove(theirs), Ok(None), "{theirs}");
        }
        for (file, text) in PLUGIN.iter().chain([&APPROVALS_PLUGIN]) {
            assert!(is_plugin_file(file, text), "{file}");
            assert!(
                !is_plugin_file(file, "// my own\nexport default {};\n"),
                "{file}"
            );
            assert!(!is_plugin_file(file, ""), "{file}");
        }
        assert!(!is_plugin_file("other.js", PLUGIN[0].1));
        // An older version of the script, and of the generated data, are setup's.
        let older = PLUGIN[0].1.replacen("import", "// older\nimport", 1);
        assert!(is_plugin_file(PLUGIN[0].0, &older));
        let data = "{\"about\": \"GENERATED from the Rust library (ask_popup::caller::opencode::shared); …\", \"agent\": \"opencode\"}";
        assert!(is_plugin_file(PLUGIN[1].0, data));
        assert!(!is_plugin_file(PLUGIN[1].0, "{\"agent\": \"opencode\"}"));
    }

    #[test]
    fn a_file_it_cannot_read_or_give_back_is_refused() {
        for text in [
            "{ not json",
            "{'model': 'x'}",
            "{\"a\": 1 \"b\": 2}",
            "{model: 1}",
        ] {
            assert!(
                matches!(merge(text, EXE), Err(SetupError::NotJsonc(_))),
                "{text}"
            );
        }
        assert_eq!(merge("[]", EXE), Err(SetupError::Unexpected("the file")));
        assert_eq!(
            merge("{\"mcp\": []}", EXE),
            Err(SetupError::Unexpected("mcp"))
        );
        // An empty `mcp` of the user's own would go with the entry: refused, with the entry.
        assert_eq!(
            merge("{\n  \"mcp\": {}\n}\n", EXE),
            Err(SetupError::NotReversible(snippet(EXE)))
        );
        assert_eq!(entry_in("{ not json", EXE), Entry::Missing);
    }

    #[test]
    fn the_plugin_carries_every_file_of_integrations_opencode() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/opencode");
        for (file, text) in PLUGIN {
            assert_eq!(
                std::fs::read_to_string(root.join(file)).unwrap(),
                text,
                "{file}"
            );
        }
    }

    #[test]
    fn the_plugins_shared_file_is_current() {
        let current = ask_popup_protocol::tool::generated_file_is_current(
            "integrations/opencode/ask-popup/shared.json",
            &shared_file(),
            "cargo test -p ask-popup --lib opencode",
        );
        assert_eq!(current, Ok(()));
    }
}
