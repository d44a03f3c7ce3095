//! The broker: every caller's pending request, and what the plugin must do about each event.
//!
//! Host events go in (a pipe message, a key, a timer, the pane closing); effects come out
//! (block, reply, broadcast, rename, show, hide, set a timer). `instance.rs` turns them into
//! Zellij's commands, which `main.rs` sends.
//! Every request is answered through `resolve`, which removes it: that is how each request
//! gets exactly one reply, its own, whatever happens.
//!
//! Zellij runs one plugin instance per attached client, and each gets every pipe message. The
//! instances know each other (they say hello on load, and hear such messages only from this
//! plugin's own id, never from another plugin) and the one with the lowest client id
//! leads: it alone answers what every instance decides alike (rejections, `status`, `cancel`,
//! a superseded or dismissed request, a timeout), marks titles and broadcasts. What the user
//! does in one instance is answered by that instance, which tells the others to drop the
//! request (`settled`).

use crate::dialog::{key_of, Dialog, Input, Key, KeyPress, Mode, Response};
pub use crate::effect::Effect;
use crate::intake::{Assembly, Intake};
use crate::marks::PaneMarks;
pub use crate::marks::TITLE_MARK;
use crate::outgoing::{
    to_json, Announced, Blocked, Ended, PeerKind, PeerMessage, Prompt, Status, StatusEntry,
    SyncedRequest, Withdrawn, BLOCKED_EVENT, HERDR_BLOCKED_EVENT, PROMPT_EVENT, WAITING_LABEL,
};
use crate::view::{lay_out_ahead, natural_height, render, Chrome, Frame, Theme, ViewCache};
use ask_popup_protocol::envelope::{self, ErrorCode, Outcome, Responses};
use ask_popup_protocol::request::{self, Questionnaire, RequestError};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

mod arrival;
mod gate;
mod history_view;
mod peers;
mod queue;
mod record;
mod screen;

use arrival::Arrivals;
pub use gate::GRANT_SILENCE_MS;
use gate::{GateState, Held};
use history_view::HistoryView;
use peers::Peers;
pub use peers::RESHOW_WINDOW_MS;

/// Pipe names with a meaning of their own. A question comes on a pipe named `ask` (see
/// `is_question_pipe`); any other name is answered with a clear error.
pub const STATUS_PIPE: &str = "status";
pub const SHOW_PIPE: &str = "show";
/// Answers the plugin's version (`ask-popup doctor` asks it).
pub const VERSION_PIPE: &str = "version";
/// The version the plugin answers, the crate's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const CANCEL_PIPE: &str = "cancel";
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
/// Messages between this plugin's instances (one per attached client). Any plugin may send a
/// message of this name; only those from this plugin's own id count (see `Broker::pipe`).
pub const PEER_PIPE: &str = "ask-popup-peer";
/// Keys that arrive this soon after a request first shows never answer it: the user may have
/// been typing into another pane when the popup took the focus. Each key dropped so pushes the
/// guard on by as much again: keys count once the question has been on screen this long and
/// this long has passed without a key. And on an approval, a key that would pick an `Allow`
/// counts only this long after the key before it (see `Broker::input`).
pub const KEY_GUARD_MS: u64 = 400;
/// How long a pipe is remembered after its reply (its CLI may still send trailing lines and
/// its end-of-input message), and how long a partial stdin payload waits for its next line.
pub const FORGET_AFTER_MS: u64 = 60_000;
/// Answered pipes remembered at most, however fast they come.
const MAX_REMEMBERED: usize = 4096;
/// The most reply bytes remembered for callers that ask again after their request ended
/// (`Arrivals::replies`); a larger reply is not remembered.
const MAX_REMEMBERED_REPLY_BYTES: usize = 1024 * 1024;
/// The most bytes of callers' names and request ids remembered for withdrawals that came
/// before their questions (`Arrivals::withdrawn`).
const MAX_WITHDRAWN_BYTES: usize = 1024 * 1024;
/// The most payload bytes held at once: pending requests, partial payloads and the messages
/// held until the permission answer together.
pub const MAX_PENDING_BYTES: usize = 8 * 1024 * 1024;
/// The countdown and clock tick.
const TICK_MS: u64 = 1000;

/// Between two steps of laying out ahead what a key could show (`Broker::frame_coming`): one
/// preview per step, so that a key that comes meanwhile waits for one at most.
pub const AHEAD_STEP_MS: u64 = 20;
/// How long a newly granted instance listens for the other instances' hellos before it
/// answers what it held (the first question loads one instance per client at once).
pub const HELLO_WINDOW_MS: u64 = 300;

/// What the plugin is configured to do (from `plugin.kdl`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The key that hides the popup, None when hiding is off.
    pub hide_key: Option<KeyPress>,
    /// The hide key's name for the footer, None when hiding is off.
    pub hide_key_label: Option<String>,
    /// Applied to requests that carry no timeout of their own.
    pub default_timeout_ms: Option<u64>,
    /// Mark the caller's pane and broadcast the blocked events.
    pub indicator: bool,
    /// Put the answers in the answered/cancelled events.
    pub full_events: bool,
    /// Send a `zjstatus::pipe::pipe_ask::…` line for a status bar.
    pub zjstatus: bool,
    /// Keep a record of every questionnaire (`ask_popup_protocol::history`).
    pub history: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hide_key: "Ctrl ]".parse().ok(),
            hide_key_label: Some("Ctrl+]".to_owned()),
            default_timeout_ms: None,
            indicator: true,
            full_events: false,
            zjstatus: false,
            history: true,
        }
    }
}

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
    fn cli(&self) -> Option<&str> {
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
enum Asker {
    Pane(u32),
    Agent(Option<String>),
}

impl Asker {
    fn of(args: &BTreeMap<String, String>) -> Asker {
        match args.get("pane_id").and_then(|p| parse_pane_id(p)) {
            Some(pane) => Asker::Pane(pane),
            None => Asker::Agent(agent_arg(args)),
        }
    }
}

/// A question being asked.
#[derive(Debug)]
struct Request {
    pipe: String,
    pane: Option<u32>,
    agent: Option<String>,
    caller: Asker,
    request_id: Option<String>,
    dialog: Dialog,
    cache: ViewCache,
    arrived_ms: u64,
    /// The payload's size, counted against `MAX_PENDING_BYTES`.
    bytes: usize,
    /// When it first showed in this instance.
    first_shown_ms: Option<u64>,
    /// From when keys count (see `KEY_GUARD_MS`): `KEY_GUARD_MS` after it first showed, or
    /// after the latest key that came before then.
    keys_from_ms: Option<u64>,
    /// Whether its frame shows that keys count (the footer's hints instead of `…`).
    drawn_ready: bool,
    /// While on screen: the time up to which its countdown has been charged.
    counted_to_ms: Option<u64>,
    /// How many `ask-popup:blocked` ends this instance owes for it: one if it told everyone
    /// it waits (as the leader when it arrived), one more for each instance that announced it
    /// and handed it over as its client left. This instance says them when it ends, whoever
    /// leads by then.
    owed_ends: u8,
    /// Shown from a message still held behind the gate while the hellos come in: not asked
    /// yet, and so neither answered, announced, marked nor told to anyone; it gives way to
    /// the request asked from that message (see `Broker::preview`).
    provisional: bool,
    /// For a question asked in another session and shown here too (`from_session`, and its
    /// pane `from_pane`): that session, which the record names and a key switches to.
    from_session: Option<String>,
    from_pane: Option<u32>,
    /// The command that asked it, when an approval hook did (`APPROVAL_BY_ARG`).
    approval_by: Option<String>,
}

impl Request {
    /// A request of CLI pipe `pipe` with its arguments `args` (who asks, its id), arrived now.
    fn new(
        pipe: String,
        args: &BTreeMap<String, String>,
        dialog: Dialog,
        bytes: usize,
        now_ms: u64,
    ) -> Request {
        let caller = Asker::of(args);
        Request {
            pipe,
            pane: match caller {
                Asker::Pane(pane) => Some(pane),
                Asker::Agent(_) => None,
            },
            agent: agent_arg(args),
            caller,
            request_id: args.get("id").cloned().filter(|id| !id.is_empty()),
            dialog,
            cache: ViewCache::new(),
            arrived_ms: now_ms,
            bytes,
            first_shown_ms: None,
            keys_from_ms: None,
            drawn_ready: false,
            counted_to_ms: None,
            owed_ends: 0,
            provisional: false,
            from_session: args
                .get(FROM_SESSION_ARG)
                .map(|s| crate::view::text::sanitize_line(s.trim()))
                .filter(|s| !s.is_empty()),
            from_pane: args.get(FROM_PANE_ARG).and_then(|p| parse_pane_id(p)),
            approval_by: approval_by_arg(args),
        }
    }

    /// Takes over what the user saw of `shown`, the provisional request of the same message,
    /// and what it came to owe: the key guard and the countdown run from when it first showed.
    /// (Its dialog is as it came: a provisional request takes no input and does not count
    /// down.)
    fn take_over(&mut self, shown: Request) {
        self.first_shown_ms = shown.first_shown_ms;
        self.keys_from_ms = shown.keys_from_ms;
        self.drawn_ready = shown.drawn_ready;
        self.counted_to_ms = shown.counted_to_ms;
        self.owed_ends = self.owed_ends.saturating_add(shown.owed_ends);
        // What it laid out (the first frame's, and ahead) is this request's too.
        if self.dialog.questionnaire() == shown.dialog.questionnaire() {
            self.cache = shown.cache;
        }
    }

    /// The pipe arguments that name its caller and id, as they came.
    fn args(&self) -> BTreeMap<String, String> {
        let mut args = BTreeMap::new();
        if let Asker::Pane(pane) = self.caller {
            args.insert("pane_id".to_owned(), pane.to_string());
        }
        if let Some(agent) = &self.agent {
            args.insert("agent".to_owned(), agent.clone());
        }
        if let Some(id) = &self.request_id {
            args.insert("id".to_owned(), id.clone());
        }
        if let Some(session) = &self.from_session {
            args.insert(FROM_SESSION_ARG.to_owned(), session.clone());
        }
        if let Some(pane) = self.from_pane {
            args.insert(FROM_PANE_ARG.to_owned(), pane.to_string());
        }
        args
    }
}

/// How a request ended, as far as the other instances are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decided {
    /// By this instance alone (the user's input here, or the leader's countdown): it replies
    /// and tells the others.
    Here,
    /// Alike in every instance (a host event they all saw): the leader replies.
    Everywhere,
}

/// The pending requests of every caller, and the host state the decisions need.
#[derive(Debug, Default)]
pub struct Broker {
    config: Config,
    pending: Vec<Request>,
    current: usize,
    /// What is arriving, and what was answered or withdrawn lately.
    arrivals: Arrivals,
    visible: bool,
    /// The host's clock, in milliseconds.
    now_ms: u64,
    /// When the one-second tick is due, while it runs.
    tick_due_ms: Option<u64>,
    marks: PaneMarks,
    peers: Peers,
    gate: GateState,
    last_frame: Option<Frame>,
    /// The wall clock when `now_ms` read 0 (`set_epoch`), and the session's name: for the
    /// record.
    epoch_ms: u64,
    session: Option<String>,
    /// The list of the questionnaires asked before, while it shows.
    history: Option<HistoryView>,
    /// The rows and columns of the last frame drawn: what is laid out ahead is for them.
    drawn_size: Option<(usize, usize)>,
    /// Whether a timer of `AHEAD_STEP_MS` is set to lay out more ahead.
    ahead_armed: bool,
    /// When the latest input (key, click, wheel, paste) came, whatever became of it: a key
    /// that would pick an approval's `Allow` counts only `KEY_GUARD_MS` after it.
    last_input_ms: Option<u64>,
    /// When the timer set to draw the footer's hints again, once the popup has settled (see
    /// `Broker::settled_at_ms`), fires.
    settle_timer_ms: Option<u64>,
}

impl Broker {
    pub fn new(config: Config) -> Self {
        Broker {
            config,
            ..Broker::default()
        }
    }

    /// How many requests wait for the user (shown ones not asked yet included).
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// The requests asked: the pending ones but those only shown yet (see `preview`).
    fn asked(&self) -> impl Iterator<Item = &Request> {
        self.pending.iter().filter(|r| !r.provisional)
    }

    pub fn is_visible(&self) -> bool {
        self.visible
    }

    /// The dialog being shown, if any.
    pub fn current_dialog(&self) -> Option<&Dialog> {
        self.pending.get(self.current).map(|r| &r.dialog)
    }

    /// Whether this instance leads (see the module's doc).
    pub fn leads(&self) -> bool {
        self.peers.leads()
    }

    /// The host's clock moved on to `now_ms` (it never goes back).
    pub fn set_clock(&mut self, now_ms: u64) {
        self.now_ms = self.now_ms.max(now_ms);
    }

    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// A pipe message arrived.
    pub fn pipe(&mut self, msg: PipeIn) -> Vec<Effect> {
        // The instances' messages decide who leads, what shows and who is answered: one that
        // did not come from this plugin (another plugin or a keybinding may name a message
        // so) is ignored before anything else reads it. A CLI's is an unknown pipe, below.
        let from_a_peer = match (&msg.source, msg.name.as_str()) {
            (Source::Plugin(id), PEER_PIPE) if self.peers.is_own(*id) => true,
            (Source::Plugin(id), PEER_PIPE) => {
                return vec![Effect::IgnoredPeerMessage {
                    from_plugin: Some(*id),
                }]
            }
            (Source::Keybind, PEER_PIPE) => {
                return vec![Effect::IgnoredPeerMessage { from_plugin: None }]
            }
            _ => false,
        };
        if self.peers.is_away() && matches!(msg.source, Source::Cli(_)) {
            // An instance whose client left answers no caller, and must not hold one: Zellij
            // keeps one blocked-or-not flag per CLI pipe, set by whichever instance spoke
            // last, so its hold coming after the leader's reply would keep that caller waiting
            // for good (a question asked again once answered is replied to at once). What it
            // misses comes with the leader's sync when its client is back.
            return self.done(Vec::new());
        }
        // The other instances' hellos are never held: they decide who answers the rest.
        if !self.gate.is_open() && !from_a_peer {
            return self.hold(Held::Pipe(msg));
        }
        let mut effects = Vec::new();
        self.forget_old(&mut effects);
        match msg.source {
            Source::Cli(ref pipe) => {
                let pipe = pipe.clone();
                self.cli_pipe(pipe, msg, &mut effects);
            }
            Source::Keybind | Source::Plugin(_) => match msg.name.as_str() {
                SHOW_PIPE => self.show_or_list(&mut effects),
                PEER_PIPE => self.peer(msg.payload.as_deref().unwrap_or(""), &mut effects),
                _ => {}
            },
        }
        self.done(effects)
    }

    /// A message of `zellij pipe` (CLI pipe `pipe`), by its name.
    fn cli_pipe(&mut self, pipe: String, msg: PipeIn, effects: &mut Vec<Effect>) {
        match msg.name.as_str() {
            STATUS_PIPE => {
                let mut status = self.status();
                if msg
                    .args
                    .get("held")
                    .is_some_and(|v| v == "1" || v == "true")
                {
                    status.held = Some(self.held());
                }
                let output = format!("{}\n", to_json(&status));
                self.reply_once(&pipe, msg.payload.is_some(), output, effects);
            }
            VERSION_PIPE => {
                let output = format!("{VERSION}\n");
                self.reply_once(&pipe, msg.payload.is_some(), output, effects);
            }
            SHOW_PIPE => {
                self.show_or_list(effects);
                self.reply_once(&pipe, msg.payload.is_some(), String::new(), effects);
            }
            CANCEL_PIPE => {
                self.answer_first(&pipe, msg.payload.is_some(), effects, |b, fx| {
                    let withdrawn = b.withdraw(&msg.args, fx);
                    format!("{}\n", to_json(&Withdrawn { withdrawn }))
                });
            }
            name if is_question_pipe(name) => {
                self.question_piece(pipe, msg.payload, &msg.args, effects)
            }
            name => {
                self.answer_first(&pipe, msg.payload.is_some(), effects, |_, _| {
                    let error = RequestError::UnknownPipe {
                        name: crate::view::text::sanitize_line(name),
                    };
                    envelope::rejection(&error, msg.args.get("id").map(String::as_str))
                });
            }
        }
    }

    /// A pipe that answers at once (`status`, `show`, `version`): answered on its first
    /// message, and its end-of-input message is let go.
    fn reply_once(
        &mut self,
        pipe: &str,
        has_payload: bool,
        output: String,
        effects: &mut Vec<Effect>,
    ) {
        if has_payload || !self.arrivals.was_answered(pipe) {
            self.reply_shared(pipe, output, effects);
        } else {
            self.arrivals.let_go(pipe);
        }
    }

    /// A pipe answered on its first message alone (`cancel`, a pipe of an unknown name):
    /// `answer` decides the reply then, which the leader sends; the pipe's further lines and its
    /// end of input are let go.
    fn answer_first(
        &mut self,
        pipe: &str,
        has_payload: bool,
        effects: &mut Vec<Effect>,
        answer: impl FnOnce(&mut Self, &mut Vec<Effect>) -> String,
    ) {
        if !self.arrivals.was_answered(pipe) {
            let output = answer(self, effects);
            self.reply_shared(pipe, output, effects);
        } else if !has_payload {
            self.arrivals.let_go(pipe);
        }
    }

    /// Answers `pipe` with what every instance decided alike: the leader replies.
    fn reply_shared(&mut self, pipe: &str, output: String, effects: &mut Vec<Effect>) {
        self.remember(pipe);
        if self.leads() {
            effects.push(Effect::Reply {
                pipe: pipe.to_owned(),
                output,
            });
        }
    }

    /// The effects of one event, as this instance executes them: only the leader marks titles
    /// (broadcasts are decided where they are made: see `Request::owed_ends`).
    fn done(&mut self, mut effects: Vec<Effect>) -> Vec<Effect> {
        self.check_grant(false, &mut effects);
        if !self.leads() {
            effects.retain(|e| !matches!(e, Effect::RenamePane { .. }));
        }
        self.arm_tick(&mut effects);
        effects
    }
}

/// Whether a CLI pipe of this name carries a question: `ask`, no name (Zellij 0.45 then names
/// the pipe with a random UUID), or the plugin's own name or URL.
fn is_question_pipe(name: &str) -> bool {
    let uuid = name.len() == 36
        && name.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    name == "ask" || name.is_empty() || uuid || name == "ask-popup" || name.contains(':')
}

/// The `agent` argument, as the dialog may show it.
fn agent_arg(args: &BTreeMap<String, String>) -> Option<String> {
    args.get("agent")
        .map(|a| crate::view::text::sanitize_line(a.trim()))
        .filter(|a| !a.is_empty())
}

fn approval_by_arg(args: &BTreeMap<String, String>) -> Option<String> {
    args.get(APPROVAL_BY_ARG)
        .map(|a| crate::view::text::sanitize_line(a.trim()))
        .filter(|a| !a.is_empty())
}

/// `$ZELLIJ_PANE_ID` is a bare number; `terminal_3` is accepted too.
fn parse_pane_id(s: &str) -> Option<u32> {
    let s = s.trim();
    s.strip_prefix("terminal_").unwrap_or(s).parse().ok()
}
