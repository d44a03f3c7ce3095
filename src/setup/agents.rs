//! `ask-popup setup`: the configuration that wires an agent to the popup, printed for the user to
//! paste or merged into the agent's settings file without touching anything else there.

use super::json_document::{self, Member};
use serde_json::{json, Value};

/// How long Claude Code lets the hook wait for the user, in seconds. When it runs out, Claude
/// Code stops the hook, which withdraws the question from the popup, and its own dialog asks.
pub const CLAUDE_HOOK_TIMEOUT_S: u64 = 3600;

/// Why the settings file was left alone.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SetupError {
    #[error("it is not valid JSON ({0}); fix or move it, then run this again")]
    NotJson(String),
    #[error(
        "`{0}` in it is not of the kind the agent expects (an object, a list or a table); add the entry by hand"
    )]
    Unexpected(&'static str),
    #[error("it is not valid TOML ({0}); fix or move it, then run this again")]
    NotToml(String),
    #[error("it is not valid JSON with comments ({0}); fix or move it, then run this again")]
    NotJsonc(String),
    #[error(
        "`{0}` in it is not one setup wrote (it does not run an `ask-popup` executable with `mcp`): left it alone; rename or take it out, then run this again"
    )]
    NotOurs(&'static str),
    #[error(
        "the entry cannot go into it so that `--remove` gives the file back byte for byte (an empty `mcp` or root object would go with it); add it by hand:\n{0}"
    )]
    NotReversible(String),
}

/// A `PreToolUse` hook this command installs: the agent's tool it matches and the subcommand
/// that answers it. Claude Code's settings.json and Codex's hooks.json hold it the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hook {
    /// The hook event (`PreToolUse`, `PermissionRequest`).
    pub event: &'static str,
    pub matcher: &'static str,
    pub subcommand: &'static str,
}

/// Claude Code's `AskUserQuestion`, answered by `ask-popup claude-hook`.
pub const CLAUDE_HOOK: Hook = Hook {
    event: "PreToolUse",
    matcher: crate::hooks::claude::TOOL,
    subcommand: "claude-hook",
};
/// Claude Code's permission prompts (every tool's), asked by `ask-popup claude-approval`: what
/// `setup claude --approvals` adds.
pub const CLAUDE_APPROVAL_HOOK: Hook = Hook {
    event: "PermissionRequest",
    matcher: "*",
    subcommand: "claude-approval",
};
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

impl Hook {
    /// The `hooks.<event>` entry that sends the agent's tool to the popup through `command`.
    pub fn entry(self, command: &str) -> Value {
        json!({
            "matcher": self.matcher,
            "hooks": [{
                "type": "command",
                "command": command,
                "timeout": CLAUDE_HOOK_TIMEOUT_S,
            }]
        })
    }

    /// The file's text with only this hook, to paste.
    pub fn snippet(self, command: &str) -> String {
        let settings = json!({ "hooks": { self.event: [self.entry(command)] } });
        format!("{}\n", pretty(&settings))
    }

    /// `existing` (empty when there is no file yet) with the hook in: an entry of ours (one
    /// setup wrote, `is_ours`) that runs another command is replaced, any other entry left as
    /// it is, and every byte of the file outside the entry kept. Returns the new text, or `None`
    /// when the hook is already there as it should be.
    pub fn merge(self, existing: &str, command: &str) -> Result<Option<String>, SetupError> {
        if existing.trim().is_empty() {
            return Ok(Some(self.snippet(command)));
        }
        let settings = json_document::value(existing)?;
        let root = settings
            .as_object()
            .ok_or(SetupError::Unexpected("the file"))?;
        let entries = match root.get("hooks") {
            None => None,
            Some(hooks) => match hooks
                .as_object()
                .ok_or(SetupError::Unexpected("hooks"))?
                .get(self.event)
            {
                None => None,
                Some(entries) => Some(
                    entries
                        .as_array()
                        .ok_or(SetupError::Unexpected(self.path()))?,
                ),
            },
        };
        let entry = self.entry(command);
        if entries.is_some_and(|entries| entries.contains(&entry)) {
            return Ok(None);
        }
        let without_ours = self.remove(existing)?;
        let base = without_ours.as_deref().unwrap_or(existing);
        json_document::put_in(
            base,
            &[("hooks", "hooks"), (self.event, self.path())],
            &Member::Element(entry),
            |text| self.remove(text),
        )
        .map(Some)
    }

    /// `existing` without this hook (every entry of ours, `is_ours`), and without the event's
    /// list or `hooks` when nothing else is left in them; every other byte as it was. None when
    /// it has none.
    pub fn remove(self, existing: &str) -> Result<Option<String>, SetupError> {
        json_document::take_out(existing, &["hooks", self.event], |_, entry| {
            self.is_ours(entry)
        })
    }

    /// Whether `settings` (the file's text) send the tool to this command's hook.
    pub fn is_in(self, settings: &str) -> bool {
        serde_json::from_str::<Value>(settings).is_ok_and(|settings| {
            settings
                .pointer(&format!("/hooks/{}", self.event))
                .and_then(Value::as_array)
                .is_some_and(|entries| entries.iter().any(|e| self.is_ours(e)))
        })
    }

    /// Where its entries are, as an error names it.
    fn path(self) -> &'static str {
        match self.event {
            "PermissionRequest" => "hooks.PermissionRequest",
            _ => "hooks.PreToolUse",
        }
    }

    /// Whether an entry of its event is one setup wrote: its matcher, and its only hook's
    /// command an `ask-popup` executable and the subcommand, as setup writes it
    /// (`runs_subcommand`). A user's own hook that only ends in the subcommand (a wrapper, a
    /// logger) is theirs.
    fn is_ours(self, entry: &Value) -> bool {
        let hooks = entry.get("hooks").and_then(Value::as_array);
        entry.get("matcher").and_then(Value::as_str) == Some(self.matcher)
            && hooks.is_some_and(|hooks| match hooks.as_slice() {
                [hook] => hook
                    .get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|command| runs_subcommand(command, self.subcommand)),
                _ => false,
            })
    }
}

/// The file name of the command setup wires the agents to.
pub const PROGRAM: &str = "ask-popup";

/// Whether `path` names an `ask-popup` executable (its last part is `ask-popup`).
pub fn is_program(path: &str) -> bool {
    path.rsplit('/').next() == Some(PROGRAM)
}

/// Whether a hook's `command` is exactly what setup writes to run `subcommand`: the path of an
/// `ask-popup` executable as one shell word (`shell_word`), a space and the subcommand, nothing
/// more. Setup wrote it; any other command line (a wrapper that passes the subcommand on, an
/// `ask-popup` with more arguments, a path quoted otherwise) is the user's.
pub fn runs_subcommand(command: &str, subcommand: &str) -> bool {
    let Some(program) = command
        .strip_suffix(subcommand)
        .and_then(|rest| rest.strip_suffix(' '))
    else {
        return false;
    };
    let path = match program
        .strip_prefix('\'')
        .and_then(|quoted| quoted.strip_suffix('\''))
    {
        Some(quoted) => quoted.replace("'\\''", "'"),
        None => program.to_owned(),
    };
    shell_word(&path) == program && is_program(&path)
}

/// The `hooks.PreToolUse` entry that sends Claude Code's `AskUserQuestion` to the popup.
pub fn claude_hook_entry(command: &str) -> Value {
    CLAUDE_HOOK.entry(command)
}

/// The settings snippet to paste into `~/.claude/settings.json`.
pub fn claude_snippet(command: &str) -> String {
    CLAUDE_HOOK.snippet(command)
}

/// `existing` Claude Code settings (empty when there is no file yet) with the hook in.
pub fn merge_claude(existing: &str, command: &str) -> Result<Option<String>, SetupError> {
    CLAUDE_HOOK.merge(existing, command)
}

/// `existing` Claude Code settings without this command's hook; None when it has none.
pub fn remove_claude(existing: &str) -> Result<Option<String>, SetupError> {
    CLAUDE_HOOK.remove(existing)
}

/// The Pi extension (`integrations/pi`), carried by the command so that `setup pi --write` can
/// install it where Pi finds it on its own: `(path in the extension's dir, text)`.
pub const PI_EXTENSION: [(&str, &str); 12] = [
    (
        "package.json",
        include_str!("../../integrations/pi/package.json"),
    ),
    ("README.md", include_str!("../../integrations/pi/README.md")),
    (
        "src/index.ts",
        include_str!("../../integrations/pi/src/index.ts"),
    ),
    (
        "src/command.ts",
        include_str!("../../integrations/pi/src/command.ts"),
    ),
    (
        "src/config.ts",
        include_str!("../../integrations/pi/src/config.ts"),
    ),
    (
        "src/envelope.ts",
        include_str!("../../integrations/pi/src/envelope.ts"),
    ),
    (
        "src/events.ts",
        include_str!("../../integrations/pi/src/events.ts"),
    ),
    (
        "src/fallback.ts",
        include_str!("../../integrations/pi/src/fallback.ts"),
    ),
    (
        "src/questionnaire.ts",
        include_str!("../../integrations/pi/src/questionnaire.ts"),
    ),
    (
        "src/schema.ts",
        include_str!("../../integrations/pi/src/schema.ts"),
    ),
    (
        "src/shared.ts",
        include_str!("../../integrations/pi/src/shared.ts"),
    ),
    (
        "src/shared.json",
        include_str!("../../integrations/pi/src/shared.json"),
    ),
];
/// The extension's directory under Pi's `extensions/`.
pub const PI_EXTENSION_DIR: &str = "ask-popup";

/// The Pi extension's npm package (`integrations/pi/package.json`'s name).
pub const PI_PACKAGE: &str = "pi-ask-popup";

/// The Pi package source in Pi's `settings` (the text of its settings.json) that loads this
/// extension, as `pi install` adds it: `npm:pi-ask-popup`, pinned (`npm:pi-ask-popup@0.1.0`,
/// `npm:pi-ask-popup@file:…tgz`) or not, or a local path to the package (a folder named
/// pi-ask-popup, or integrations/pi in a clone). None: Pi loads no such package.
pub fn pi_package_source(settings: &str) -> Option<String> {
    let settings: Value = serde_json::from_str(settings).ok()?;
    let packages = settings.get("packages")?.as_array()?;
    packages
        .iter()
        .filter_map(|p| p.as_str().or_else(|| p.get("source")?.as_str()))
        .find(|source| is_this_package(source))
        .map(str::to_owned)
}

fn is_this_package(source: &str) -> bool {
    if let Some(spec) = source.strip_prefix("npm:") {
        let name = spec.split_once('@').map_or(spec, |(name, _)| name);
        return name.trim() == PI_PACKAGE;
    }
    let path = source.trim_end_matches('/');
    path.ends_with(&format!("/{PI_PACKAGE}")) || path.ends_with("integrations/pi")
}

/// The version a package source pins (`npm:pi-ask-popup@0.1.0`), when it names one.
pub fn pinned_version(source: &str) -> Option<&str> {
    let (_, version) = source.strip_prefix("npm:")?.split_once('@')?;
    let plain = version.split('.').count() == 3
        && version
            .split('.')
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    plain.then_some(version)
}

/// Pi's agent dir, as Pi finds it: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
pub fn pi_agent_dir(env: impl Fn(&str) -> Option<String>) -> Option<std::path::PathBuf> {
    if let Some(dir) = env("PI_CODING_AGENT_DIR").filter(|d| !d.is_empty()) {
        return Some(dir.into());
    }
    env("HOME")
        .filter(|h| !h.is_empty())
        .map(|home| std::path::Path::new(&home).join(".pi").join("agent"))
}

/// The skill that tells an agent when to ask and how (the Agent Skills format), installed into
/// each agent's skill folder by setup and shipped with the Pi package.
pub const SKILL: &str = include_str!("../../integrations/pi/skills/ask-user/SKILL.md");

/// The skill's name: its folder's, and its front matter's.
pub const SKILL_NAME: &str = "ask-user";

/// The folder the skill goes into for `agent` (`claude`, `codex`, `pi` or `opencode`): the
/// agent's own skill folder (`~/.claude/skills`, `$CODEX_HOME/skills`, Pi's
/// `~/.pi/agent/skills`, opencode's `~/.config/opencode/skills`), then `ask-user`.
pub fn skill_dir(agent: &str, env: impl Fn(&str) -> Option<String>) -> Option<std::path::PathBuf> {
    let skills = match agent {
        "claude" => std::path::Path::new(&env("HOME").filter(|h| !h.is_empty())?)
            .join(".claude")
            .join("skills"),
        "codex" => codex_config(&env)?.parent()?.join("skills"),
        "pi" => pi_agent_dir(&env)?.join("skills"),
        "opencode" => super::opencode::config_dir(&env)?.join("skills"),
        _ => return None,
    };
    Some(skills.join(SKILL_NAME))
}

/// Codex's config.toml: `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`.
pub fn codex_config(env: impl Fn(&str) -> Option<String>) -> Option<std::path::PathBuf> {
    if let Some(dir) = env("CODEX_HOME").filter(|d| !d.is_empty()) {
        return Some(std::path::Path::new(&dir).join("config.toml"));
    }
    env("HOME").filter(|h| !h.is_empty()).map(|home| {
        std::path::Path::new(&home)
            .join(".codex")
            .join("config.toml")
    })
}

/// Whether Claude Code's `settings` (the text of settings.json) send AskUserQuestion to this
/// command's hook.
pub fn has_claude_hook(settings: &str) -> bool {
    CLAUDE_HOOK.is_in(settings)
}

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

/// The variable of Claude Code's own environment, and its value, that keeps an MCP call in
/// the foreground however long it runs. Claude Code 2.1.212 and later move an MCP tool call that
/// runs past 2 minutes to the background (its model goes on without the answer, told the result
/// may come later or be lost); 0 turns that off (Claude Code 2.1.332 reads it as the limit in
/// milliseconds, 0 for none). A person may take longer than 2 minutes to answer.
pub const CLAUDE_MCP_ENV: (&str, &str) = ("CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS", "0");

/// Claude Code's `existing` settings with `CLAUDE_MCP_ENV` in their `env`, every other byte of
/// the file kept; None when it is there already.
pub fn merge_claude_mcp_env(existing: &str) -> Result<Option<String>, SetupError> {
    let (name, value) = CLAUDE_MCP_ENV;
    if existing.trim().is_empty() {
        let settings = json!({ "env": { name: value } });
        return Ok(Some(format!("{}\n", pretty(&settings))));
    }
    let settings = json_document::value(existing)?;
    let root = settings
        .as_object()
        .ok_or(SetupError::Unexpected("the file"))?;
    if let Some(env) = root.get("env") {
        let env = env.as_object().ok_or(SetupError::Unexpected("env"))?;
        if env.get(name).and_then(Value::as_str) == Some(value) {
            return Ok(None);
        }
    }
    json_document::put_in(
        existing,
        &[("env", "env")],
        &Member::Property(name, Value::from(value)),
        remove_claude_mcp_env,
    )
    .map(Some)
}

/// Claude Code's `existing` settings without `CLAUDE_MCP_ENV` (as setup wrote it: another
/// value is the user's, and stays), and without `env` when nothing else is left in it; None
/// when it is not there.
pub fn remove_claude_mcp_env(existing: &str) -> Result<Option<String>, SetupError> {
    let (name, value) = CLAUDE_MCP_ENV;
    json_document::take_out(existing, &["env"], |key, v| {
        key == Some(name) && v.as_str() == Some(value)
    })
}

/// The command line that adds the MCP server to Claude Code for every project of the user.
pub fn claude_mcp_line(exe: &str) -> String {
    format!(
        "claude mcp add --scope user ask-popup -- {} mcp\n",
        shell_word(exe)
    )
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A path as one word of a shell command line (Claude Code runs hooks through a shell).
pub fn shell_word(path: &str) -> String {
    if !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c))
    {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOOK: &str = "/usr/local/bin/ask-popup claude-hook";

    #[test]
    fn the_snippet_is_the_pre_tool_use_entry_for_ask_user_question() {
        assert_eq!(
            claude_snippet(HOOK),
            r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "AskUserQuestion",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/ask-popup claude-hook",
            "timeout": 3600
          }
        ]
      }
    ]
  }
}
"#
        );
    }

    #[test]
    fn merging_adds_the_hook_and_keeps_everything_else_in_its_order() {
        let existing = r#"{"model":"opus","permissions":{"allow":["Bash(ls)"]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"audit"}]}],"Stop":[]},"env":{"A":"1"}}"#;
        let merged = merge_claude(existing, HOOK).unwrap().expect("changed");
        let value: Value = serde_json::from_str(&merged).unwrap();
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "permissions", "hooks", "env"]);
        assert_eq!(
            value["hooks"]["PreToolUse"],
            json!([
                {"matcher":"Bash","hooks":[{"type":"command","command":"audit"}]},
                claude_hook_entry(HOOK),
            ])
        );
        assert_eq!(value["hooks"]["Stop"], json!([]));
        assert_eq!(value["permissions"], json!({"allow":["Bash(ls)"]}));
    }

    #[test]
    fn merging_again_changes_nothing_and_a_moved_command_replaces_ours() {
        let once = merge_claude("", HOOK).unwrap().expect("a new file");
        assert_eq!(once, claude_snippet(HOOK));
        assert_eq!(merge_claude(&once, HOOK), Ok(None));
        let moved = merge_claude(&once, "/opt/ask-popup claude-hook")
            .unwrap()
            .expect("changed");
        let value: Value = serde_json::from_str(&moved).unwrap();
        assert_eq!(
            value["hooks"]["PreToolUse"],
            json!([claude_hook_entry("/opt/ask-popup claude-hook")])
        );
    }

    #[test]
    fn a_file_it_cannot_read_as_settings_is_refused() {
        assert!(matches!(
            merge_claude("{ not json", HOOK),
            Err(SetupError::NotJson(_))
        ));
        assert_eq!(
            merge_claude("[]", HOOK),
            Err(SetupError::Unexpected("the file"))
        );
        assert_eq!(
            merge_claude(r#"{"hooks":[]}"#, HOOK),
            Err(SetupError::Unexpected("hooks"))
        );
        assert_eq!(
            merge_claude(r#"{"hooks":{"PreToolUse":{}}}"#, HOOK),
            Err(SetupError::Unexpected("hooks.PreToolUse"))
        );
    }

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
    fn the_approvals_hook_goes_beside_the_question_hook_and_out_again() {
        let approval = "/bin/ask-popup claude-approval";
        let with_hook = merge_claude(r#"{"model":"opus"}"#, HOOK).unwrap().unwrap();
        let both = CLAUDE_APPROVAL_HOOK
            .merge(&with_hook, approval)
            .unwrap()
            .expect("changed");
        assert!(CLAUDE_HOOK.is_in(&both) && CLAUDE_APPROVAL_HOOK.is_in(&both));
        let value: Value = serde_json::from_str(&both).unwrap();
        assert_eq!(
            value["hooks"]["PermissionRequest"][0],
            json!({"matcher": "*", "hooks": [{"type": "command", "command": approval,
                "timeout": CLAUDE_HOOK_TIMEOUT_S}]})
        );
        assert_eq!(CLAUDE_APPROVAL_HOOK.merge(&both, approval).unwrap(), None);
        let out = CLAUDE_APPROVAL_HOOK
            .remove(&both)
            .unwrap()
            .expect("changed");
        assert!(CLAUDE_HOOK.is_in(&out) && !CLAUDE_APPROVAL_HOOK.is_in(&out));
        assert_eq!(out, with_hook);
        assert_eq!(
            CLAUDE_APPROVAL_HOOK.merge(r#"{"hooks":{"PermissionRequest":{}}}"#, approval),
            Err(SetupError::Unexpected("hooks.PermissionRequest"))
        );
    }

    #[test]
    fn codexs_hook_goes_into_hooks_json_beside_others_and_out_again() {
        let theirs = r#"{"hooks":{"PreToolUse":[{"matcher":"shell","hooks":[{"type":"command","command":"audit"}]}]}}"#;
        let command = "/bin/ask-popup codex-hook";
        let merged = CODEX_HOOK.merge(theirs, command).unwrap().expect("changed");
        assert!(CODEX_HOOK.is_in(&merged));
        assert!(!CLAUDE_HOOK.is_in(&merged));
        let value: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(value["hooks"]["PreToolUse"][0]["matcher"], "shell");
        assert_eq!(
            value["hooks"]["PreToolUse"][1],
            CODEX_HOOK.entry(command),
            "{merged}"
        );
        assert_eq!(
            value["hooks"]["PreToolUse"][1]["matcher"],
            "request_user_input"
        );
        assert_eq!(CODEX_HOOK.merge(&merged, command), Ok(None));
        let removed = CODEX_HOOK.remove(&merged).unwrap().expect("removed");
        assert!(!CODEX_HOOK.is_in(&removed));
        assert_eq!(
            serde_json::from_str::<Value>(&removed).unwrap(),
            serde_json::from_str::<Value>(theirs).unwrap()
        );
        // Claude Code's hook is not Codex's, nor the other way round.
        assert_eq!(CODEX_HOOK.remove(&claude_snippet(HOOK)), Ok(None));
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
    fn only_a_command_line_setup_writes_is_ours() {
        for (command, ours) in [
            ("/usr/local/bin/ask-popup claude-approval", true),
            ("ask-popup claude-approval", true),
            ("'/home/a b/ask-popup' claude-approval", true),
            ("'/it'\\''s/ask-popup' claude-approval", true),
            // A user's own: a wrapper, more arguments, another program, another layout.
            ("/home/me/bin/audit-wrapper claude-approval", false),
            ("my-tool --log x claude-approval", false),
            (
                "/home/me/bin/audit-wrapper /usr/bin/ask-popup claude-approval",
                false,
            ),
            ("/usr/bin/ask-popup --verbose claude-approval", false),
            ("/usr/bin/ask-popup claude-approval --log x", false),
            ("/usr/bin/ask-popup claude-approval ", false),
            ("/usr/bin/ask-popup  claude-approval", false),
            ("/usr/bin/ask-popup claude-hook", false),
            ("/usr/bin/not-ask-popup claude-approval", false),
            ("/usr/bin/ask-popup/ claude-approval", false),
            ("'/usr/bin/ask-popup' claude-approval", false),
            ("\"/usr/bin/ask-popup\" claude-approval", false),
            ("$(curl x)/ask-popup claude-approval", false),
            ("x; /usr/bin/ask-popup claude-approval", false),
            ("'a' 'b/ask-popup' claude-approval", false),
            (" claude-approval", false),
            ("claude-approval", false),
        ] {
            assert_eq!(
                runs_subcommand(command, "claude-approval"),
                ours,
                "{command:?}"
            );
        }
    }

    /// A user's own hooks whose command only ends in a subcommand of ours, for each hook.
    fn wrappers(hook: Hook) -> String {
        format!(
            r#"{{"hooks": {{"{event}": [
    {{"matcher": "{matcher}", "hooks": [{{"type": "command", "command": "/home/me/bin/audit-wrapper {sub}"}}]}},
    {{"matcher": "{matcher}", "hooks": [{{"type": "command", "command": "my-tool --log x {sub}", "timeout": 3600}}]}}
  ]}}}}
"#,
            event = hook.event,
            matcher = hook.matcher,
            sub = hook.subcommand,
        )
    }

    #[test]
    fn a_users_own_hook_that_ends_in_our_subcommand_stays_through_merge_and_remove() {
        for hook in [
            CLAUDE_HOOK,
            CLAUDE_APPROVAL_HOOK,
            CODEX_HOOK,
            CODEX_APPROVAL_HOOK,
        ] {
            let theirs = wrappers(hook);
            assert!(!hook.is_in(&theirs), "{theirs}");
            assert_eq!(hook.remove(&theirs), Ok(None), "{theirs}");
            let command = format!("/usr/bin/ask-popup {}", hook.subcommand);
            let merged = hook.merge(&theirs, &command).unwrap().expect("changed");
            let value: Value = serde_json::from_str(&merged).unwrap();
            let entries = value["hooks"][hook.event].as_array().unwrap();
            assert_eq!(entries.len(), 3, "{merged}");
            assert_eq!(entries[2], hook.entry(&command), "{merged}");
            assert_eq!(
                hook.remove(&merged).unwrap().as_deref(),
                Some(theirs.as_str()),
                "{merged}"
            );
        }
    }

    /// Settings as users write them, numbers serde_json would write anew and odd spacing
    /// among them.
    const ODD: [&str; 6] = [
        "{\"n\":1e2,\"big\":123456789012345678901234567890,\"u\":12345678901234567890}",
        "{\n  \"n\" :  1e2 ,\n\t\"big\":   123456789012345678901234567890,\n  \"f\": 1.50\n}\n",
        "{ \"hooks\" : { \"Stop\" : [ ] } , \"x\" : -0.0e-0 }\n",
        "{\r\n    \"hooks\": {\r\n        \"PreToolUse\": [\r\n            {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit 1e2\", \"timeout\": 1E3}]}\r\n        ]\r\n    }\r\n}\r\n",
        "{\"hooks\":{\"PermissionRequest\":[{\"matcher\":\"*\",\"hooks\":[{\"type\":\"command\",\"command\":\"/x/wrap claude-approval\"}]}]},\"n\":1e2}",
        "{}",
    ];

    #[test]
    fn the_users_text_is_kept_byte_for_byte_through_merge_and_remove() {
        for original in ODD {
            for hook in [CLAUDE_HOOK, CLAUDE_APPROVAL_HOOK, CODEX_APPROVAL_HOOK] {
                let command = format!("/usr/bin/ask-popup {}", hook.subcommand);
                let merged = hook
                    .merge(original, &command)
                    .unwrap_or_else(|e| panic!("{original}: {e}"))
                    .expect("changed");
                assert!(hook.is_in(&merged), "{merged}");
                assert_eq!(hook.merge(&merged, &command), Ok(None), "{merged}");
                assert_eq!(
                    hook.remove(&merged).unwrap().as_deref(),
                    Some(original),
                    "{merged}"
                );
                // What was written is still there as written.
                for kept in [
                    "1e2",
                    "123456789012345678901234567890",
                    "1.50",
                    "-0.0e-0",
                    "1E3",
                ] {
                    assert_eq!(
                        original.matches(kept).count(),
                        merged.matches(kept).count(),
                        "{kept} in {merged}"
                    );
                }
                // Moved: the entry of another path replaced, the rest as before.
                let moved = hook
                    .merge(&merged, &format!("/opt/ask-popup {}", hook.subcommand))
                    .unwrap()
                    .expect("changed");
                assert_eq!(
                    hook.remove(&moved).unwrap().as_deref(),
                    Some(original),
                    "{moved}"
                );
            }
            let with_env = merge_claude_mcp_env(original).unwrap().expect("changed");
            assert_eq!(
                remove_claude_mcp_env(&with_env).unwrap().as_deref(),
                Some(original),
                "{with_env}"
            );
        }
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
    fn the_claude_hook_is_taken_out_leaving_the_rest() {
        let mine = r#"{"model": "opus", "hooks": {"Stop": []}}"#;
        let merged = merge_claude(mine, "/x/ask-popup claude-hook")
            .unwrap()
            .unwrap();
        assert!(has_claude_hook(&merged));
        let removed = remove_claude(&merged).unwrap().unwrap();
        assert!(!has_claude_hook(&removed));
        let removed: Value = serde_json::from_str(&removed).unwrap();
        assert_eq!(removed, serde_json::from_str::<Value>(mine).unwrap());
        assert_eq!(remove_claude(mine).unwrap(), None);
        let alone = merge_claude("", "/x/ask-popup claude-hook")
            .unwrap()
            .unwrap();
        assert_eq!(remove_claude(&alone).unwrap().as_deref(), Some("{}\n"));
    }

    #[test]
    fn the_skill_goes_into_each_agents_own_skill_folder() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let home = env(&[("HOME", "/h")]);
        let dir = |agent| skill_dir(agent, home).map(|d| d.display().to_string());
        assert_eq!(dir("claude").as_deref(), Some("/h/.claude/skills/ask-user"));
        assert_eq!(dir("codex").as_deref(), Some("/h/.codex/skills/ask-user"));
        assert_eq!(dir("pi").as_deref(), Some("/h/.pi/agent/skills/ask-user"));
        assert_eq!(
            dir("opencode").as_deref(),
            Some("/h/.config/opencode/skills/ask-user")
        );
        assert_eq!(dir("other"), None);
        let set = env(&[
            ("HOME", "/h"),
            ("CODEX_HOME", "/c"),
            ("PI_CODING_AGENT_DIR", "/p"),
            ("XDG_CONFIG_HOME", "/x"),
        ]);
        let dir = |agent| skill_dir(agent, set).map(|d| d.display().to_string());
        assert_eq!(dir("codex").as_deref(), Some("/c/skills/ask-user"));
        assert_eq!(dir("pi").as_deref(), Some("/p/skills/ask-user"));
        assert_eq!(
            dir("opencode").as_deref(),
            Some("/x/opencode/skills/ask-user")
        );
        assert_eq!(skill_dir("claude", env(&[])), None);
    }

    #[test]
    fn the_skill_is_in_the_agent_skills_format() {
        // Front matter between `---` lines: a name that is its folder's, and a description
        // within the format's 1,024 characters.
        let mut parts = SKILL.splitn(3, "---\n");
        assert_eq!(parts.next(), Some(""));
        let front = parts.next().expect("front matter");
        let name = front.lines().find_map(|l| l.strip_prefix("name: "));
        assert_eq!(name, Some(SKILL_NAME));
        let description = front
            .lines()
            .find_map(|l| l.strip_prefix("description: "))
            .expect("a description");
        assert!(!description.is_empty() && description.chars().count() <= 1024);
        assert!(description.contains("ask_user_question"));
        assert!(parts
            .next()
            .is_some_and(|body| body.contains("(Recommended)")));
    }

    #[test]
    fn the_pi_extension_carries_every_file_of_integrations_pi() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/pi/src");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| format!("src/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        on_disk.sort();
        let mut carried: Vec<String> = PI_EXTENSION
            .iter()
            .map(|(path, _)| path.to_string())
            .filter(|p| p.starts_with("src/"))
            .collect();
        carried.sort();
        assert_eq!(carried, on_disk);
    }

    #[test]
    fn a_pi_package_of_the_extension_is_found_in_pis_settings() {
        let settings = |packages: &str| format!(r#"{{"theme": "dark", "packages": {packages}}}"#);
        for (packages, found) in [
            (r#"["npm:pi-ask-popup"]"#, Some("npm:pi-ask-popup")),
            (
                r#"["npm:other", "npm:pi-ask-popup@0.1.0"]"#,
                Some("npm:pi-ask-popup@0.1.0"),
            ),
            (
                r#"["npm:pi-ask-popup@file:/tmp/pi-ask-popup-0.1.0.tgz"]"#,
                Some("npm:pi-ask-popup@file:/tmp/pi-ask-popup-0.1.0.tgz"),
            ),
            (
                r#"[{"source": "/src/ask-popup/integrations/pi", "skills": []}]"#,
                Some("/src/ask-popup/integrations/pi"),
            ),
            (r#"["npm:pi-ask-popup-fork", "npm:@x/pi-ask-popup"]"#, None),
            ("[]", None),
        ] {
            assert_eq!(
                pi_package_source(&settings(packages)).as_deref(),
                found,
                "{packages}"
            );
        }
        assert_eq!(pi_package_source(r#"{"theme": "dark"}"#), None);
        assert_eq!(pi_package_source("not json"), None);
        assert_eq!(pinned_version("npm:pi-ask-popup@0.1.0"), Some("0.1.0"));
        assert_eq!(pinned_version("npm:pi-ask-popup@file:/x.tgz"), None);
        assert_eq!(pinned_version("npm:pi-ask-popup"), None);
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

    #[test]
    fn the_claude_mcp_line_adds_the_server_for_the_user() {
        assert_eq!(
            claude_mcp_line("/home/a b/ask-popup"),
            "claude mcp add --scope user ask-popup -- '/home/a b/ask-popup' mcp\n"
        );
    }

    #[test]
    fn paths_become_one_shell_word() {
        assert_eq!(shell_word("/usr/bin/ask-popup"), "/usr/bin/ask-popup");
        assert_eq!(shell_word("/home/a b/ask-popup"), "'/home/a b/ask-popup'");
        assert_eq!(shell_word("/it's"), "'/it'\\''s'");
    }
}
