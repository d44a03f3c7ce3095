//! The agents' hooks as commands (`claude-hook`, `codex-hook`, `claude-approval`,
//! `codex-approval`, `opencode-approval`): each reads its agent's hook input on stdin, asks as
//! `ask-popup ask` does, and prints its agent's answer, or nothing so that the agent asks itself.

use super::{approval, claude, codex, opencode};
use crate::ask::command::fresh_id;
use crate::ask::stop::{Interrupts, Watch};
use crate::ask::waiting::answer;
use crate::ask::Caller;
use crate::terminal::print;
use ask_popup_protocol::envelope::Envelope;
use ask_popup_protocol::error_code::Next;
use std::io::Read;

/// `ask-popup claude-hook`: prints Claude Code's answer, or nothing so that it asks itself.
pub fn claude_hook(plugin: &str) -> i32 {
    hook_command(
        "claude-hook",
        "Claude Code",
        plugin,
        |input| {
            claude::read_input(input)
                .map(|call| call.map(|c| (c.payload.clone(), c.tool_use_id.clone(), c)))
                .map_err(|e| e.to_string())
        },
        claude::AGENT,
        |call, _, envelope| claude::answer(call, envelope),
        |_| None,
    )
}

/// `ask-popup codex-hook`: prints Codex's answer to its `request_user_input`, or nothing so
/// that it asks itself.
pub fn codex_hook(plugin: &str) -> i32 {
    hook_command(
        "codex-hook",
        "Codex",
        plugin,
        |input| {
            codex::read_input(input)
                .map(|call| call.map(|c| (c.payload.clone(), c.tool_use_id.clone(), c)))
                .map_err(|e| e.to_string())
        },
        codex::AGENT,
        |call, _, envelope| codex::answer(call, envelope),
        |_| None,
    )
}

/// `ask-popup claude-approval`: prints Claude Code's decision on its permission prompt, or
/// nothing so that its own prompt (on screen meanwhile) decides. The question leaves the popup
/// when that prompt was answered (a tool result in the session's transcript).
pub fn claude_approval(plugin: &str) -> i32 {
    hook_command(
        "claude-approval",
        "Claude Code",
        plugin,
        |input| {
            approval::read_hook_input(input, claude::AGENT)
                .map(|r| r.map(|r| (r.payload.clone(), None, r)))
        },
        claude::AGENT,
        approval::hook_answer,
        |request| {
            let path = request.transcript.clone()?;
            let from = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            Some(Box::new(move || claude::answered_in_transcript(&path, from)) as Watch)
        },
    )
}

/// `ask-popup codex-approval`: prints Codex's decision on its permission prompt, or nothing so
/// that Codex asks in its own prompt.
pub fn codex_approval(plugin: &str) -> i32 {
    hook_command(
        "codex-approval",
        "Codex",
        plugin,
        |input| {
            approval::read_hook_input(input, codex::AGENT)
                .map(|r| r.map(|r| (r.payload.clone(), None, r)))
        },
        codex::AGENT,
        approval::hook_answer,
        |_| None,
    )
}

/// `ask-popup opencode-approval`: prints opencode's reply to its permission prompt, or nothing so
/// that its own prompt (open meanwhile) decides; the opencode plugin stops it when that prompt
/// is answered.
pub fn opencode_approval(plugin: &str) -> i32 {
    hook_command(
        "opencode-approval",
        "opencode",
        plugin,
        |input| {
            opencode::read_opencode(input).map(|r| r.map(|r| (r.payload.clone(), r.id.clone(), r)))
        },
        crate::setup::opencode::AGENT,
        opencode::opencode_answer,
        |_| None,
    )
}

/// An agent's hook: reads the hook input on stdin (`read` gives the questionnaire, the call's id
/// and the call, or `None` for a call to leave alone), asks as `ask-popup ask` asks, and prints
/// what `respond` makes of the envelope and the id it was asked under, or nothing so that the
/// agent's own dialog asks. An envelope for another request is no reply.
fn hook_command<C>(
    name: &str,
    agent_name: &str,
    plugin: &str,
    read: impl Fn(&[u8]) -> Result<Option<(String, Option<String>, C)>, String>,
    agent: &str,
    respond: impl Fn(&C, &str, &str) -> Option<String>,
    watch: impl Fn(&C) -> Option<Watch>,
) -> i32 {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        say_err!("ask-popup {name}: could not read the hook input: {e}");
        return 0;
    }
    let (payload, id, call) = match read(&input) {
        Ok(Some(call)) => call,
        Ok(None) => return 0,
        Err(e) => {
            say_err!("ask-popup {name}: {e}; {agent_name} asks the question itself");
            return 0;
        }
    };
    let caller = Caller {
        pane_id: std::env::var("ZELLIJ_PANE_ID").ok(),
        agent: Some(agent.to_owned()),
        id: id.unwrap_or_else(fresh_id),
        id_given: false,
        // The approval hooks (`claude-approval`, …) alone ask permission prompts.
        approval_by: name.ends_with("-approval").then(|| name.to_owned()),
    };
    let envelope = answer(
        Ok(payload.into_bytes()),
        &caller,
        plugin,
        &Interrupts::install_watching(watch(&call)),
    );
    let for_another =
        Envelope::read(&envelope).is_some_and(|e| e.request_id().is_some_and(|id| id != caller.id));
    let envelope = if for_another { String::new() } else { envelope };
    if let Some(answer) = respond(&call, &caller.id, &envelope) {
        print(&answer);
    } else if let Some(refused) = Envelope::read(&envelope)
        .filter(|e| matches!(e.error(), Some(Ok(code)) if code.next() == Next::FixTheRequest))
    {
        say_err!(
            "ask-popup {name}: the popup cannot show these questions ({}); {agent_name} asks them itself",
            refused.text()
        );
    }
    0
}
