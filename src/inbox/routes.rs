//! Where a question goes among the live sessions (`zellij::session::LiveSession`): the session a
//! question from outside is asked in, and the sessions a question asked in one is shown in too.

use crate::ask::agent_value;
use crate::zellij::session::LiveSession;

/// The session a question from outside is asked in: the one the caller passed on when it is
/// live; else one with an attached client (the server's own first, then by name); else the
/// server's own; else the only one. None when no choice is clear.
pub fn pick_session(
    passed: Option<&str>,
    own: Option<&str>,
    live: &[LiveSession],
) -> Option<String> {
    let is_live = |name: &str| live.iter().any(|s| s.name == name);
    if let Some(passed) = passed.filter(|p| is_live(p)) {
        return Some(passed.to_owned());
    }
    if let Some(own) = own.filter(|o| live.iter().any(|s| s.name == *o && s.attached())) {
        return Some(own.to_owned());
    }
    let mut with_clients: Vec<&LiveSession> = live.iter().filter(|s| s.attached()).collect();
    with_clients.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(first) = with_clients.first() {
        return Some(first.name.clone());
    }
    if let Some(own) = own.filter(|o| is_live(o)) {
        return Some(own.to_owned());
    }
    match live {
        [only] => Some(only.name.clone()),
        _ => None,
    }
}

/// `$ASK_POPUP_FORWARD`: when a question asked in one session is shown in the others too.
pub const FORWARD_ENV: &str = "ASK_POPUP_FORWARD";

/// The sessions a question asked in session `home` is shown in too: when `home` has no client
/// attached (nobody would see it there), every other session with one; `$ASK_POPUP_FORWARD`
/// `always` shows it in every other attached session whatever `home` has, `off` in none.
/// Unknown counts (no metadata) count as no client.
pub fn forward_to(home: &str, setting: Option<&str>, live: &[LiveSession]) -> Vec<String> {
    let forward = if never_forwards(setting) {
        false
    } else if setting.is_some_and(|s| s.trim().eq_ignore_ascii_case("always")) {
        true
    } else {
        !live.iter().any(|s| s.name == home && s.attached())
    };
    if !forward {
        return Vec::new();
    }
    live.iter()
        .filter(|s| s.name != home && s.attached())
        .map(|s| s.name.clone())
        .collect()
}

/// Whether `$ASK_POPUP_FORWARD` says never (`off`, `never`, `0`, `false`, `no`): then the
/// sessions need not even be looked at.
pub fn never_forwards(setting: Option<&str>) -> bool {
    setting.is_some_and(|s| {
        matches!(
            s.trim().to_ascii_lowercase().as_str(),
            "off" | "never" | "0" | "false" | "no"
        )
    })
}

/// The agent's name in a session that shows another session's question: `<agent> in
/// <session>`, within the pipe's limit on a name (the agent's part is cut first).
pub fn copy_agent(agent: Option<&str>, session: &str) -> String {
    let session: String = crate::ask::arg_value(session);
    let suffix = format!(" in {session}");
    let room = crate::ask::MAX_AGENT_CHARS.saturating_sub(suffix.chars().count());
    let agent = agent_value(agent.filter(|a| !a.trim().is_empty()).unwrap_or("an agent"));
    let agent: String = agent.chars().take(room.max(1)).collect();
    agent_value(&format!("{agent}{suffix}"))
}
