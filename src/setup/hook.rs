//! The hooks setup installs in Claude Code's settings.json and Codex's hooks.json (the same
//! shape in both), how setup knows an entry of its own from the user's, and the command line
//! that runs this command from them.

use super::error::SetupError;
use super::json_document::{self, Member};
use serde_json::{json, Value};

/// How long Claude Code lets the hook wait for the user, in seconds. When it runs out, Claude
/// Code stops the hook, which withdraws the question from the popup, and its own dialog asks.
pub const CLAUDE_HOOK_TIMEOUT_S: u64 = 3600;

/// A `PreToolUse` hook this command installs: the agent's tool it matches and the subcommand
/// that answers it. Claude Code's settings.json and Codex's hooks.json hold it the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hook {
    /// The hook event (`PreToolUse`, `PermissionRequest`).
    pub event: &'static str,
    pub matcher: &'static str,
    pub subcommand: &'static str,
}

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
            "Elicitation" => "hooks.Elicitation",
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

/// A path as one word of a shell command line (Claude Code and Codex run hooks through a
/// shell): as it is when every character is safe bare, else in single quotes (a `'` as `'\''`).
/// Hand-written rather than `shlex::try_quote`, whose words are as right for a shell: this word
/// is how setup knows the hook entries it wrote (`runs_subcommand`), earlier versions' too, and
/// shlex quotes some paths otherwise (a `'` in double quotes, a `%` quoted, a `]` bare), which
/// would leave such an entry unknown: setup would add a second hook beside it.
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

/// `text` (a hooks file) with `hooks` merged in, and `approvals` too when given; with
/// `remove`, without any of them or the approvals hook (whether given or not: `--remove` takes
/// out all that setup added). `None` when nothing changes.
pub fn edit_hooks(
    text: &str,
    remove: bool,
    hooks: &[(Hook, &str)],
    approvals: Option<(Hook, &str)>,
) -> Result<Option<String>, String> {
    let mut current = text.to_owned();
    let mut changed = false;
    for &(hook, command) in hooks.iter().chain(approvals.as_ref()) {
        let edited = if remove {
            hook.remove(&current)
        } else {
            hook.merge(&current, command)
        };
        if let Some(new) = edited.map_err(|e| e.to_string())? {
            current = new;
            changed = true;
        }
    }
    Ok(changed.then_some(current))
}

pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn paths_become_one_shell_word() {
        assert_eq!(shell_word("/usr/bin/ask-popup"), "/usr/bin/ask-popup");
        assert_eq!(shell_word("/home/a b/ask-popup"), "'/home/a b/ask-popup'");
        assert_eq!(shell_word("/it's"), "'/it'\\''s'");
    }
}
