//! The broker: every caller's pending request, and what the plugin must do about each event.
//!
//! Host events go in (a pipe message, a key, a timer, the pane closing); effects come out
//! (block, reply, broadcast, rename, show, hide, set a timer). `main.rs` only executes them.
//! Every request is answered through `resolve`, which removes it: that is how each request
//! gets exactly one reply, its own, whatever happens.
//!
//! Zellij runs one plugin instance per attached client, and each gets every pipe message. The
//! instances know each other (they say hello on load) and the one with the lowest client id
//! leads: it alone answers what every instance decides alike (rejections, `status`, `cancel`,
//! a superseded or dismissed request, a timeout), marks titles and broadcasts. What the user
//! does in one instance is answered by that instance, which tells the others to drop the
//! request (`settled`).

use crate::dialog::{Dialog, Input, Key, Mode, Response};
use crate::envelope::{self, ErrorCode, Outcome, Responses};
use crate::events::{
    to_json, Blocked, Ended, PeerKind, PeerMessage, Prompt, Status, StatusEntry, Withdrawn,
    BLOCKED_EVENT, HERDR_BLOCKED_EVENT, PROMPT_EVENT, WAITING_LABEL,
};
use crate::intake::{Assembly, Intake};
use crate::marks::PaneMarks;
pub use crate::marks::TITLE_MARK;
use crate::request::{self, Questionnaire, RequestError};
use crate::view::{render, Chrome, Frame, ViewCache};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Rows an open editor may still grow by (it shows up to six lines).
const EDITOR_GROWTH: usize = 5;
/// Pipe names with a meaning of their own; every other CLI pipe is a question.
pub const STATUS_PIPE: &str = "status";
pub const SHOW_PIPE: &str = "show";
pub const CANCEL_PIPE: &str = "cancel";
/// Messages between this plugin's instances (one per attached client).
pub const PEER_PIPE: &str = "ask-popup-peer";
/// Keys that arrive this soon after a request first shows never answer it: the user may have
/// been typing into another pane when the popup took the focus.
pub const KEY_GUARD_MS: u64 = 400;
/// How long a pipe is remembered after its reply (its CLI may still send trailing lines and
/// its end-of-input message), and how long a partial stdin payload waits for its next line.
pub const FORGET_AFTER_MS: u64 = 60_000;
/// Answered pipes remembered at most, however fast they come.
const MAX_REMEMBERED: usize = 4096;
/// The most payload bytes held at once, pending requests and partial payloads together.
pub const MAX_PENDING_BYTES: usize = 8 * 1024 * 1024;
/// The countdown and clock tick.
const TICK_MS: u64 = 1000;
/// How long a newly granted instance listens for the other instances' hellos before it
/// answers what it held (the first question loads one instance per client at once).
pub const HELLO_WINDOW_MS: u64 = 300;

/// What the plugin is configured to do (from `plugin.kdl`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hide_key_label: Some("Ctrl+]".to_owned()),
            default_timeout_ms: None,
            indicator: true,
            full_events: false,
            zjstatus: false,
        }
    }
}

/// Where a pipe message came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `zellij pipe`, with its pipe id: the only source that waits for a reply.
    Cli(String),
    /// Another plugin (including our own broadcasts coming back).
    Plugin,
    /// A keybinding's `MessagePlugin`.
    Keybind,
}

/// One pipe message, as the host delivers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipeIn {
    pub source: Source,
    pub name: String,
    pub payload: Option<String>,
    pub args: BTreeMap<String, String>,
}

/// What the plugin must do.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Hold the CLI pipe open.
    Block(String),
    /// Write `output` to the CLI pipe's stdout, then release it.
    Reply { pipe: String, output: String },
    /// A message to every plugin.
    Broadcast { name: String, payload: String },
    /// A message to this plugin's other instances (`PEER_PIPE`).
    Peer(String),
    /// Set a terminal pane's title (an empty title clears the name the plugin gave it).
    RenamePane { pane: u32, title: String },
    /// Set the popup's own pane title.
    SetOwnTitle(String),
    /// Show the popup (focused, floating).
    Show,
    /// Hide the popup.
    Hide,
    /// Ask for a timer event after this many seconds.
    SetTimer(f64),
    /// Draw a new frame.
    Render,
    /// The dialog may have grown (another tab, an editor opened): fit the popup to it.
    Fit,
    /// Another request is shown: fit the popup to it afresh (it may shrink).
    FitAnew,
}

/// Who asked: ids are scoped to it. The pane when the caller said which, else its agent name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Caller {
    Pane(u32),
    Agent(Option<String>),
}

impl Caller {
    fn of(args: &BTreeMap<String, String>) -> Caller {
        match args.get("pane_id").and_then(|p| parse_pane_id(p)) {
            Some(pane) => Caller::Pane(pane),
            None => Caller::Agent(agent_arg(args)),
        }
    }
}

/// A question being asked.
#[derive(Debug)]
struct Request {
    pipe: String,
    pane: Option<u32>,
    agent: Option<String>,
    caller: Caller,
    request_id: Option<String>,
    dialog: Dialog,
    cache: ViewCache,
    arrived_ms: u64,
    /// The payload's size, counted against `MAX_PENDING_BYTES`.
    bytes: usize,
    /// When it first showed in this instance: keys before `KEY_GUARD_MS` after are stray.
    first_shown_ms: Option<u64>,
    /// Whether its frame shows that keys count (the footer's hints instead of `…`).
    drawn_ready: bool,
    /// While on screen: the time up to which its countdown has been charged.
    counted_to_ms: Option<u64>,
}

/// A payload still arriving line by line.
#[derive(Debug)]
struct Partial {
    intake: Intake,
    last_line_ms: u64,
    request_id: Option<String>,
}

/// The other instances of this plugin, and which one leads.
#[derive(Debug, Default)]
struct Peers {
    /// This instance's client id, once the host said (None: the only instance).
    me: Option<u16>,
    known: BTreeSet<u16>,
}

impl Peers {
    fn leads(&self) -> bool {
        match (self.me, self.known.first()) {
            (Some(me), Some(first)) => me <= *first,
            _ => true,
        }
    }
}

/// Whether pipe messages are answered yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Gate {
    /// Answered as they come.
    #[default]
    Open,
    /// Held, their CLIs kept waiting, until the user answers Zellij's permission request.
    Permission,
    /// Held while the other instances' hellos come in (`HELLO_WINDOW_MS`).
    Hellos,
}

/// A pipe message held behind the gate.
#[derive(Debug)]
enum Held {
    Pipe(PipeIn),
    /// A CLI message whose payload could not be taken in.
    Unreadable {
        pipe: String,
        args: BTreeMap<String, String>,
        error: RequestError,
    },
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
    partials: HashMap<String, Partial>,
    /// Pipes already answered, with when: their CLI may still send trailing lines and its
    /// end-of-input message. Forgotten after `FORGET_AFTER_MS`.
    answered: HashMap<String, u64>,
    /// Requests withdrawn before they arrived (the withdrawal overtook the question), with
    /// when: such a question is answered `aborted` at once.
    withdrawn: HashMap<(Caller, String), u64>,
    visible: bool,
    /// The host's clock, in milliseconds.
    now_ms: u64,
    /// When the one-second tick is due, while it runs.
    tick_due_ms: Option<u64>,
    marks: PaneMarks,
    peers: Peers,
    gate: Gate,
    held: Vec<Held>,
    last_frame: Option<Frame>,
}

impl Broker {
    pub fn new(config: Config) -> Self {
        Broker {
            config,
            ..Broker::default()
        }
    }

    /// How many requests wait for the user.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
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

    /// Payload bytes held: pending requests and partial payloads.
    pub fn held_bytes(&self) -> usize {
        self.pending.iter().map(|r| r.bytes).sum::<usize>()
            + self
                .partials
                .values()
                .map(|p| p.intake.size())
                .sum::<usize>()
    }

    /// Pipes remembered as answered, and partial payloads held (for the memory bounds).
    pub fn remembered(&self) -> (usize, usize) {
        (self.answered.len(), self.partials.len())
    }

    /// Zellij holds the plugin back until the user answers its permission request: hold every
    /// pipe message until then (see `permission`).
    pub fn await_permission(&mut self) {
        self.gate = Gate::Permission;
    }

    /// The user answered the permission request. Granted, this instance (for client
    /// `client`) says hello to the others and listens for theirs a moment before it answers
    /// what it held; denied, it answers what it can at once.
    pub fn permission(&mut self, granted: bool, client: u16) -> Vec<Effect> {
        if !granted {
            return self.release(false);
        }
        let mut fx = self.join(client);
        self.gate = Gate::Hellos;
        fx.push(Effect::SetTimer(HELLO_WINDOW_MS as f64 / 1000.0));
        fx
    }

    /// Answers the messages held behind the gate, as if they came now. `hide`: the popup
    /// hides if nothing is left to ask (it showed itself for the permission request).
    fn release(&mut self, hide: bool) -> Vec<Effect> {
        self.gate = Gate::Open;
        let mut fx = Vec::new();
        for held in std::mem::take(&mut self.held) {
            fx.extend(match held {
                Held::Pipe(msg) => self.replay_held(msg),
                Held::Unreadable { pipe, args, error } => {
                    self.pipe_unreadable(&pipe, &args, &error)
                }
            });
        }
        if hide && self.pending.is_empty() {
            fx.push(Effect::Hide);
        }
        fx.push(Effect::Render);
        fx
    }

    /// Holds `held` behind the gate, keeping its CLI waiting.
    fn hold(&mut self, held: Held) -> Vec<Effect> {
        let cli = match &held {
            Held::Pipe(PipeIn {
                source: Source::Cli(id),
                ..
            }) => Some(id.clone()),
            Held::Unreadable { pipe, .. } => Some(pipe.clone()),
            Held::Pipe(_) => None,
        };
        self.held.push(held);
        cli.map(Effect::Block).into_iter().collect()
    }

    /// This instance serves client `client`: it says hello to the others.
    pub fn join(&mut self, client: u16) -> Vec<Effect> {
        self.peers.me = Some(client);
        self.peers.known.insert(client);
        vec![self.peer_message(PeerKind::Hello)]
    }

    /// A pipe message arrived.
    pub fn pipe(&mut self, msg: PipeIn) -> Vec<Effect> {
        // The other instances' hellos are never held: they decide who answers the rest.
        let from_a_peer = msg.source == Source::Plugin && msg.name == PEER_PIPE;
        if self.gate != Gate::Open && !from_a_peer {
            return self.hold(Held::Pipe(msg));
        }
        let mut fx = Vec::new();
        self.forget_old(&mut fx);
        let pipe = match msg.source {
            Source::Cli(id) => id,
            Source::Keybind | Source::Plugin => {
                match msg.name.as_str() {
                    SHOW_PIPE => self.show(&mut fx),
                    PEER_PIPE => self.peer(msg.payload.as_deref().unwrap_or(""), &mut fx),
                    _ => {}
                }
                return self.done(fx);
            }
        };
        match msg.name.as_str() {
            STATUS_PIPE => {
                let output = format!("{}\n", to_json(&self.status()));
                self.reply_once(&pipe, msg.payload.is_some(), output, &mut fx);
            }
            SHOW_PIPE => {
                self.show(&mut fx);
                self.reply_once(&pipe, msg.payload.is_some(), String::new(), &mut fx);
            }
            CANCEL_PIPE => {
                if !self.answered.contains_key(&pipe) {
                    let withdrawn = self.withdraw(&msg.args, &mut fx);
                    let output = format!("{}\n", to_json(&Withdrawn { withdrawn }));
                    self.reply_once(&pipe, true, output, &mut fx);
                } else if msg.payload.is_none() {
                    self.answered.remove(&pipe);
                }
            }
            _ => self.question_piece(pipe, msg.payload, &msg.args, &mut fx),
        }
        self.done(fx)
    }

    /// A pipe that answers at once (`status`, `show`, `cancel`): answered on its first
    /// message, and its end-of-input message is let go.
    fn reply_once(&mut self, pipe: &str, has_payload: bool, output: String, fx: &mut Vec<Effect>) {
        if has_payload || !self.answered.contains_key(pipe) {
            self.reply_shared(pipe, output, fx);
        } else {
            self.answered.remove(pipe);
        }
    }

    /// One message of a question's pipe: a piece of its payload, or the end of its input.
    fn question_piece(
        &mut self,
        pipe: String,
        payload: Option<String>,
        args: &BTreeMap<String, String>,
        fx: &mut Vec<Effect>,
    ) {
        let request_id = args.get("id").map(String::as_str);
        let Some(payload) = payload else {
            // The end of the CLI's input.
            if self.answered.remove(&pipe).is_some() {
                return;
            }
            if let Some(partial) = self.partials.remove(&pipe) {
                // The input ended before a whole questionnaire arrived.
                let error = if partial.intake.is_blank() {
                    empty_payload()
                } else {
                    match request::parse(partial.intake.text()) {
                        Err(e) => e,
                        Ok(_) => RequestError::NotJson {
                            detail: "it ends too early".to_owned(),
                        },
                    }
                };
                self.reject(&pipe, &error, request_id, fx);
            }
            return;
        };
        if self.answered.contains_key(&pipe) || self.pending.iter().any(|r| r.pipe == pipe) {
            // More input after the questionnaire (trailing lines): nothing to say.
            return;
        }
        // A stdin line ends with its line break; a piece without one is the whole input (the
        // pipe's argument, or stdin's last line): nothing more will come for it.
        let last_piece = !payload.ends_with('\n');
        let held = self.held_bytes();
        let now = self.now_ms;
        let partial = self
            .partials
            .entry(pipe.clone())
            .or_insert_with(|| Partial {
                intake: Intake::new(),
                last_line_ms: now,
                request_id: request_id.map(str::to_owned),
            });
        partial.last_line_ms = now;
        let assembly = partial.intake.feed(&payload);
        if held.saturating_add(payload.len()) > MAX_PENDING_BYTES {
            // Holding more could exhaust the plugin's memory and strand every waiting agent.
            self.partials.remove(&pipe);
            let output = envelope::host_error(ErrorCode::Busy, request_id);
            self.reply_shared(&pipe, output, fx);
            return;
        }
        match assembly {
            Assembly::Incomplete if !last_piece => {
                // Blank lines before the questionnaire, or more lines of it: wait.
            }
            Assembly::Incomplete | Assembly::Complete | Assembly::Broken => {
                let intake = self
                    .partials
                    .remove(&pipe)
                    .map(|p| p.intake)
                    .unwrap_or_default();
                let parsed = if intake.too_large() {
                    Err(RequestError::PayloadTooLarge {
                        bytes: intake.size(),
                    })
                } else if intake.is_blank() {
                    Err(empty_payload())
                } else {
                    request::parse(intake.text())
                };
                match parsed {
                    Ok(q) => self.accept(pipe, q, intake.size(), args, fx),
                    Err(e) => self.reject(&pipe, &e, request_id, fx),
                }
            }
        }
    }

    /// A CLI pipe message whose payload could not be taken in (over the size limit, or not
    /// UTF-8): the caller is answered at once, and any earlier lines of it are dropped.
    pub fn pipe_unreadable(
        &mut self,
        pipe: &str,
        args: &BTreeMap<String, String>,
        error: &RequestError,
    ) -> Vec<Effect> {
        if self.gate != Gate::Open {
            return self.hold(Held::Unreadable {
                pipe: pipe.to_owned(),
                args: args.clone(),
                error: error.clone(),
            });
        }
        let mut fx = Vec::new();
        self.partials.remove(pipe);
        if !self.answered.contains_key(pipe) {
            self.reject(pipe, error, args.get("id").map(String::as_str), &mut fx);
        }
        self.done(fx)
    }

    /// A pipe message the plugin held, its CLI blocked, until the permission answer came. As
    /// `pipe`, except that a CLI the message neither keeps waiting nor answers (the first line
    /// of a payload still coming on stdin) is let go with an empty reply: nobody else would
    /// release it, and it would never send the rest.
    pub fn replay_held(&mut self, msg: PipeIn) -> Vec<Effect> {
        let cli = match &msg.source {
            Source::Cli(id) => Some(id.clone()),
            Source::Plugin | Source::Keybind => None,
        };
        let mut fx = self.pipe(msg);
        if let Some(id) = cli {
            let handled = fx
                .iter()
                .any(|e| matches!(e, Effect::Block(p) | Effect::Reply { pipe: p, .. } if *p == id));
            if !handled && self.leads() {
                fx.push(Effect::Reply {
                    pipe: id,
                    output: String::new(),
                });
            }
        }
        fx
    }

    /// Answers `pipe` with what every instance decided alike: the leader replies.
    fn reply_shared(&mut self, pipe: &str, output: String, fx: &mut Vec<Effect>) {
        self.remember(pipe);
        if self.leads() {
            fx.push(Effect::Reply {
                pipe: pipe.to_owned(),
                output,
            });
        }
    }

    fn reject(
        &mut self,
        pipe: &str,
        error: &RequestError,
        request_id: Option<&str>,
        fx: &mut Vec<Effect>,
    ) {
        self.reply_shared(pipe, envelope::rejection(error, request_id), fx);
    }

    fn remember(&mut self, pipe: &str) {
        if self.answered.len() >= MAX_REMEMBERED {
            if let Some(oldest) = self
                .answered
                .iter()
                .min_by_key(|(_, at)| **at)
                .map(|(p, _)| p.clone())
            {
                self.answered.remove(&oldest);
            }
        }
        self.answered.insert(pipe.to_owned(), self.now_ms);
    }

    /// Drops what is remembered too long: answered pipes, withdrawals, and partial payloads
    /// whose caller stopped sending (answered, in case it still listens).
    fn forget_old(&mut self, fx: &mut Vec<Effect>) {
        let now = self.now_ms;
        let fresh = |at: &u64| now.saturating_sub(*at) < FORGET_AFTER_MS;
        self.answered.retain(|_, at| fresh(at));
        self.withdrawn.retain(|_, at| fresh(at));
        let stale: Vec<String> = self
            .partials
            .iter()
            .filter(|(_, p)| !fresh(&p.last_line_ms))
            .map(|(pipe, _)| pipe.clone())
            .collect();
        for pipe in stale {
            let Some(partial) = self.partials.remove(&pipe) else {
                continue;
            };
            let error = RequestError::NotJson {
                detail: "its lines stopped arriving before it was complete".to_owned(),
            };
            self.reject(&pipe, &error, partial.request_id.as_deref(), fx);
        }
    }
}

impl Broker {
    fn accept(
        &mut self,
        pipe: String,
        mut q: Questionnaire,
        bytes: usize,
        args: &BTreeMap<String, String>,
        fx: &mut Vec<Effect>,
    ) {
        let caller = Caller::of(args);
        let request_id = args.get("id").cloned().filter(|id| !id.is_empty());
        if let Some(id) = &request_id {
            if self
                .withdrawn
                .remove(&(caller.clone(), id.clone()))
                .is_some()
            {
                // Its withdrawal overtook it.
                let output = envelope::host_error(ErrorCode::Aborted, Some(id));
                self.reply_shared(&pipe, output, fx);
                return;
            }
        }
        fx.push(Effect::Block(pipe.clone()));
        if q.timeout_ms.is_none() {
            q.timeout_ms = self.config.default_timeout_ms;
        }
        let pane = args.get("pane_id").and_then(|p| parse_pane_id(p));
        let agent = agent_arg(args);

        // The same caller asking again with the same id replaces its earlier request in its
        // place in the queue; what the user already gave carries over when the questions are
        // the same. Another caller's id is another request.
        let earlier = request_id.as_ref().and_then(|id| {
            self.pending
                .iter()
                .position(|r| r.caller == caller && r.request_id.as_ref() == Some(id))
        });
        let dialog = match earlier.and_then(|i| self.pending.get(i)) {
            Some(r) if r.dialog.questionnaire() == &q => r.dialog.clone(),
            _ => Dialog::new(q),
        };
        let request = Request {
            pipe,
            pane,
            agent,
            caller,
            request_id,
            dialog,
            cache: ViewCache::new(),
            arrived_ms: self.now_ms,
            bytes,
            first_shown_ms: None,
            drawn_ready: false,
            counted_to_ms: None,
        };
        let index = match earlier {
            Some(i) => {
                let old = std::mem::replace(&mut self.pending[i], request);
                if let Some(r) = self.pending.get_mut(i) {
                    // The user has seen it already.
                    r.first_shown_ms = old.first_shown_ms;
                    r.drawn_ready = old.drawn_ready;
                }
                let outcome = Outcome::Host {
                    code: ErrorCode::Superseded,
                    responses: Responses::default(),
                };
                self.finish_request(old, outcome, Decided::Everywhere, fx);
                i
            }
            None => {
                self.pending.push(request);
                self.pending.len() - 1
            }
        };
        if let Some(request) = self.pending.get(index) {
            if self.config.indicator {
                let prompt = Prompt::new(
                    request.dialog.questionnaire(),
                    request.pane,
                    request.agent.as_deref(),
                    request.request_id.as_deref(),
                );
                fx.push(Effect::Broadcast {
                    name: PROMPT_EVENT.to_owned(),
                    payload: to_json(&prompt),
                });
                self.push_blocked(request, true, fx);
            }
            if let Some(pane) = request.pane {
                if self.config.indicator {
                    self.marks.mark(pane, fx);
                }
            }
        }
        self.status_line(fx);
        if earlier.is_none() && self.pending.len() == 1 {
            self.current = 0;
        }
        self.show(fx);
    }

    /// The `cancel` pipe: withdraws the caller's pending requests with the given id. How many.
    fn withdraw(&mut self, args: &BTreeMap<String, String>, fx: &mut Vec<Effect>) -> usize {
        let Some(id) = args.get("id").filter(|id| !id.is_empty()) else {
            return 0;
        };
        let caller = Caller::of(args);
        let mut withdrawn = 0;
        while let Some(i) = self
            .pending
            .iter()
            .position(|r| r.caller == caller && r.request_id.as_ref() == Some(id))
        {
            let responses = self.pending[i].dialog.responses();
            let outcome = Outcome::Host {
                code: ErrorCode::Aborted,
                responses,
            };
            self.resolve(i, outcome, Decided::Everywhere, fx);
            withdrawn += 1;
        }
        if withdrawn == 0 {
            // The question may still be on its way: answer it `aborted` when it comes.
            self.withdrawn.insert((caller, id.clone()), self.now_ms);
        }
        withdrawn
    }

    /// A message from another instance of this plugin.
    fn peer(&mut self, payload: &str, fx: &mut Vec<Effect>) {
        let Ok(message) = serde_json::from_str::<PeerMessage>(payload) else {
            return;
        };
        if Some(message.from) == self.peers.me {
            return;
        }
        match message.kind {
            PeerKind::Hello => {
                if self.peers.known.insert(message.from) && self.peers.me.is_some() {
                    // A newcomer: tell it we are here too.
                    fx.push(self.peer_message(PeerKind::Hello));
                }
            }
            PeerKind::Settled { pipe, event } => {
                let Some(i) = self.pending.iter().position(|r| r.pipe == pipe) else {
                    return;
                };
                let request = self.take(i);
                self.after_removal(fx);
                self.remember(&pipe);
                self.after_request(&request, Some(event), fx);
            }
            PeerKind::Touched { pipe } => {
                if let Some(r) = self.pending.iter_mut().find(|r| r.pipe == pipe) {
                    r.dialog.stop_countdown();
                }
            }
        }
    }

    /// A message for the other instances.
    fn peer_message(&self, kind: PeerKind) -> Effect {
        Effect::Peer(to_json(&PeerMessage {
            from: self.peers.me.unwrap_or_default(),
            kind,
        }))
    }

    /// Every current status: the waiting requests, for scripts.
    pub fn status(&self) -> Status<'_> {
        let pending = self
            .pending
            .iter()
            .enumerate()
            .map(|(i, r)| StatusEntry {
                agent: self.agent_name(r),
                pane_id: r.pane,
                request_id: r.request_id.as_deref(),
                headers: r
                    .dialog
                    .questionnaire()
                    .questions
                    .iter()
                    .map(|q| q.header.as_str())
                    .collect(),
                age_seconds: self.now_ms.saturating_sub(r.arrived_ms) / 1000,
                shown: i == self.current && self.visible,
            })
            .collect();
        Status {
            pending,
            visible: self.visible,
        }
    }

    /// `status` as JSON.
    pub fn status_json(&self) -> Value {
        serde_json::to_value(self.status()).unwrap_or_default()
    }

    fn agent_name(&self, r: &Request) -> String {
        if let Some(agent) = &r.agent {
            return agent.clone();
        }
        if let Some(pane) = r.pane {
            let title = self
                .marks
                .title(pane)
                .map(str::trim)
                .filter(|t| !t.is_empty());
            return match title {
                Some(t) => crate::view::text::sanitize_line(t),
                None => format!("pane {pane}"),
            };
        }
        "an agent".to_owned()
    }

    /// The `ask-popup:blocked` and `herdr:blocked` broadcasts for `r`; `pending` counts the
    /// requests waiting once this one has started or ended.
    fn push_blocked(&self, r: &Request, active: bool, fx: &mut Vec<Effect>) {
        let payload = to_json(&Blocked {
            active,
            label: WAITING_LABEL,
            pane_id: r.pane,
            agent: &self.agent_name(r),
            pending: self.pending.len(),
        });
        fx.push(Effect::Broadcast {
            name: BLOCKED_EVENT.to_owned(),
            payload: payload.clone(),
        });
        fx.push(Effect::Broadcast {
            name: HERDR_BLOCKED_EVENT.to_owned(),
            payload,
        });
    }

    /// The host told us the titles of the terminal panes.
    pub fn pane_titles(&mut self, titles: impl IntoIterator<Item = (u32, String)>) -> Vec<Effect> {
        let mut fx = Vec::new();
        for (pane, title) in titles {
            self.marks.update(pane, &title, &mut fx);
        }
        if self.config.indicator {
            let waiting: Vec<u32> = self.pending.iter().filter_map(|r| r.pane).collect();
            for pane in waiting {
                self.marks.mark(pane, &mut fx);
            }
        }
        self.done(fx)
    }

    /// A terminal pane went away: its requests have no one to answer to.
    pub fn pane_closed(&mut self, pane: u32) -> Vec<Effect> {
        let mut fx = Vec::new();
        self.marks.forget(pane);
        while let Some(i) = self.pending.iter().position(|r| r.pane == Some(pane)) {
            let responses = self.pending[i].dialog.responses();
            let outcome = Outcome::Host {
                code: ErrorCode::Dismissed,
                responses,
            };
            self.resolve(i, outcome, Decided::Everywhere, &mut fx);
        }
        self.done(fx)
    }

    fn show(&mut self, fx: &mut Vec<Effect>) {
        if self.pending.is_empty() {
            return;
        }
        self.visible = true;
        fx.push(Effect::SetOwnTitle(self.own_title()));
        fx.push(Effect::Show);
        fx.push(Effect::Render);
        self.on_screen_changed(fx);
    }

    /// The request on screen may have changed (shown, hidden, switched, resolved): only the
    /// one on screen counts down, from when it came on screen, and a request showing for the
    /// first time ignores keys for a moment.
    fn on_screen_changed(&mut self, fx: &mut Vec<Effect>) {
        let now = self.now_ms;
        let (current, visible) = (self.current, self.visible);
        let mut guard = false;
        for (i, r) in self.pending.iter_mut().enumerate() {
            if i == current && visible {
                if r.first_shown_ms.is_none() {
                    r.first_shown_ms = Some(now);
                    guard = true;
                }
                r.counted_to_ms.get_or_insert(now);
            } else {
                r.counted_to_ms = None;
            }
        }
        if guard {
            // Wake up when keys count, to draw the footer's hints.
            fx.push(Effect::SetTimer(KEY_GUARD_MS as f64 / 1000.0));
        }
        self.arm_tick(fx);
    }

    /// Whether keys reach the request on screen (see `KEY_GUARD_MS`).
    fn keys_count(&self) -> bool {
        self.pending
            .get(self.current)
            .and_then(|r| r.first_shown_ms)
            .is_none_or(|shown| self.now_ms >= shown.saturating_add(KEY_GUARD_MS))
    }

    fn own_title(&self) -> String {
        match self.pending.get(self.current) {
            Some(r) => format!(
                "ask-popup · {} · {} of {}",
                self.agent_name(r),
                self.current + 1,
                self.pending.len()
            ),
            None => "ask-popup".to_owned(),
        }
    }

    /// A one-second tick runs while anything is pending: it drives the countdowns and the
    /// status line's clock. (What is remembered too long is forgotten on any event: memory
    /// only grows when messages come.)
    fn arm_tick(&mut self, fx: &mut Vec<Effect>) {
        if self.tick_due_ms.is_none() && !self.pending.is_empty() {
            self.tick_due_ms = Some(self.now_ms.saturating_add(TICK_MS));
            fx.push(Effect::SetTimer(TICK_MS as f64 / 1000.0));
        }
    }

    /// A timer fired (the clock was set before).
    pub fn timer(&mut self) -> Vec<Effect> {
        let mut fx = Vec::new();
        if self.gate == Gate::Hellos {
            fx.extend(self.release(true));
        }
        let now = self.now_ms;
        // The tick, or another timer (the key guard's) that fired first.
        if self
            .tick_due_ms
            .is_some_and(|due| now.saturating_add(50) >= due)
        {
            self.tick_due_ms = None;
        }
        self.forget_old(&mut fx);
        let leads = self.leads();
        if let Some(r) = self.pending.get_mut(self.current) {
            if let Some(from) = r.counted_to_ms {
                r.counted_to_ms = Some(now);
                match r.dialog.tick(now.saturating_sub(from)) {
                    // The leader decides timeouts; the others only show the countdown.
                    Response::Finished(outcome) if leads => {
                        let i = self.current;
                        self.resolve(i, outcome, Decided::Here, &mut fx);
                    }
                    Response::Finished(_) | Response::Render => fx.push(Effect::Render),
                    _ => {}
                }
            }
        }
        let keys_count = self.keys_count();
        if let Some(r) = self.pending.get_mut(self.current) {
            if keys_count && r.first_shown_ms.is_some() && !r.drawn_ready {
                // The footer's hints replace its `…`.
                r.drawn_ready = true;
                fx.push(Effect::Render);
            }
        }
        self.arm_tick(&mut fx);
        self.done(fx)
    }

    /// User input in the popup.
    pub fn input(&mut self, input: Input) -> Vec<Effect> {
        let mut fx = Vec::new();
        let keys_count = self.keys_count();
        let leads = self.leads();
        let Some(request) = self.pending.get_mut(self.current) else {
            return fx;
        };
        if !keys_count && input != Input::Key(Key::Hide) {
            // A stray key, typed for another pane as the popup appeared.
            return fx;
        }
        let browsing = request.dialog.mode() == Mode::Browse;
        if let Input::Key(Key::Char(c @ ('[' | ']'))) = input {
            if browsing {
                let n = self.pending.len();
                if n > 1 {
                    self.current = if c == ']' {
                        (self.current + 1) % n
                    } else {
                        (self.current + n - 1) % n
                    };
                    fx.push(Effect::SetOwnTitle(self.own_title()));
                    fx.push(Effect::FitAnew);
                    fx.push(Effect::Render);
                    self.on_screen_changed(&mut fx);
                }
                return self.done(fx);
            }
        }
        let counting = request.dialog.countdown().is_some();
        let before = (request.dialog.tab(), request.dialog.mode());
        let response = request.dialog.handle(input);
        // The user is here: the leader's countdown stops too.
        let touched = (counting && request.dialog.countdown().is_none() && !leads).then(|| {
            PeerKind::Touched {
                pipe: request.pipe.clone(),
            }
        });
        match response {
            Response::Unchanged => {}
            Response::Render => {
                fx.push(Effect::Render);
                if (request.dialog.tab(), request.dialog.mode()) != before {
                    fx.push(Effect::Fit);
                }
            }
            Response::Hide => {
                self.visible = false;
                fx.push(Effect::Hide);
                self.on_screen_changed(&mut fx);
            }
            Response::Finished(outcome) => {
                let i = self.current;
                self.resolve(i, outcome, Decided::Here, &mut fx);
            }
        }
        if let Some(touched) = touched {
            fx.push(self.peer_message(touched));
        }
        self.done(fx)
    }

    /// A click at a cell of the popup.
    pub fn click(&mut self, line: usize, col: usize) -> Vec<Effect> {
        match self
            .last_frame
            .as_ref()
            .and_then(|f| f.target_at(line, col))
        {
            Some(target) => self.input(Input::Click(target)),
            None => Vec::new(),
        }
    }

    /// The mouse wheel: negative lines scroll up.
    pub fn wheel(&mut self, lines: i32) -> Vec<Effect> {
        self.input(Input::Wheel { lines })
    }

    /// The popup pane is closing: answer everyone, nobody may be left hanging.
    pub fn before_close(&mut self) -> Vec<Effect> {
        let mut fx = Vec::new();
        while !self.pending.is_empty() {
            let responses = self.pending[0].dialog.responses();
            let outcome = Outcome::Host {
                code: ErrorCode::Dismissed,
                responses,
            };
            self.resolve(0, outcome, Decided::Everywhere, &mut fx);
        }
        for (pipe, partial) in std::mem::take(&mut self.partials) {
            let output = envelope::host_error(ErrorCode::Dismissed, partial.request_id.as_deref());
            self.reply_shared(&pipe, output, &mut fx);
        }
        self.done(fx)
    }

    /// Answers request `index` and removes it.
    fn resolve(&mut self, index: usize, outcome: Outcome, decided: Decided, fx: &mut Vec<Effect>) {
        if index >= self.pending.len() {
            return;
        }
        let request = self.take(index);
        // The caller first: the popup and the events can wait a moment, the agent should not.
        self.finish_request(request, outcome, decided, fx);
        self.after_removal(fx);
    }

    /// Takes request `index` out of the queue (`after_removal` updates the popup).
    fn take(&mut self, index: usize) -> Request {
        let request = self.pending.remove(index);
        if self.current > index || self.current >= self.pending.len() {
            self.current = self.current.saturating_sub(1);
        }
        request
    }

    /// The popup after a request left the queue: the next one, or hidden.
    fn after_removal(&mut self, fx: &mut Vec<Effect>) {
        if self.pending.is_empty() {
            self.current = 0;
            self.visible = false;
            fx.push(Effect::Hide);
            fx.push(Effect::SetOwnTitle("ask-popup".to_owned()));
        } else {
            fx.push(Effect::SetOwnTitle(self.own_title()));
            if self.visible {
                fx.push(Effect::FitAnew);
            }
            fx.push(Effect::Render);
            self.on_screen_changed(fx);
        }
    }

    /// Replies to a request that is no longer in the queue, and says so to everyone.
    fn finish_request(
        &mut self,
        request: Request,
        outcome: Outcome,
        decided: Decided,
        fx: &mut Vec<Effect>,
    ) {
        let q = request.dialog.questionnaire();
        let output = envelope::outcome(q, &outcome, request.request_id.as_deref());
        let event = self.ended(&request, &outcome);
        self.remember(&request.pipe);
        if decided == Decided::Here || self.leads() {
            fx.push(Effect::Reply {
                pipe: request.pipe.clone(),
                output,
            });
        }
        if decided == Decided::Here && self.peers.known.len() > 1 {
            // The other instances drop it; the leader says how it ended. (Alone, this costs
            // the caller nothing: Zellij would hand the message back before the reply.)
            let settled = PeerKind::Settled {
                pipe: request.pipe.clone(),
                event: event.clone(),
            };
            fx.push(self.peer_message(settled));
        }
        self.after_request(&request, Some(event), fx);
    }

    /// What follows a request's end: the blocked pair closes, the outcome event, the caller's
    /// title back, the status line.
    fn after_request(&mut self, request: &Request, event: Option<Ended>, fx: &mut Vec<Effect>) {
        if self.config.indicator {
            self.push_blocked(request, false, fx);
            if let Some(event) = event {
                fx.push(Effect::Broadcast {
                    name: event.name().to_owned(),
                    payload: to_json(&event),
                });
            }
            if let Some(pane) = request.pane {
                if !self.pending.iter().any(|r| r.pane == Some(pane)) {
                    self.marks.unmark(pane, fx);
                }
            }
        }
        self.status_line(fx);
    }

    /// The `ask-popup:answered` / `ask-popup:cancelled` event for `r` ending as `outcome`.
    fn ended(&self, r: &Request, outcome: &Outcome) -> Ended {
        let ending = envelope::ending(outcome);
        let result = self
            .config
            .full_events
            .then(|| envelope::details(r.dialog.questionnaire(), outcome, r.request_id.as_deref()));
        Ended {
            pane_id: r.pane,
            agent: self.agent_name(r),
            request_id: r.request_id.clone(),
            questions: r.dialog.questionnaire().questions.len(),
            answered: ending.answered,
            reason: ending.reason.map(str::to_owned),
            result,
        }
    }

    fn status_line(&self, fx: &mut Vec<Effect>) {
        if !self.config.zjstatus {
            return;
        }
        let text = match self.pending.len() {
            0 => String::new(),
            n => format!("⏳ {n} waiting"),
        };
        fx.push(Effect::Broadcast {
            name: "zjstatus".to_owned(),
            payload: format!("zjstatus::pipe::pipe_ask::{text}"),
        });
    }

    /// The effects of one event, as this instance executes them: only the leader marks titles
    /// and broadcasts.
    fn done(&mut self, mut fx: Vec<Effect>) -> Vec<Effect> {
        if !self.leads() {
            fx.retain(|e| !matches!(e, Effect::Broadcast { .. } | Effect::RenamePane { .. }));
        }
        self.arm_tick(&mut fx);
        fx
    }

    /// How many rows the current dialog needs at `cols` columns to show all of its tallest tab
    /// (0 when nothing is pending), so the popup can be no taller than that.
    pub fn natural_height(&mut self, cols: usize) -> usize {
        /// Tall enough for any dialog; a longer preview is cut at the popup's maximum anyway.
        const UNLIMITED: usize = 500;
        let chrome = self.chrome();
        let Some(r) = self.pending.get_mut(self.current) else {
            return 0;
        };
        let tallest = (0..r.dialog.tab_count())
            .map(|tab| {
                render(
                    &r.dialog.on_tab(tab),
                    &mut r.cache,
                    &chrome,
                    cols,
                    UNLIMITED,
                )
                .lines
                .len()
            })
            .max()
            .unwrap_or(0)
            // The current tab as it is, with its editor open if one is.
            .max(
                render(&r.dialog, &mut r.cache, &chrome, cols, UNLIMITED)
                    .lines
                    .len(),
            );
        // An open editor grows as the user types: leave it room.
        let editing = r.dialog.mode() != Mode::Browse;
        tallest + if editing { EDITOR_GROWTH } else { 0 }
    }

    /// Draws the current dialog in `rows` × `cols` cells. The frame is kept to find what a
    /// click lands on.
    pub fn render(&mut self, rows: usize, cols: usize) -> &Frame {
        let chrome = self.chrome();
        let frame = match self.pending.get_mut(self.current) {
            Some(r) => {
                let frame = render(&r.dialog, &mut r.cache, &chrome, cols, rows);
                r.dialog
                    .clamp_preview_scroll(frame.preview_max_scroll.unwrap_or(0));
                frame
            }
            None => Frame::default(),
        };
        self.last_frame.insert(frame)
    }

    fn chrome(&self) -> Chrome {
        Chrome {
            banner: self.banner(),
            hide_key: self.config.hide_key_label.clone(),
            settling: !self.keys_count(),
        }
    }

    fn banner(&self) -> Option<String> {
        let r = self.pending.get(self.current)?;
        let agent = self.agent_name(r);
        Some(match self.pending.len() {
            1 => format!("{agent} asks"),
            n => format!(
                "{agent} asks · {} of {n} waiting · [ ] switch",
                self.current + 1
            ),
        })
    }
}

/// The error for a payload with nothing in it.
fn empty_payload() -> RequestError {
    RequestError::Missing {
        path: "questions".to_owned(),
        hint: "the payload was empty; send one JSON object with a \"questions\" array",
    }
}

/// The `agent` argument, as the dialog may show it.
fn agent_arg(args: &BTreeMap<String, String>) -> Option<String> {
    args.get("agent")
        .map(|a| crate::view::text::sanitize_line(a.trim()))
        .filter(|a| !a.is_empty())
}

/// `$ZELLIJ_PANE_ID` is a bare number; `terminal_3` is accepted too.
fn parse_pane_id(s: &str) -> Option<u32> {
    let s = s.trim();
    s.strip_prefix("terminal_").unwrap_or(s).parse().ok()
}
