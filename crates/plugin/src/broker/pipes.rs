//! What a pipe message is: where it came from, the names and arguments with a meaning of their
//! own, and how its arguments are read.

use std::collections::BTreeMap;

/// Pipe names with a meaning of their own. A question comes on a pipe named `ask` (see
/// `is_question_pipe`); any other name is answered with a clear error.
pub const STATUS_PIPE: &str = "status";
pub const SHOW_PIPE: &str = "show";
/// Answers the plugin's version (`ask-popup doctor` asks it).
pub const VERSION_PIPE: &str = "version";
/// The version the plugin answers, the crate's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const CANCEL_PIPE: &str = "cancel";
/// An agent waits on the person in a dialog that is not ours (`active=true`), or no longer
/// (`active=false`): its pane is marked and the blocked pair said as for a question.
pub const BLOCKED_PIPE: &str = "blocked";
/// The `ask` pipe's argument naming the session a question was asked in, when it is shown in
/// another one too (the command asks it there: see its README's design notes); and the asking
/// pane's id there.
pub const FROM_SESSION_ARG: &str = "from_session";
pub const FROM_PANE_ARG: &str = "from_pane";
/// The key that takes the client to the session a question shown from there was asked in
/// (Zellij's `switch_session`), and its name in the banner.
pub const GO_KEY: &str = "Alt g";
pub const GO_KEY_LABEL: &str = "Alt+g";
/// The `cancel` pipe's argument saying the question was answered in another session: it ends
/// here without an entry of the record (the answering session writes it).
pub const ANSWERED_ELSEWHERE_ARG: &str = "answered_elsewhere";
/// The `ask` pipe's argument naming the command that asks an agent's permission prompt
/// (`claude-approval`, …): the record says which command marked an entry an approval.
pub const APPROVAL_BY_ARG: &str = "approval_by";
/// Answers a waiting request as if the person had picked one of its options in the popup, for
/// the desktop notification the command shows (`ops/pick.rs`): `option=N` (0-based) or
/// `deny=1`, and `from=notification`.
pub const PICK_PIPE: &str = "pick";
/// Messages between this plugin's instances (one per attached client). Any plugin may send a
/// message of this name; only those from this plugin's own id count (see `Broker::pipe`).
pub const PEER_PIPE: &str = "ask-popup-peer";

/// Where a pipe message came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `zellij pipe`, with its pipe id: the only source that waits for a reply.
    Cli(String),
    /// A plugin, with the id Zellij gives it: another plugin, or this one (its broadcasts
    /// coming back, and its instances' messages to each other).
    Plugin(u32),
    /// A keybinding's `MessagePlugin`.
    Keybind,
}

impl Source {
    /// The CLI pipe that waits for an answer, if any.
    pub(super) fn cli(&self) -> Option<&str> {
        match self {
            Source::Cli(pipe) => Some(pipe),
            Source::Plugin(_) | Source::Keybind => None,
        }
    }
}

/// One pipe message, as the host delivers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipeIn {
    pub source: Source,
    pub name: String,
    pub payload: Option<String>,
    pub args: BTreeMap<String, String>,
}

/// Who asked: ids are scoped to it. The pane when the caller said which, else its agent name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Asker {
    Pane(u32),
    Agent(Option<String>),
}

impl Asker {
    pub(super) fn of(args: &BTreeMap<String, String>) -> Asker {
        match args.get("pane_id").and_then(|p| parse_pane_id(p)) {
            Some(pane) => Asker::Pane(pane),
            None => Asker::Agent(agent_arg(args)),
        }
    }
}

/// Whether a CLI pipe of this name carries a question: `ask`, no name (Zellij 0.45 then names
/// the pipe with a random UUID), or the plugin's own name or URL.
pub(super) fn is_question_pipe(name: &str) -> bool {
    let uuid = name.len() == 36
        && name.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    name == "ask" || name.is_empty() || uuid || name == "ask-popup" || name.contains(':')
}

/// The `agent` argument, as the dialog may show it.
pub(super) fn agent_arg(args: &BTreeMap<String, String>) -> Option<String> {
    args.get("agent")
        .map(|a| crate::view::text::sanitize_line(a.trim()))
        .filter(|a| !a.is_empty())
}

pub(super) fn approval_by_arg(args: &BTreeMap<String, String>) -> Option<String> {
    args.get(APPROVAL_BY_ARG)
        .map(|a| crate::view::text::sanitize_line(a.trim()))
        .filter(|a| !a.is_empty())
}

/// `$ZELLIJ_PANE_ID` is a bare number; `terminal_3` is accepted too.
pub(super) fn parse_pane_id(s: &str) -> Option<u32> {
    let s = s.trim();
    s.strip_prefix("terminal_").unwrap_or(s).parse().ok()
}
