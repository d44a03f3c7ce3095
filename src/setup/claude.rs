//! `ask-popup setup claude` and `setup claude-mcp`: the hooks that send Claude Code's
//! `AskUserQuestion` and MCP servers' forms (and, with `--approvals`, its permission prompts)
//! to the popup, merged into `~/.claude/settings.json`, and the settings that keep its MCP calls in the foreground.

use super::error::SetupError;
use super::files::{edit, home};
use super::hook::{edit_hooks, pretty, shell_word, Hook};
use super::json_document::{self, Member};
use super::skill::skill;
use ask_popup_protocol::atomic_file::OWNER_ONLY;
use serde_json::{json, Value};

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

/// MCP servers' forms (elicitation, every server's), asked by `ask-popup claude-elicitation`:
/// questions like `AskUserQuestion`'s, so `setup claude` always adds it.
pub const CLAUDE_ELICITATION_HOOK: Hook = Hook {
    event: "Elicitation",
    matcher: "*",
    subcommand: "claude-elicitation",
};

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

/// Whether Claude Code's `settings` (the text of settings.json) send AskUserQuestion to this
/// command's hook.
pub fn has_claude_hook(settings: &str) -> bool {
    CLAUDE_HOOK.is_in(settings)
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

/// `ask-popup setup claude [--approvals] [--write] [--remove]`.
pub fn setup_claude(write: bool, remove: bool, approvals: bool) -> i32 {
    let command = format!(
        "{} claude-hook",
        shell_word(&crate::zellij::programs::exe())
    );
    if !write && !remove {
        let elicitation = format!(
            "{} claude-elicitation",
            shell_word(&crate::zellij::programs::exe())
        );
        let snippet = json!({ "hooks": {
            CLAUDE_HOOK.event: [CLAUDE_HOOK.entry(&command)],
            CLAUDE_ELICITATION_HOOK.event: [CLAUDE_ELICITATION_HOOK.entry(&elicitation)],
        }});
        crate::terminal::print(&format!("{}\n", pretty(&snippet)));
        if approvals {
            let approval = format!(
                "{} claude-approval",
                shell_word(&crate::zellij::programs::exe())
            );
            crate::terminal::print(&CLAUDE_APPROVAL_HOOK.snippet(&approval));
        }
        return 0;
    }
    claude_file(write, remove, approvals)
}

/// Claude Code's settings.json with the hook merged in (and, with `approvals`, the permission
/// prompts' hook), or both taken out.
pub fn claude_file(write: bool, remove: bool, approvals: bool) -> i32 {
    let command = format!(
        "{} claude-hook",
        shell_word(&crate::zellij::programs::exe())
    );
    let approval = format!(
        "{} claude-approval",
        shell_word(&crate::zellij::programs::exe())
    );
    let elicitation = format!(
        "{} claude-elicitation",
        shell_word(&crate::zellij::programs::exe())
    );
    let Some(home) = home() else {
        say_err!("ask-popup setup claude: HOME is not set");
        return 1;
    };
    let path = home.join(".claude").join("settings.json");
    // Claude Code's settings can carry API keys (its `env`).
    let hook = edit(&path, "claude", write, OWNER_ONLY, |text| {
        edit_hooks(
            text,
            remove,
            &[
                (CLAUDE_HOOK, &command),
                (CLAUDE_ELICITATION_HOOK, &elicitation),
            ],
            (approvals || remove).then_some((CLAUDE_APPROVAL_HOOK, approval.as_str())),
        )
    });
    hook.max(skill("claude", write, remove))
}

/// `ask-popup setup claude-mcp [--write] [--remove]`: the `claude mcp add` line to run, and,
/// written, Claude Code's settings that keep the server's calls in the foreground.
pub fn setup_claude_mcp(write: bool, remove: bool) -> i32 {
    let (name, value) = CLAUDE_MCP_ENV;
    if !write && !remove {
        crate::terminal::print(&claude_mcp_line(&crate::zellij::programs::exe()));
        say_err!(
            "Claude Code moves an MCP call that runs past 2 minutes to the background, and its \
             model goes on without the answer: `ask-popup setup claude-mcp --write` sets \
             {name}={value} in ~/.claude/settings.json so that it waits for the user."
        );
        return 0;
    }
    let Some(home) = home() else {
        say_err!("ask-popup setup claude-mcp: HOME is not set");
        return 1;
    };
    let path = home.join(".claude").join("settings.json");
    let status = edit(&path, "claude-mcp", write, OWNER_ONLY, |text| {
        if remove {
            remove_claude_mcp_env(text)
        } else {
            merge_claude_mcp_env(text)
        }
        .map_err(|e| e.to_string())
    });
    if status == 0 && write && !remove {
        say!("Now add the server to Claude Code:");
        crate::terminal::print(&claude_mcp_line(&crate::zellij::programs::exe()));
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::codex::{CODEX_APPROVAL_HOOK, CODEX_HOOK};
    use crate::setup::hook::CLAUDE_HOOK_TIMEOUT_S;

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
    fn the_claude_mcp_line_adds_the_server_for_the_user() {
        assert_eq!(
            claude_mcp_line("/home/a b/ask-popup"),
            "claude mcp add --scope user ask-popup -- '/home/a b/ask-popup' mcp\n"
        );
    }
}
