//! The broker: every caller's pending request, and what the plugin must do about each event.
//!
//! Host events go in (a pipe message, a key, a timer, the pane closing); effects come out
//! (block, reply, broadcast, rename, show, hide, set a timer). `main.rs` only executes them.
//! Every request is answered through `resolve`, which removes it: that is how each request
//! gets exactly one reply, its own, whatever happens.

use crate::dialog::{Dialog, Input, Key, Mode, Response};
use crate::envelope::{self, Outcome, Responses};
use crate::intake::{Assembly, Intake};
use crate::request::{self, ErrorCode, Questionnaire, RequestError};
use crate::view::{render, Chrome, Frame, ViewCache};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The label herdr and status bars show while an agent waits.
pub const WAITING_LABEL: &str = "Waiting for user response";
/// The mark put in front of a waiting caller's pane title.
pub const TITLE_MARK: &str = "⏳ ";
/// Broadcast names.
pub const BLOCKED_EVENT: &str = "ask-popup:blocked";
pub const HERDR_BLOCKED_EVENT: &str = "herdr:blocked";
pub const PROMPT_EVENT: &str = "ask-popup:prompt";
pub const ANSWERED_EVENT: &str = "ask-popup:answered";
pub const CANCELLED_EVENT: &str = "ask-popup:cancelled";
/// Rows an open editor may still grow by (it shows up to six lines).
const EDITOR_GROWTH: usize = 5;
/// Pipe names with a meaning of their own; every other CLI pipe is a question.
pub const STATUS_PIPE: &str = "status";
pub const SHOW_PIPE: &str = "show";

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
    /// Set a terminal pane's title.
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
}

/// A question being asked.
#[derive(Debug)]
struct Request {
    pipe: String,
    pane: Option<u32>,
    agent: Option<String>,
    request_id: Option<String>,
    dialog: Dialog,
    cache: ViewCache,
    arrived_ms: u64,
}

/// The pending requests of every caller, and the host state the decisions need.
#[derive(Debug, Default)]
pub struct Broker {
    config: Config,
    pending: Vec<Request>,
    current: usize,
    intakes: HashMap<String, Intake>,
    /// Pipes already answered whose CLI may still send its end-of-input message.
    answered: HashSet<String>,
    visible: bool,
    now_ms: u64,
    timer_running: bool,
    /// Known titles of terminal panes (from the host's pane updates).
    titles: HashMap<u32, String>,
    /// Panes whose titles carry the waiting mark, with the title to restore.
    marked: HashMap<u32, String>,
    last_frame: Option<Frame>,
}

impl Broker {
    pub fn new(config: Config) -> Self {
        Broker {
            config,
            ..Broker::default()
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
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

    /// A pipe message arrived.
    pub fn pipe(&mut self, msg: PipeIn) -> Vec<Effect> {
        let mut fx = Vec::new();
        let pipe = match msg.source {
            Source::Cli(id) => id,
            Source::Keybind | Source::Plugin => {
                if msg.name == SHOW_PIPE {
                    self.show(&mut fx);
                }
                return fx;
            }
        };
        if msg.name == STATUS_PIPE {
            if msg.payload.is_some() || !self.answered.contains(&pipe) {
                let mut output = self.status_json().to_string();
                output.push('\n');
                fx.push(Effect::Reply {
                    pipe: pipe.clone(),
                    output,
                });
                self.answered.insert(pipe);
            } else {
                self.answered.remove(&pipe);
            }
            return fx;
        }
        if msg.name == SHOW_PIPE {
            self.show(&mut fx);
            if !self.answered.contains(&pipe) {
                fx.push(Effect::Reply {
                    pipe: pipe.clone(),
                    output: String::new(),
                });
                self.answered.insert(pipe);
            } else {
                self.answered.remove(&pipe);
            }
            return fx;
        }

        let Some(payload) = msg.payload else {
            // The end of the CLI's input.
            if self.answered.remove(&pipe) {
                return fx;
            }
            if let Some(intake) = self.intakes.remove(&pipe) {
                // The input ended before a whole questionnaire arrived.
                let error = match request::parse(intake.text()) {
                    Err(e) => e,
                    Ok(_) => RequestError::NotJson {
                        detail: "it ends too early".to_owned(),
                    },
                };
                self.reject(
                    &pipe,
                    &error,
                    msg.args.get("id").map(String::as_str),
                    &mut fx,
                );
            }
            return fx;
        };
        if self.answered.contains(&pipe) {
            // More input after the request was answered (trailing lines): nothing to say.
            return fx;
        }
        let request_id = msg.args.get("id").cloned();
        let new_pipe = !self.intakes.contains_key(&pipe);
        let intake = self.intakes.entry(pipe.clone()).or_default();
        let assembly = intake.feed(&payload);
        if new_pipe && intake.is_blank() {
            // An empty questionnaire: answer now, while the CLI still waits.
            self.intakes.remove(&pipe);
            let error = RequestError::Missing {
                path: "questions".to_owned(),
                hint: "the payload was empty; send one JSON object with a \"questions\" array",
            };
            self.reject(&pipe, &error, request_id.as_deref(), &mut fx);
            return fx;
        }
        // A stdin line ends with its line break; a piece without one is the whole input (the
        // pipe's argument, or stdin's last line): nothing more will come for it.
        let last_piece = !payload.ends_with('\n');
        match assembly {
            Assembly::Incomplete if !last_piece => {
                // Let the CLI send the next line.
            }
            Assembly::Incomplete | Assembly::Complete | Assembly::Broken => {
                let intake = self.intakes.remove(&pipe).unwrap_or_default();
                let parsed = if intake.too_large() {
                    Err(RequestError::PayloadTooLarge {
                        bytes: intake.size(),
                    })
                } else {
                    request::parse(intake.text())
                };
                match parsed {
                    Ok(q) => self.accept(pipe, q, &msg.args, &mut fx),
                    Err(e) => self.reject(&pipe, &e, request_id.as_deref(), &mut fx),
                }
            }
        }
        fx
    }

    /// A CLI pipe message whose payload could not be taken in (over the size limit, or not
    /// UTF-8): the caller is answered at once, and any earlier lines of it are dropped.
    pub fn pipe_unreadable(
        &mut self,
        pipe: &str,
        args: &BTreeMap<String, String>,
        error: &RequestError,
    ) -> Vec<Effect> {
        let mut fx = Vec::new();
        self.intakes.remove(pipe);
        if !self.answered.contains(pipe) {
            self.reject(pipe, error, args.get("id").map(String::as_str), &mut fx);
        }
        fx
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
            if !handled {
                fx.push(Effect::Reply {
                    pipe: id,
                    output: String::new(),
                });
            }
        }
        fx
    }

    fn reject(
        &mut self,
        pipe: &str,
        error: &RequestError,
        request_id: Option<&str>,
        fx: &mut Vec<Effect>,
    ) {
        fx.push(Effect::Reply {
            pipe: pipe.to_owned(),
            output: envelope::rejection(error, request_id),
        });
        self.answered.insert(pipe.to_owned());
    }

    fn accept(
        &mut self,
        pipe: String,
        mut q: Questionnaire,
        args: &BTreeMap<String, String>,
        fx: &mut Vec<Effect>,
    ) {
        fx.push(Effect::Block(pipe.clone()));
        if q.timeout_ms.is_none() {
            q.timeout_ms = self.config.default_timeout_ms;
        }
        let pane = args.get("pane_id").and_then(|p| parse_pane_id(p));
        let agent = args
            .get("agent")
            .map(|a| crate::view::text::sanitize_line(a.trim()))
            .filter(|a| !a.is_empty());
        let request_id = args.get("id").cloned().filter(|id| !id.is_empty());

        // The same id asked again replaces the earlier request in its place in the queue;
        // what the user already gave carries over when the questions are the same.
        let earlier = request_id.as_ref().and_then(|id| {
            self.pending
                .iter()
                .position(|r| r.request_id.as_ref() == Some(id))
        });
        let dialog = match earlier {
            Some(i) if self.pending[i].dialog.questionnaire() == &q => {
                self.pending[i].dialog.clone()
            }
            _ => Dialog::new(q),
        };
        let request = Request {
            pipe,
            pane,
            agent,
            request_id,
            dialog,
            cache: ViewCache::new(),
            arrived_ms: self.now_ms,
        };
        let index = match earlier {
            Some(i) => {
                let old = std::mem::replace(&mut self.pending[i], request);
                self.finish_request(
                    old,
                    Outcome::Host {
                        code: ErrorCode::Superseded,
                        responses: Responses::default(),
                    },
                    fx,
                );
                i
            }
            None => {
                self.pending.push(request);
                self.pending.len() - 1
            }
        };
        let Some(request) = self.pending.get(index) else {
            return;
        };
        if self.config.indicator {
            fx.push(Effect::Broadcast {
                name: PROMPT_EVENT.to_owned(),
                payload: prompt_payload(request).to_string(),
            });
            self.push_blocked(request, true, fx);
        }
        if let Some(pane) = request.pane {
            self.mark_pane(pane, fx);
        }
        self.status_line(fx);
        if earlier.is_none() && self.pending.len() == 1 {
            self.current = 0;
        }
        self.show(fx);
        self.arm_timer(fx);
    }

    /// Every current status: the waiting requests, for scripts.
    pub fn status_json(&self) -> Value {
        let pending: Vec<Value> = self
            .pending
            .iter()
            .enumerate()
            .map(|(i, r)| {
                json!({
                    "agent": self.agent_name(r),
                    "paneId": r.pane,
                    "requestId": r.request_id,
                    "headers": r.dialog.questionnaire().questions.iter().map(|q| q.header.as_str()).collect::<Vec<_>>(),
                    "ageSeconds": self.now_ms.saturating_sub(r.arrived_ms) / 1000,
                    "shown": i == self.current && self.visible,
                })
            })
            .collect();
        json!({ "pending": pending, "visible": self.visible })
    }

    fn agent_name(&self, r: &Request) -> String {
        if let Some(agent) = &r.agent {
            return agent.clone();
        }
        if let Some(pane) = r.pane {
            let title = self
                .marked
                .get(&pane)
                .or_else(|| self.titles.get(&pane))
                .map(|t| t.trim())
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
        let payload = json!({
            "active": active,
            "label": WAITING_LABEL,
            "paneId": r.pane,
            "agent": self.agent_name(r),
            "pending": self.pending.len(),
        })
        .to_string();
        fx.push(Effect::Broadcast {
            name: BLOCKED_EVENT.to_owned(),
            payload: payload.clone(),
        });
        fx.push(Effect::Broadcast {
            name: HERDR_BLOCKED_EVENT.to_owned(),
            payload,
        });
    }

    fn mark_pane(&mut self, pane: u32, fx: &mut Vec<Effect>) {
        if !self.config.indicator || self.marked.contains_key(&pane) {
            return;
        }
        // Without the pane's title we cannot restore it: mark it when the title is known.
        if let Some(title) = self.titles.get(&pane).cloned() {
            fx.push(Effect::RenamePane {
                pane,
                title: format!("{TITLE_MARK}{title}"),
            });
            self.marked.insert(pane, title);
        }
    }

    fn unmark_pane(&mut self, pane: u32, fx: &mut Vec<Effect>) {
        if self.pending.iter().any(|r| r.pane == Some(pane)) {
            return;
        }
        if let Some(title) = self.marked.remove(&pane) {
            fx.push(Effect::RenamePane { pane, title });
        }
    }

    /// The host told us the titles of the terminal panes.
    pub fn pane_titles(&mut self, titles: impl IntoIterator<Item = (u32, String)>) -> Vec<Effect> {
        let mut fx = Vec::new();
        for (pane, title) in titles {
            if let Some(original) = self.marked.get_mut(&pane) {
                // Our own mark coming back, or a new title set by the program: keep the
                // latter (without our mark) as the one to restore.
                if let Some(stripped) = title.strip_prefix(TITLE_MARK) {
                    self.titles.insert(pane, stripped.to_owned());
                } else {
                    original.clone_from(&title);
                    fx.push(Effect::RenamePane {
                        pane,
                        title: format!("{TITLE_MARK}{title}"),
                    });
                    self.titles.insert(pane, title);
                }
            } else {
                self.titles.insert(pane, title);
            }
        }
        let waiting: Vec<u32> = self.pending.iter().filter_map(|r| r.pane).collect();
        for pane in waiting {
            self.mark_pane(pane, &mut fx);
        }
        fx
    }

    /// A terminal pane went away: its requests have no one to answer to.
    pub fn pane_closed(&mut self, pane: u32) -> Vec<Effect> {
        let mut fx = Vec::new();
        self.titles.remove(&pane);
        self.marked.remove(&pane);
        while let Some(i) = self.pending.iter().position(|r| r.pane == Some(pane)) {
            let responses = self.pending[i].dialog.responses();
            self.resolve(
                i,
                Outcome::Host {
                    code: ErrorCode::Dismissed,
                    responses,
                },
                &mut fx,
            );
        }
        fx
    }

    fn show(&mut self, fx: &mut Vec<Effect>) {
        if self.pending.is_empty() {
            return;
        }
        self.visible = true;
        fx.push(Effect::SetOwnTitle(self.own_title()));
        fx.push(Effect::Show);
        fx.push(Effect::Render);
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

    /// A one-second timer runs while anything is pending: it drives the countdowns and the
    /// clock behind `status`'s `ageSeconds` (the host gives no other notion of time).
    fn arm_timer(&mut self, fx: &mut Vec<Effect>) {
        if !self.timer_running && !self.pending.is_empty() {
            self.timer_running = true;
            fx.push(Effect::SetTimer(1.0));
        }
    }

    /// A timer fired after `elapsed` seconds.
    pub fn timer(&mut self, elapsed: f64) -> Vec<Effect> {
        let mut fx = Vec::new();
        self.timer_running = false;
        let ms = if elapsed.is_finite() && elapsed > 0.0 {
            (elapsed * 1000.0).round() as u64
        } else {
            1000
        };
        self.now_ms = self.now_ms.saturating_add(ms);
        let mut i = 0;
        while i < self.pending.len() {
            match self.pending[i].dialog.tick(ms) {
                Response::Finished(outcome) => self.resolve(i, outcome, &mut fx),
                Response::Render => {
                    if i == self.current && self.visible {
                        fx.push(Effect::Render);
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
        self.arm_timer(&mut fx);
        fx
    }

    /// User input in the popup.
    pub fn input(&mut self, input: Input) -> Vec<Effect> {
        let mut fx = Vec::new();
        let Some(request) = self.pending.get_mut(self.current) else {
            return fx;
        };
        let browsing = request.dialog.mode() == Mode::Browse;
        match input {
            Input::Key(Key::Char(c @ ('[' | ']'))) if browsing => {
                let n = self.pending.len();
                if n > 1 {
                    self.current = if c == ']' {
                        (self.current + 1) % n
                    } else {
                        (self.current + n - 1) % n
                    };
                    fx.push(Effect::SetOwnTitle(self.own_title()));
                    fx.push(Effect::Render);
                }
                return fx;
            }
            _ => {}
        }
        let before = (request.dialog.tab(), request.dialog.mode());
        match request.dialog.handle(input) {
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
            }
            Response::Finished(outcome) => {
                let i = self.current;
                self.resolve(i, outcome, &mut fx);
            }
        }
        fx
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

    /// The mouse wheel, at a cell when the host says where: negative lines scroll up.
    pub fn wheel(&mut self, at: Option<(usize, usize)>, lines: i32) -> Vec<Effect> {
        let target = at.and_then(|(line, col)| self.last_frame.as_ref()?.target_at(line, col));
        self.input(Input::Wheel { target, lines })
    }

    /// The popup pane is closing: answer everyone, nobody may be left hanging.
    pub fn before_close(&mut self) -> Vec<Effect> {
        let mut fx = Vec::new();
        while !self.pending.is_empty() {
            let responses = self.pending[0].dialog.responses();
            self.resolve(
                0,
                Outcome::Host {
                    code: ErrorCode::Dismissed,
                    responses,
                },
                &mut fx,
            );
        }
        for (pipe, intake) in std::mem::take(&mut self.intakes) {
            let _ = intake;
            fx.push(Effect::Reply {
                pipe,
                output: envelope::outcome(
                    &Questionnaire {
                        questions: Vec::new(),
                        timeout_ms: None,
                    },
                    &Outcome::Host {
                        code: ErrorCode::Dismissed,
                        responses: Responses::default(),
                    },
                    None,
                ),
            });
        }
        fx
    }

    /// Answers request `index` and removes it.
    fn resolve(&mut self, index: usize, outcome: Outcome, fx: &mut Vec<Effect>) {
        if index >= self.pending.len() {
            return;
        }
        let request = self.pending.remove(index);
        if self.current > index || self.current >= self.pending.len() {
            self.current = self.current.saturating_sub(1);
        }
        self.finish_request(request, outcome, fx);
        if self.pending.is_empty() {
            self.current = 0;
            if self.visible {
                self.visible = false;
            }
            fx.push(Effect::Hide);
            fx.push(Effect::SetOwnTitle("ask-popup".to_owned()));
        } else {
            fx.push(Effect::SetOwnTitle(self.own_title()));
            fx.push(Effect::Render);
        }
    }

    /// Replies to a request that is no longer in the queue, and says so to everyone.
    fn finish_request(&mut self, request: Request, outcome: Outcome, fx: &mut Vec<Effect>) {
        let q = request.dialog.questionnaire();
        let output = envelope::outcome(q, &outcome, request.request_id.as_deref());
        let event = self
            .config
            .indicator
            .then(|| self.outcome_event(&request, &outcome, &output));
        // The caller first: the events can wait a moment, the agent should not.
        fx.push(Effect::Reply {
            pipe: request.pipe.clone(),
            output,
        });
        self.answered.insert(request.pipe.clone());
        if let Some((name, payload)) = event {
            self.push_blocked(&request, false, fx);
            fx.push(Effect::Broadcast {
                name: name.to_owned(),
                payload: payload.to_string(),
            });
        }
        if let Some(pane) = request.pane {
            self.unmark_pane(pane, fx);
        }
        self.status_line(fx);
    }

    fn outcome_event(&self, r: &Request, outcome: &Outcome, output: &str) -> (&'static str, Value) {
        let q = r.dialog.questionnaire();
        let (answered, reason) = match outcome {
            Outcome::Submitted(responses) if !submitted_nothing(responses) => (true, "answered"),
            Outcome::Submitted(_) | Outcome::Declined(_) => (false, "declined"),
            Outcome::ChatRequested { .. } => (false, "chat"),
            Outcome::TimedOut(_) => (false, "timed_out"),
            Outcome::Host { code, .. } => (false, code.as_str()),
        };
        let mut payload = json!({
            "paneId": r.pane,
            "agent": self.agent_name(r),
            "requestId": r.request_id,
            "questions": q.questions.len(),
        });
        if answered {
            let count = match outcome {
                Outcome::Submitted(responses) => {
                    responses.answers.iter().filter(|a| a.is_some()).count()
                }
                _ => 0,
            };
            payload["answered"] = json!(count);
        } else {
            payload["reason"] = json!(reason);
        }
        if self.config.full_events {
            if let Ok(envelope) = serde_json::from_str::<Value>(output) {
                payload["result"] = envelope["details"].clone();
            }
        }
        (
            if answered {
                ANSWERED_EVENT
            } else {
                CANCELLED_EVENT
            },
            payload,
        )
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

    /// How many rows the current dialog needs at `cols` columns to show all of its tallest tab
    /// (0 when nothing is pending), so the popup can be no taller than that.
    pub fn natural_height(&mut self, cols: usize) -> usize {
        /// Tall enough for any dialog; a longer preview is cut at the popup's maximum anyway.
        const UNLIMITED: usize = 500;
        let chrome = Chrome {
            banner: self.banner(),
            hide_key: self.config.hide_key_label.clone(),
        };
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
        let banner = self.banner();
        let chrome = Chrome {
            banner,
            hide_key: self.config.hide_key_label.clone(),
        };
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

fn submitted_nothing(r: &Responses) -> bool {
    r.is_empty()
}

/// `$ZELLIJ_PANE_ID` is a bare number; `terminal_3` is accepted too.
fn parse_pane_id(s: &str) -> Option<u32> {
    let s = s.trim();
    s.strip_prefix("terminal_").unwrap_or(s).parse().ok()
}

/// The prompt event: the questions without preview bodies.
fn prompt_payload(r: &Request) -> Value {
    let questions: Vec<Value> = r
        .dialog
        .questionnaire()
        .questions
        .iter()
        .map(|q| {
            json!({
                "question": q.question,
                "header": q.header,
                "multiSelect": q.multi_select,
                "options": q.options.iter().map(|o| json!({
                    "label": o.label,
                    "description": o.description,
                    "hasPreview": o.preview.is_some(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "questions": questions,
        "paneId": r.pane,
        "agent": r.agent,
        "requestId": r.request_id,
    })
}
