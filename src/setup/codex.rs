//! `ask-popup setup codex`: the `[mcp_servers.ask-popup]` table in Codex's config.toml (edited
//! keeping its formatting), and the hooks in `$CODEX_HOME/hooks.json` that ask Codex's own
//! `request_user_input` (and, with `--approvals`, its permission prompts) in the popup.

use super::error::SetupError;
use super::files::edit;
use super::hook::{edit_hooks, is_program, shell_word, Hook};
use super::places::codex_config;
use super::skill::skill;
use ask_popup_protocol::atomic_file::OWNER_ONLY;

/// Codex's permission prompts (every tool's), asked by `ask-popup codex-approval`: what `setup
/// codex --approvals` adds to `$CODEX_HOME/hooks.json`.
pub const CODEX_APPROVAL_HOOK: Hook = Hook {
    event: "PermissionRequest",
    matcher: "*",
    subcommand: "codex-approval",
};
/// Codex's `request_user_input`, answered by `ask-popup codex-hook`, in `$CODEX_HOME/hooks.json`.
pub const CODEX_HOOK: Hook = Hook {
    event: "PreToolUse",
    matcher: crate::hooks::codex::TOOL,
    subcommand: "codex-hook",
};

/// Whether Codex's `config` (the text of config.toml) has the `ask-popup` MCP server, however
/// it is written (`[mcp_servers.ask-popup]`, dotted keys, an inline table): read as `merge_codex`
/// reads it.
pub fn has_codex_table(config: &str) -> bool {
    config
        .parse::<toml_edit::DocumentMut>()
        .ok()
        .and_then(|doc| {
            doc.get("mcp_servers")
                .and_then(|servers| servers.get("ask-popup"))
                .map(|server| server.is_table_like())
        })
        .unwrap_or(false)
}

/// How long an MCP client should let the tool wait for the user, in seconds (Codex's
/// `tool_timeout_sec`; its default, 300 s, is shorter than a person may take). When it runs out
/// the client cancels the call, which withdraws the question from the popup.
pub const MCP_TOOL_TIMEOUT_S: u64 = 3600;

/// The variables the MCP server needs from the agent's environment to reach the popup: the
/// session it runs in, the pane to mark, and where Zellij keeps its sockets (`zellij pipe` looks
/// in `$ZELLIJ_SOCKET_DIR`, else `$XDG_RUNTIME_DIR/zellij`, else under `$TMPDIR`). Codex passes
/// a server none of the Zellij ones, nor `XDG_RUNTIME_DIR`, unless they are named.
pub const MCP_ENV_VARS: [&str; 6] = [
    "ZELLIJ",
    "ZELLIJ_SESSION_NAME",
    "ZELLIJ_PANE_ID",
    "ZELLIJ_SOCKET_DIR",
    "XDG_RUNTIME_DIR",
    "TMPDIR",
];

/// The `[mcp_servers.ask-popup]` table for `~/.codex/config.toml`, running `exe mcp`.
pub fn codex_snippet(exe: &str) -> String {
    let mut servers = toml_edit::Table::new();
    servers.set_implicit(true);
    servers.insert("ask-popup", toml_edit::Item::Table(codex_table(exe)));
    let mut doc = toml_edit::DocumentMut::new();
    doc.insert("mcp_servers", toml_edit::Item::Table(servers));
    doc.to_string()
}

/// The body of the `[mcp_servers.ask-popup]` table: the server's command line, the variables
/// it needs passed, and the tool's timeout.
fn codex_table(exe: &str) -> toml_edit::Table {
    let mut table = toml_edit::Table::new();
    // Merged into a file, the table goes where it always went: toml_edit orders a document's
    // tables by position, and this one had position 1 when it was parsed from the snippet to
    // be merged; and no blank line before its header, as parsed from there.
    table.set_position(Some(1));
    table.decor_mut().set_prefix("");
    table.insert("command", toml_edit::value(basic_string(exe)));
    table.insert(
        "args",
        toml_edit::value(toml_edit::Array::from_iter(["mcp"])),
    );
    table.insert(
        "env_vars",
        toml_edit::value(toml_edit::Array::from_iter(MCP_ENV_VARS)),
    );
    table.insert(
        "tool_timeout_sec",
        toml_edit::value(i64::try_from(MCP_TOOL_TIMEOUT_S).unwrap_or(i64::MAX)),
    );
    table
}

/// `text` as a TOML basic string (`"…"`), as the table has always written the command: left to
/// itself toml_edit writes a path with a quote or a backslash as a literal string (`'…'`).
fn basic_string(text: &str) -> toml_edit::Value {
    use toml_writer::ToTomlValue;
    let quoted = toml_writer::TomlStringBuilder::new(text)
        .as_basic()
        .to_toml_value();
    // The encoder's basic string always reads back; should it not, the path goes as toml_edit
    // writes it, which reads back too.
    quoted
        .parse::<toml_edit::Value>()
        .unwrap_or_else(|_| toml_edit::Value::from(text))
}

/// `existing` (the text of Codex's config.toml, empty when there is none) with the
/// `[mcp_servers.ask-popup]` table as `codex_snippet` writes it, everything else kept as it was.
/// None when the table is there as it should be. A table setup wrote for another path is
/// replaced; one of the user's own is left alone (`SetupError::NotOurs`).
pub fn merge_codex(existing: &str, exe: &str) -> Result<Option<String>, SetupError> {
    let mut doc: toml_edit::DocumentMut = existing
        .parse()
        .map_err(|e: toml_edit::TomlError| SetupError::NotToml(e.to_string()))?;
    let table = toml_edit::Item::Table(codex_table(exe));
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_mut()
        .ok_or(SetupError::Unexpected("mcp_servers"))?;
    if let Some(there) = servers.get("ask-popup") {
        if there.to_string() == table.to_string() {
            return Ok(None);
        }
        if !is_setups_codex_table(there) {
            return Err(SetupError::NotOurs("mcp_servers.ask-popup"));
        }
    }
    servers.insert("ask-popup", table);
    let mut text = doc.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(Some(text))
}

/// Whether an `[mcp_servers.ask-popup]` table is one setup wrote (of this version or another):
/// it runs an `ask-popup` executable with `mcp` and nothing else. Another (a wrapper of the
/// user's, a server of theirs that has the name) is the user's.
fn is_setups_codex_table(item: &toml_edit::Item) -> bool {
    let Some(table) = item.as_table_like() else {
        return false;
    };
    let command = table.get("command").and_then(toml_edit::Item::as_str);
    let args: Option<Vec<&str>> = table
        .get("args")
        .and_then(toml_edit::Item::as_array)
        .and_then(|args| args.iter().map(toml_edit::Value::as_str).collect());
    command.is_some_and(is_program) && args.as_deref() == Some(&["mcp"][..])
}

/// `existing` without the `[mcp_servers.ask-popup]` table setup wrote (`is_setups_codex_table`);
/// None when it has none.
pub fn remove_codex(existing: &str) -> Result<Option<String>, SetupError> {
    let mut doc: toml_edit::DocumentMut = existing
        .parse()
        .map_err(|e: toml_edit::TomlError| SetupError::NotToml(e.to_string()))?;
    let Some(servers) = doc.get_mut("mcp_servers").and_then(|s| s.as_table_mut()) else {
        return Ok(None);
    };
    if !servers.get("ask-popup").is_some_and(is_setups_codex_table) {
        return Ok(None);
    }
    servers.remove("ask-popup");
    if servers.is_empty() && servers.is_implicit() {
        doc.remove("mcp_servers");
    }
    Ok(Some(doc.to_string()))
}

/// `ask-popup setup codex [--write] [--remove]`.
pub fn setup_codex(write: bool, remove: bool, approvals: bool) -> i32 {
    let exe = crate::zellij::programs::exe();
    if !write && !remove {
        crate::terminal::print(&codex_snippet(&exe));
        let command = format!("{} codex-hook", shell_word(&exe));
        say_err!(
            "Then, in ~/.codex/hooks.json ($CODEX_HOME), the hook that asks Codex's own \
             request_user_input in the popup (trust it once in Codex's /hooks):"
        );
        crate::terminal::print(&CODEX_HOOK.snippet(&command));
        if approvals {
            let approval = format!("{} codex-approval", shell_word(&exe));
            say_err!("And the hook that asks Codex's permission prompts in the popup:");
            crate::terminal::print(&CODEX_APPROVAL_HOOK.snippet(&approval));
        }
        return 0;
    }
    codex_file(write, remove, approvals)
}

/// Codex's config.toml with the table merged in (or taken out).
pub fn codex_file(write: bool, remove: bool, approvals: bool) -> i32 {
    let exe = crate::zellij::programs::exe();
    let Some(path) = codex_config(|name| std::env::var(name).ok()) else {
        say_err!("ask-popup setup codex: HOME is not set");
        return 1;
    };
    // Codex's config can carry the MCP servers' keys (their `env`).
    let table = edit(&path, "codex", write, OWNER_ONLY, |text| {
        if remove {
            remove_codex(text)
        } else {
            merge_codex(text, &exe)
        }
        .map_err(|e| e.to_string())
    });
    let command = format!("{} codex-hook", shell_word(&exe));
    let approval = format!("{} codex-approval", shell_word(&exe));
    let hooks_path = path.with_file_name("hooks.json");
    let hook = edit(&hooks_path, "codex", write, OWNER_ONLY, |text| {
        edit_hooks(
            text,
            remove,
            &[(CODEX_HOOK, &command)],
            (approvals || remove).then_some((CODEX_APPROVAL_HOOK, approval.as_str())),
        )
    });
    if hook == 0 && write && !remove {
        say!(
            "Codex runs a new hook only once you trust it: in Codex, open /hooks and trust \
             ask-popup's request_user_input hook (until then Codex asks in its own dialog)."
        );
    }
    table.max(hook).max(skill("codex", write, remove))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codex_table_runs_the_server_with_the_sessions_variables_and_a_long_timeout() {
        assert_eq!(
            codex_snippet("/usr/local/bin/ask-popup"),
            "[mcp_servers.ask-popup]\n\
             command = \"/usr/local/bin/ask-popup\"\n\
             args = [\"mcp\"]\n\
             env_vars = [\"ZELLIJ\", \"ZELLIJ_SESSION_NAME\", \"ZELLIJ_PANE_ID\", \"ZELLIJ_SOCKET_DIR\", \"XDG_RUNTIME_DIR\", \"TMPDIR\"]\n\
             tool_timeout_sec = 3600\n"
        );
        // A path with a quote or a backslash stays one TOML string.
        assert!(codex_snippet(r#"/a "b"\c"#).contains(r#"command = "/a \"b\"\\c""#));
        // A control character (DEL is one TOML does not allow bare) is escaped, so the table
        // reads back and merges.
        let odd = merge_codex("", "/a\u{7f}b").unwrap().unwrap();
        assert!(odd.contains(r#"command = "/a\u007Fb""#), "{odd}");
        assert_eq!(merge_codex(&odd, "/a\u{7f}b").unwrap(), None);
    }

    #[test]
    fn the_codex_table_is_merged_keeping_the_rest_and_taken_out_again() {
        let original = "# my codex\nmodel = \"o4\"   # fast\n\n[mcp_servers.other]\ncommand = \"x\"\n\n[profiles.work]\nmodel = \"o3\"\n";
        let merged = merge_codex(original, "/bin/ask-popup").unwrap().unwrap();
        assert!(
            merged.starts_with("# my codex\nmodel = \"o4\"   # fast\n"),
            "{merged}"
        );
        assert!(
            merged.contains("[mcp_servers.other]\ncommand = \"x\"\n"),
            "{merged}"
        );
        assert!(
            merged.contains(&codex_snippet("/bin/ask-popup")),
            "{merged}"
        );
        assert!(has_codex_table(&merged));
        // However the table is written, and not where a line only looks like it.
        assert!(has_codex_table(
            "mcp_servers.ask-popup = { command = \"x\" }\n"
        ));
        assert!(has_codex_table(
            "[mcp_servers]\n\"ask-popup\".command = \"x\"\n"
        ));
        assert!(!has_codex_table(
            "notes = \"\"\"\n[mcp_servers.ask-popup]\n\"\"\"\n"
        ));
        assert!(!has_codex_table("[mcp_servers.ask-popup\n"));
        assert_eq!(merge_codex(&merged, "/bin/ask-popup").unwrap(), None);
        assert_eq!(remove_codex(&merged).unwrap().as_deref(), Some(original));
        assert_eq!(remove_codex(original).unwrap(), None);
    }

    #[test]
    fn a_codex_server_of_the_users_own_that_has_the_name_is_left_alone() {
        let theirs = "[mcp_servers.ask-popup]\ncommand = \"/home/me/bin/audit-wrapper\"\nargs = [\"ask-popup\", \"mcp\"]\n";
        assert_eq!(
            merge_codex(theirs, "/bin/ask-popup"),
            Err(SetupError::NotOurs("mcp_servers.ask-popup"))
        );
        assert_eq!(remove_codex(theirs), Ok(None));
        // One setup wrote for another path is replaced, and goes.
        let older =
            "model = \"o4\"\n[mcp_servers.ask-popup]\ncommand = \"/old/ask-popup\"\nargs = [\"mcp\"]\n";
        let merged = merge_codex(older, "/bin/ask-popup").unwrap().unwrap();
        assert!(merged.contains("command = \"/bin/ask-popup\""), "{merged}");
        assert_eq!(
            remove_codex(older).unwrap().as_deref(),
            Some("model = \"o4\"\n")
        );
    }

    #[test]
    fn a_fresh_codex_config_gets_the_table_alone() {
        let merged = merge_codex("", "/bin/ask-popup").unwrap().unwrap();
        assert_eq!(merged, codex_snippet("/bin/ask-popup"));
        assert_eq!(remove_codex(&merged).unwrap().as_deref(), Some(""));
        assert!(matches!(
            merge_codex("[x", "e"),
            Err(SetupError::NotToml(_))
        ));
    }
}
