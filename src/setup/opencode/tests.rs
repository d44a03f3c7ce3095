use super::config::*;
use crate::setup::error::SetupError;
use std::path::{Path, PathBuf};

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
