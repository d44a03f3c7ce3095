//! The gate: pipe messages wait, their CLIs blocked, until the user answers Zellij's
//! permission request and the other instances have said hello; then they are answered as if
//! they came then. What waits counts toward the payloads held (`MAX_PENDING_BYTES`), as the
//! questions asked and arriving do. And the grant itself, which is not always what Zellij says
//! it is (see `Grant`).

use crate::broker::{
    config::*,
    gate::{holds_withdrawal, Gate, Held, GRANT_SILENCE_MS, MAX_HELD_INPUT},
    pipes::*,
    request::*,
    state::Broker,
};
use crate::dialog::{Dialog, Input};
use crate::effect::Effect;
use crate::intake::{Assembly, Intake};
use ask_popup_protocol::envelope::ErrorCode;
use ask_popup_protocol::request;
use std::collections::{BTreeMap, VecDeque};

impl Broker {
    /// Zellij holds the plugin back until the user answers its permission request: hold every
    /// pipe message until then (see `permission`).
    pub fn await_permission(&mut self) {
        self.gate.state = Gate::Permission;
    }

    /// Whether the user denied the permissions (the popup says how to grant them).
    pub fn permission_denied(&self) -> bool {
        self.gate.grant.denied
    }

    /// Whether the instance still awaits the answer to its permission request.
    pub fn awaits_permission(&self) -> bool {
        self.gate.state == Gate::Permission && self.gate.grant.granted_ms.is_none()
    }

    /// An event that needs the permissions came (a tab, pane or mode update) to this instance,
    /// of client `client`: the grant holds. Zellij sends such events only to an instance that
    /// has the grant, yet Zellij 0.45.1 at times sends the answer to a newly attached client's
    /// permission request to another instance, and this one would hold every message for
    /// good: still without an answer `GRANT_SILENCE_MS` after such an event, it takes the event
    /// for the grant.
    pub fn application_state_heard(&mut self, client: u16) -> Vec<Effect> {
        self.gate.grant.state_heard = true;
        if !self.awaits_permission() {
            return Vec::new();
        }
        if self.gate.grant.first_state_heard(self.now_ms, client) {
            return vec![Effect::SetTimer(GRANT_SILENCE_MS as f64 / 1000.0)];
        }
        self.grant_unanswered(0)
    }

    /// Still no answer `GRANT_SILENCE_MS` (less `early_ms`, for a timer that fires a little
    /// early) after `application_state_heard` first heard an event that needs the grant: the
    /// grant holds.
    pub(super) fn grant_unanswered(&mut self, early_ms: u64) -> Vec<Effect> {
        match self.gate.grant.silent_client(self.now_ms, early_ms) {
            Some(client) if self.awaits_permission() => self.permission(true, client),
            _ => Vec::new(),
        }
    }

    /// Asks for the permissions again when the grant is in doubt (see `Grant`) and the user
    /// acts (`acting`) or it has been in doubt for `GRANT_SILENCE_MS`.
    pub(super) fn check_grant(&mut self, acting: bool, effects: &mut Vec<Effect>) {
        if self.gate.grant.ask_again(self.now_ms, acting) {
            effects.push(Effect::RequestPermission);
        }
    }

    /// Holds the user's `input` while the grant is in doubt (asking again): whether it did.
    pub(super) fn hold_input_in_doubt(&mut self, input: &Input, effects: &mut Vec<Effect>) -> bool {
        if !self.gate.grant.in_doubt() {
            return false;
        }
        self.check_grant(true, effects);
        if self.gate.grant.held_input.len() < MAX_HELD_INPUT {
            let at = self.input_target();
            self.gate.grant.held_input.push((input.clone(), at));
        }
        true
    }

    /// What input goes to now: the CLI pipe of the request on screen, or none (the list of
    /// those asked before, or nothing).
    fn input_target(&self) -> Option<String> {
        if self.showing_history() {
            return None;
        }
        self.queue.current().map(|r| r.pipe.clone())
    }

    /// The user answered the permission request. Granted, this instance (for client
    /// `client`) says hello to the others and listens for theirs a moment before it answers
    /// what it held; denied, it answers what it can at once.
    pub fn permission(&mut self, granted: bool, client: u16) -> Vec<Effect> {
        if granted && self.gate.grant.granted_ms.is_some() {
            // Granted again: the answer to asking again (see `Grant`), or Zellij telling every
            // instance of a grant given without a client. This instance serves, holding
            // messages again would only delay them, and what the user did meanwhile counts
            // now.
            self.gate.grant.regranted = true;
            let mut effects = Vec::new();
            for (input, at) in std::mem::take(&mut self.gate.grant.held_input) {
                // Only onto what it was typed at: the request on screen may have ended, or
                // another one come before it, meanwhile. And never onto an approval: held
                // keys come back all at once, a burst that must not allow (see
                // `KEY_GUARD_MS`); the person presses them again.
                let approval = self
                    .queue
                    .current()
                    .is_some_and(|r| r.dialog.questionnaire().approval);
                if self.input_target() != at || (approval && at.is_some()) {
                    continue;
                }
                effects.extend(self.input(input));
            }
            return effects;
        }
        self.gate.grant.denied = !granted;
        if granted {
            self.gate.grant.granted_ms = Some(self.now_ms);
        }
        // The pane's own name instead of Zellij's (its folder and the plugin's URL), unless a
        // question shows at once and names it.
        let named = |mut effects: Vec<Effect>| {
            if !effects.iter().any(|e| matches!(e, Effect::SetOwnTitle(_))) {
                effects.insert(0, Effect::SetOwnTitle("ask-popup".to_owned()));
            }
            effects
        };
        if !granted {
            return named(self.release(false));
        }
        let mut effects = self.join(client);
        self.gate.listen_for_hellos(self.now_ms);
        effects.push(Effect::SetTimer(HELLO_WINDOW_MS as f64 / 1000.0));
        let held = std::mem::take(&mut self.gate.held);
        for (i, msg) in held.iter().enumerate() {
            if let Held::Pipe(msg) = msg {
                let continues = held.range(..i).any(|h| h.cli() == msg.source.cli());
                self.preview(msg, continues, &held, &mut effects);
            }
        }
        self.gate.held = held;
        named(self.done(effects))
    }

    /// While the hellos come in, a question held behind the gate shows at once, as a
    /// provisional request: the user sees it as soon as it came, and it is asked (answered,
    /// announced, marked) when the gate opens, by whichever instance leads then, in place of
    /// the provisional one. Only a whole questionnaire that will be asked as it is shows: one
    /// answered at once when the gate opens (invalid, withdrawn, asked before) or taking a
    /// waiting request's place does not, nor a payload of several lines (a questionnaire on
    /// one line of stdin, as `ask-popup ask` sends it, does). `continues`: an earlier message
    /// of its pipe waits behind the gate; `held`: what waits behind the gate besides.
    fn preview(
        &mut self,
        msg: &PipeIn,
        continues: bool,
        held: &VecDeque<Held>,
        effects: &mut Vec<Effect>,
    ) {
        let (Source::Cli(pipe), Some(payload)) = (&msg.source, &msg.payload) else {
            return;
        };
        if self.gate.state != Gate::Hellos
            || continues
            || !is_question_pipe(&msg.name)
            || self.arrivals.is_arriving(pipe)
            || self.arrivals.was_answered(pipe)
            || self.queue.iter().any(|r| r.pipe == *pipe)
        {
            return;
        }
        let caller = Asker::of(&msg.args);
        let id = msg.args.get("id").filter(|id| !id.is_empty());
        if let Some(id) = id {
            let waiting = self.queue.position_of(&caller, id).is_some();
            if waiting
                || self.arrivals.is_withdrawn(&caller, id)
                || holds_withdrawal(held, &caller, id)
            {
                return;
            }
        }
        let mut intake = Intake::new();
        if intake.feed(payload) != Assembly::Complete && payload.ends_with('\n') {
            // The first line of several: the questionnaire is asked once it is whole.
            return;
        }
        if intake.too_large() || intake.is_blank() {
            return;
        }
        let Ok(questionnaire) = request::parse(intake.text()) else {
            return;
        };
        let questionnaire = self.with_default_timeout(questionnaire);
        // Asked again after it ended: its reply is repeated, nothing shows.
        let answered = |id: &String| {
            self.arrivals
                .kept_reply(&caller, id, &questionnaire)
                .is_some()
        };
        if id.is_some_and(answered) {
            return;
        }
        let dialog = Dialog::new(questionnaire);
        let mut request = Request::new(pipe.clone(), &msg.args, dialog, 0, self.now_ms);
        request.provisional = true;
        self.queue.push(request);
        self.show(effects);
    }

    /// Takes the provisional requests out of the queue, unasked: their messages are held, or
    /// came to nothing.
    pub(super) fn drop_provisional(&mut self, effects: &mut Vec<Effect>) {
        let mut dropped = false;
        while let Some(i) = self.queue.iter().position(|r| r.provisional) {
            self.queue.take(i);
            dropped = true;
        }
        if dropped {
            self.after_removal(effects);
        }
    }

    /// Takes out of the queue the provisional requests that a `cancel` of arguments `args`
    /// withdraws.
    fn unshow_withdrawn(&mut self, args: &BTreeMap<String, String>, effects: &mut Vec<Effect>) {
        let Some(id) = args.get("id").filter(|id| !id.is_empty()) else {
            return;
        };
        let caller = Asker::of(args);
        let withdrawn =
            |r: &Request| r.provisional && r.caller == caller && r.request_id.as_ref() == Some(id);
        if let Some(i) = self.queue.iter().position(withdrawn) {
            self.queue.take(i);
            self.after_removal(effects);
        }
    }

    /// The provisional request of CLI pipe `pipe`, taken out of the queue.
    pub(super) fn take_provisional(&mut self, pipe: &str) -> Option<Request> {
        let i = self
            .queue
            .iter()
            .position(|r| r.provisional && r.pipe == pipe)?;
        Some(self.queue.take(i))
    }

    /// Answers the messages held behind the gate, as if they came now. `hide`: the popup
    /// hides if nothing is left to ask (it showed itself for the permission request).
    pub(super) fn release(&mut self, hide: bool) -> Vec<Effect> {
        self.gate.state = Gate::Open;
        let mut effects = Vec::new();
        // One at a time: what still waits counts toward what is held meanwhile.
        while let Some(held) = self.gate.held.pop_front() {
            effects.extend(match held {
                Held::Pipe(msg) => self.replay_held(msg),
                Held::Unreadable { pipe, args, error } => {
                    self.pipe_unreadable(&pipe, &args, &error)
                }
                Held::Busy { pipe, args } => {
                    let mut effects = Vec::new();
                    self.arrivals.drop_partial(&pipe);
                    self.reply_unasked(&pipe, &args, ErrorCode::Busy, &mut effects);
                    self.done(effects)
                }
            });
        }
        // Shown, but its message came to nothing (withdrawn, answered elsewhere meanwhile).
        self.drop_provisional(&mut effects);
        // The replies a closing instance kept are read, and the instance that answers the
        // callers asking again has them: the file, which holds answers, goes.
        if self.leads() && std::mem::take(&mut self.arrivals.recalled) {
            effects.push(Effect::ForgetKeptAcrossReload);
        }
        if hide && self.queue.is_empty() {
            effects.push(Effect::Hide);
        }
        self.sync_late_newcomers(&mut effects);
        effects.push(Effect::Render);
        effects
    }

    /// Holds `held` behind the gate, keeping its CLI waiting.
    pub(super) fn hold(&mut self, held: Held) -> Vec<Effect> {
        let Some(pipe) = held.cli().map(str::to_owned) else {
            // Nobody waits for a plugin's or a keybinding's message, and of those only `show`
            // does anything once the gate opens: one is held, the rest are let go.
            let show =
                |h: &Held| matches!(h, Held::Pipe(m) if h.cli().is_none() && m.name == SHOW_PIPE);
            if show(&held) && !self.gate.held.iter().any(show) {
                self.gate.held.push_back(held);
            }
            return Vec::new();
        };
        let busy = |h: &Held| matches!(h, Held::Busy { pipe: p, .. } if *p == pipe);
        if self.gate.held.iter().any(busy) {
            // To be answered `busy`: the rest of its input is not kept either.
            return vec![Effect::Block(pipe)];
        }
        // A question asked again with the id of a waiting one takes its place (see
        // `question_piece`): only the difference counts.
        let replaced = match &held {
            Held::Pipe(msg) if is_question_pipe(&msg.name) => self.replaced_bytes(&msg.args),
            _ => 0,
        };
        let held_then = self.held_bytes().saturating_sub(replaced);
        if held_then.saturating_add(held.bytes()) > MAX_PENDING_BYTES {
            // Holding more could exhaust the plugin's memory. It is answered when the gate
            // opens, not now: before the grant Zellij refuses a plugin's reply, and until the
            // hellos are in nobody knows which instance answers.
            let args = match held {
                Held::Pipe(msg) => msg.args,
                Held::Unreadable { args, .. } | Held::Busy { args, .. } => args,
            };
            self.gate.held.retain(|h| h.cli() != Some(pipe.as_str()));
            self.gate.held.push_back(Held::Busy {
                pipe: pipe.clone(),
                args,
            });
            return vec![Effect::Block(pipe)];
        }
        let mut effects = vec![Effect::Block(pipe)];
        if let Held::Pipe(msg) = &held {
            let queue = std::mem::take(&mut self.gate.held);
            let continues = queue.iter().any(|h| h.cli() == held.cli());
            self.preview(msg, continues, &queue, &mut effects);
            self.gate.held = queue;
            if msg.name == CANCEL_PIPE {
                // The question it withdraws no longer shows: it is answered `aborted` when
                // the gate opens.
                self.unshow_withdrawn(&msg.args, &mut effects);
            }
        }
        self.gate.held.push_back(held);
        self.done(effects)
    }

    /// A pipe message the plugin held, its CLI blocked, until the permission answer came. As
    /// `pipe`, except that a CLI the message neither keeps waiting nor answers (the first line
    /// of a payload still coming on stdin) is let go with an empty reply: nobody else would
    /// release it, and it would never send the rest.
    pub fn replay_held(&mut self, msg: PipeIn) -> Vec<Effect> {
        let cli = match &msg.source {
            Source::Cli(id) => Some(id.clone()),
            Source::Plugin(_) | Source::Keybind => None,
        };
        let mut effects = self.pipe(msg);
        if let Some(id) = cli {
            let handled = effects
                .iter()
                .any(|e| matches!(e, Effect::Block(p) | Effect::Reply { pipe: p, .. } if *p == id));
            if !handled && self.leads() {
                effects.push(Effect::Reply {
                    pipe: id,
                    output: String::new(),
                });
            }
        }
        effects
    }
}
