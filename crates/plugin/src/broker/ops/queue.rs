//! The pending requests: accepting, superseding, withdrawing and ending them, each with exactly
//! one reply, and what everyone else is told about it. (Their order, and which one is on
//! screen, are the queue's: `broker/queue.rs`.)

use crate::broker::{arrival::keeps_reply, pipes::*, request::*, state::Broker};
use crate::dialog::Dialog;
use crate::effect::Effect;
use crate::outgoing::{
    to_json, Blocked, Ended, PeerKind, Prompt, Status, StatusEntry, BLOCKED_EVENT,
    HERDR_BLOCKED_EVENT, PROMPT_EVENT, WAITING_LABEL,
};
use ask_popup_protocol::elicitation::answers::shown_to_others;
use ask_popup_protocol::envelope::{self, ErrorCode, Outcome, Responses};
use ask_popup_protocol::request::Questionnaire;
use serde_json::Value;
use std::collections::BTreeMap;

/// Whether a request that ends is an entry of the record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Record {
    Entry,
    /// Superseded by its caller's retry: the same request, recorded when the retry ends.
    Not,
}

impl Broker {
    /// `questionnaire`, with the configured timeout when it carries none.
    pub(super) fn with_default_timeout(&self, mut questionnaire: Questionnaire) -> Questionnaire {
        if questionnaire.timeout_ms.is_none() {
            questionnaire.timeout_ms = self.config.default_timeout_ms;
        }
        questionnaire
    }

    pub(super) fn accept(
        &mut self,
        pipe: String,
        questionnaire: Questionnaire,
        bytes: usize,
        args: &BTreeMap<String, String>,
        effects: &mut Vec<Effect>,
    ) {
        let caller = Asker::of(args);
        let request_id = args.get("id").cloned().filter(|id| !id.is_empty());
        let questionnaire = self.with_default_timeout(questionnaire);
        if let Some(id) = &request_id {
            if self.arrivals.take_withdrawal(&caller, id) {
                // Its withdrawal overtook it.
                let output = envelope::host_error(ErrorCode::Aborted, Some(id));
                if self.leads() {
                    let ending = ErrorCode::Aborted.as_str();
                    self.record_unasked(args, Some(&questionnaire), ending, &output, effects);
                }
                self.reply_shared(&pipe, output, effects);
                return;
            }
            if let Some(output) = self.arrivals.kept_reply(&caller, id, &questionnaire) {
                // It ended a moment ago and is asked again: its caller never got the reply.
                self.reply_shared(&pipe, output, effects);
                return;
            }
        }
        effects.push(Effect::Block(pipe.clone()));
        // Shown already while the hellos came in: this request takes its place.
        let shown = self.take_provisional(&pipe);

        // The same caller asking again with the same id replaces its earlier request in its
        // place in the queue. The same questionnaire again is the caller's retry (Zellij
        // dropped its first CLI): the same request, so what the user already gave carries
        // over and the record keeps one entry. Another caller's id is another request.
        let earlier = request_id
            .as_ref()
            .and_then(|id| self.queue.position_of(&caller, id));
        let retried = earlier
            .and_then(|i| self.queue.get(i))
            .filter(|r| r.dialog.questionnaire() == &questionnaire);
        let dialog = match retried {
            Some(r) => r.dialog.clone(),
            None => Dialog::new(questionnaire),
        };
        let retry = retried.is_some();
        let mut request = Request::new(pipe, args, dialog, bytes, self.now_ms);
        if let Some(shown) = shown {
            request.take_over(shown);
        }
        // The request on screen asked again (its caller's retry) while the popup shows it:
        // nothing on screen changes, so it stays there as it was, its key guard too, and the
        // popup is not shown again (a show takes the focus, which is what the guard is for).
        let stays_on_screen = retry && earlier.is_some_and(|i| self.is_shown(i));
        let index = match earlier {
            Some(i) => {
                let old = self.queue.replace(i, request);
                if stays_on_screen {
                    if let (Some(on_screen), Some(r)) = (self.on_screen.as_mut(), self.queue.get(i))
                    {
                        on_screen.moved_to(&r.pipe);
                    }
                }
                if let Some(r) = self.queue.get_mut(i).filter(|_| retry) {
                    // The same request, as old as it was. (Shown again, after the popup was
                    // hidden, it is guarded anew, as anything that shows: see
                    // `Broker::on_screen_changed`.)
                    r.arrived_ms = old.arrived_ms;
                }
                let outcome = Outcome::Host {
                    code: ErrorCode::Superseded,
                    responses: Responses::default(),
                };
                let record = if retry { Record::Not } else { Record::Entry };
                self.finish_request(old, outcome, Decided::Everywhere, record, effects);
                i
            }
            None => self.queue.push(request),
        };
        self.announce(index, effects);
        self.status_line(effects);
        if stays_on_screen {
            effects.push(Effect::SetOwnTitle(self.own_title()));
            effects.push(Effect::Render);
            self.on_screen_changed(false, effects);
        } else {
            self.show(effects);
        }
    }

    /// Tells everyone that request `index` waits, as the leader (which then owes its end),
    /// and marks its caller's pane.
    fn announce(&mut self, index: usize, effects: &mut Vec<Effect>) {
        // Another session's question is announced by its own session, whose pane waits.
        let own = self
            .queue
            .get(index)
            .is_some_and(|r| r.from_session.is_none());
        let announce = self.config.indicator && self.leads() && own;
        if let Some(request) = self.queue.get_mut(index) {
            request.owed_ends = request.owed_ends.saturating_add(u8::from(announce));
        }
        let Some(request) = self.queue.get(index) else {
            return;
        };
        if announce {
            let prompt = Prompt::new(
                request.dialog.questionnaire(),
                request.pane,
                request.agent.as_deref(),
                request.request_id.as_deref(),
            );
            effects.push(Effect::Broadcast {
                name: PROMPT_EVENT.to_owned(),
                payload: to_json(&prompt),
            });
            self.push_blocked(request, true, effects);
        }
        // Every instance keeps the marks' state; only the leader's renames are made.
        if let (true, Some(pane)) = (self.config.indicator, request.pane) {
            self.marks.mark(pane, effects);
        }
    }

    /// The `cancel` pipe: withdraws the caller's pending requests with the given id. How many.
    pub(super) fn withdraw(
        &mut self,
        args: &BTreeMap<String, String>,
        effects: &mut Vec<Effect>,
    ) -> usize {
        let Some(id) = args.get("id").filter(|id| !id.is_empty()) else {
            return 0;
        };
        let caller = Asker::of(args);
        // Answered in another session, which records it: no entry here.
        let record = if args.get(ANSWERED_ELSEWHERE_ARG).is_some_and(|v| v == "1") {
            Record::Not
        } else {
            Record::Entry
        };
        let mut withdrawn = 0;
        while let Some(i) = self.queue.position_of(&caller, id) {
            self.end_by_host_recorded(i, ErrorCode::Aborted, record, effects);
            withdrawn += 1;
        }
        if withdrawn == 0 && record == Record::Not && self.arrivals.forget_answer(&caller, id) {
            // Answered here too, at the same time as in the session whose answer its caller
            // took: the entry written here says so (`history::read` puts it in place of the
            // answer recorded here).
            self.record_answered_elsewhere(args, &caller, id, effects);
        }
        if withdrawn == 0 {
            // The question may still be on its way: answer it `aborted` when it comes.
            self.arrivals.note_withdrawal(caller, id, self.now_ms);
        }
        withdrawn
    }

    /// Answers request `index` and removes it.
    pub(super) fn resolve(
        &mut self,
        index: usize,
        outcome: Outcome,
        decided: Decided,
        effects: &mut Vec<Effect>,
    ) {
        self.resolve_recorded(index, outcome, decided, Record::Entry, effects);
    }

    /// `resolve`, with or without its entry of the record.
    fn resolve_recorded(
        &mut self,
        index: usize,
        outcome: Outcome,
        decided: Decided,
        record: Record,
        effects: &mut Vec<Effect>,
    ) {
        if index >= self.queue.len() {
            return;
        }
        let request = self.queue.take(index);
        // The caller first: the popup and the events can wait a moment, the agent should not.
        self.finish_request(request, outcome, decided, record, effects);
        self.after_removal(effects);
    }

    /// Ends request `index` for a reason of the host's (`code`), which every instance saw
    /// alike; what the user gave so far goes with it.
    fn end_by_host(&mut self, index: usize, code: ErrorCode, effects: &mut Vec<Effect>) {
        self.end_by_host_recorded(index, code, Record::Entry, effects);
    }

    /// `end_by_host`, with or without its entry of the record.
    fn end_by_host_recorded(
        &mut self,
        index: usize,
        code: ErrorCode,
        record: Record,
        effects: &mut Vec<Effect>,
    ) {
        let Some(request) = self.queue.get(index) else {
            return;
        };
        let outcome = Outcome::Host {
            code,
            responses: request.dialog.responses(),
        };
        self.resolve_recorded(index, outcome, Decided::Everywhere, record, effects);
    }

    /// The popup after a request left the queue: the next one, or hidden.
    pub(super) fn after_removal(&mut self, effects: &mut Vec<Effect>) {
        if self.queue.is_empty() && self.showing_history() {
            // The list stays (its footer no longer offers the way back).
            effects.push(Effect::Render);
        } else if self.queue.is_empty() {
            self.visible = false;
            effects.push(Effect::Hide);
            effects.push(Effect::SetOwnTitle("ask-popup".to_owned()));
        } else {
            effects.push(Effect::SetOwnTitle(self.own_title()));
            if self.visible {
                effects.push(Effect::FitAnew);
            }
            effects.push(Effect::Render);
        }
        self.on_screen_changed(false, effects);
    }

    /// Replies to a request that is no longer in the queue, and says so to everyone; `record`
    /// says whether it is an entry of the record of its own.
    pub(super) fn finish_request(
        &mut self,
        request: Request,
        outcome: Outcome,
        decided: Decided,
        record: Record,
        effects: &mut Vec<Effect>,
    ) {
        let questionnaire = request.dialog.questionnaire();
        let output = envelope::outcome(questionnaire, &outcome, request.request_id.as_deref());
        // The reply goes to its caller alone; everyone else hears it with a form's secrets
        // hidden.
        let shown = shown_to_others(questionnaire, &output);
        let event = self.ended(&request, &outcome, &shown);
        self.arrivals.remember(&request.pipe, self.now_ms);
        let superseded = matches!(
            outcome,
            Outcome::Host {
                code: ErrorCode::Superseded,
                ..
            }
        );
        if !superseded && keeps_reply(questionnaire) {
            // (A superseded request's id belongs to the request that replaced it.)
            let id = request.request_id.as_deref();
            self.arrivals
                .remember_reply(&request.caller, id, request.digest, &output, self.now_ms);
        }
        let tell_peers = decided == Decided::Here && self.peers.has_others();
        if decided == Decided::Here || self.leads() {
            effects.push(Effect::Reply {
                pipe: request.pipe.clone(),
                output: output.clone(),
            });
            let ending = envelope::ending(&outcome);
            let ending = ending.reason.unwrap_or("answered");
            // Another session's question is recorded here only when the person answered it
            // here; otherwise its own session records how it ended.
            let users = !matches!(outcome, Outcome::TimedOut(_) | Outcome::Host { .. });
            if record == Record::Entry && (request.from_session.is_none() || users) {
                self.record_request(&request, ending, &output, effects);
            }
        }
        if tell_peers {
            // The other instances drop it; the leader says how it ended. (Alone, this costs
            // the caller nothing: Zellij would hand the message back before the reply.)
            let settled = PeerKind::Settled {
                pipe: request.pipe.clone(),
                event: event.clone(),
                reply: shown.into_owned(),
            };
            effects.push(self.peers.message(settled));
        }
        self.after_request(&request, Some(event), effects);
        self.ended.push(request);
    }

    /// What follows a request's end: the blocked pair closes, the outcome event, the caller's
    /// title back, the status line.
    pub(super) fn after_request(
        &mut self,
        request: &Request,
        event: Option<Ended>,
        effects: &mut Vec<Effect>,
    ) {
        if request.owed_ends > 0 {
            for _ in 0..request.owed_ends {
                self.push_blocked(request, false, effects);
            }
            if let Some(event) = event {
                effects.push(Effect::Broadcast {
                    name: event.name().to_owned(),
                    payload: to_json(&event),
                });
            }
        } else if let (true, Some(event)) = (self.config.indicator, event) {
            // Announced elsewhere: said by whoever owes it, or here if it is handed over.
            self.peers.keep_unsaid_end(&request.pipe, event);
        }
        if let Some(pane) = request.pane {
            self.unmark_if_idle(pane, effects);
        }
        self.status_line(effects);
    }

    /// The `ask-popup:answered` / `ask-popup:cancelled` event for `r` ending as `outcome`,
    /// its reply `shown` as others see it (`shown_to_others`).
    pub(super) fn ended(&self, r: &Request, outcome: &Outcome, shown: &str) -> Ended {
        let ending = envelope::ending(outcome);
        let result = self.config.full_events.then(|| {
            let reply = serde_json::from_str::<Value>(shown).ok();
            reply
                .and_then(|mut r| r.get_mut("details").map(Value::take))
                .unwrap_or_default()
        });
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

    /// A terminal pane went away: its requests have no one to answer to.
    pub fn pane_closed(&mut self, pane: u32) -> Vec<Effect> {
        let mut effects = Vec::new();
        // Named by the pane's title, which goes with the pane: the name stays with its requests
        // (their ends say who asked).
        let title = self
            .marks
            .title(pane)
            .map(crate::view::text::sanitize_line)
            .filter(|t| !t.trim().is_empty());
        for r in self.queue.iter_mut().filter(|r| r.pane == Some(pane)) {
            if r.agent.is_none() {
                r.agent.clone_from(&title);
            }
        }
        for w in self.waits.iter_mut().filter(|w| w.pane == Some(pane)) {
            if w.agent.is_none() {
                w.agent.clone_from(&title);
            }
        }
        self.marks.forget(pane);
        self.end_waits(|w| w.pane == Some(pane), &mut effects);
        // What only shows is asked when the gate opens, and ends then.
        while let Some(i) = self
            .queue
            .iter()
            .position(|r| r.pane == Some(pane) && !r.provisional)
        {
            self.end_by_host(i, ErrorCode::Dismissed, &mut effects);
        }
        self.done(effects)
    }

    /// The popup pane is closing: answer everyone, nobody may be left hanging.
    pub fn before_close(&mut self) -> Vec<Effect> {
        // What waits behind the gate is taken in first, so that its callers are answered too
        // (a CLI held while the hellos came in would wait for good otherwise).
        let mut effects = if self.gate.is_open() {
            Vec::new()
        } else {
            self.release(false)
        };
        while !self.queue.is_empty() {
            self.end_by_host(0, ErrorCode::Dismissed, &mut effects);
        }
        self.end_waits(|_| true, &mut effects);
        for (pipe, args) in self.arrivals.take_partials() {
            let code = ErrorCode::Dismissed;
            self.reply_unasked(&pipe, &args, code, &mut effects);
        }
        // Closing the popup unloads the plugin, and Zellij can lose a reply on the way out: its
        // caller then asks again with the same id, which loads a fresh instance. That one must
        // repeat the reply, not show the question the user just closed. Kept before any reply
        // goes out: a caller that asks again at once finds it.
        if let Some(kept) = self.arrivals.kept_replies() {
            effects.insert(0, Effect::KeepAcrossReload(kept));
        }
        self.done(effects)
    }

    /// Every current status: the waiting requests, for scripts.
    pub fn status(&self) -> Status<'_> {
        let pending = self
            .queue
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.provisional)
            .map(|(i, r)| StatusEntry {
                agent: self.agent_name(r),
                pane_id: r.pane,
                request_id: r.request_id.as_deref(),
                headers: r
                    .dialog
                    .questionnaire()
                    .questions
                    .iter()
                    .map(|question| question.header.as_str())
                    .collect(),
                age_seconds: self.now_ms.saturating_sub(r.arrived_ms) / 1000,
                shown: i == self.queue.current_index() && self.visible,
                session: r.from_session.as_deref(),
            })
            .collect();
        Status {
            pending,
            visible: self.visible,
            held: None,
        }
    }

    /// `status` as JSON.
    pub fn status_json(&self) -> Value {
        serde_json::to_value(self.status()).unwrap_or_default()
    }

    pub(super) fn agent_name(&self, r: &Request) -> String {
        self.caller_name(r.agent.as_deref(), r.pane)
    }

    /// Who asks, as the dialog names it: its `agent` argument, else its pane's title, else a
    /// word for it.
    pub(super) fn caller_name(&self, agent: Option<&str>, pane: Option<u32>) -> String {
        if let Some(agent) = agent {
            return agent.to_owned();
        }
        if let Some(pane) = pane {
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
    pub(super) fn push_blocked(&self, r: &Request, active: bool, effects: &mut Vec<Effect>) {
        let agent = self.agent_name(r);
        self.push_blocked_of(r.pane, &agent, r.request_id.as_deref(), active, effects);
    }

    /// The same broadcasts, for the wait of `agent` in `pane` with `request_id`.
    pub(super) fn push_blocked_of(
        &self,
        pane: Option<u32>,
        agent: &str,
        request_id: Option<&str>,
        active: bool,
        effects: &mut Vec<Effect>,
    ) {
        let payload = to_json(&Blocked {
            active,
            label: WAITING_LABEL,
            pane_id: pane,
            agent,
            pending: self.waiting(),
            request_id,
        });
        effects.push(Effect::Broadcast {
            name: BLOCKED_EVENT.to_owned(),
            payload: payload.clone(),
        });
        effects.push(Effect::Broadcast {
            name: HERDR_BLOCKED_EVENT.to_owned(),
            payload,
        });
    }

    /// The status bar's line, from the leader.
    pub(super) fn status_line(&self, effects: &mut Vec<Effect>) {
        if !self.config.zjstatus || !self.leads() {
            return;
        }
        let text = match self.waiting() {
            0 => String::new(),
            n => format!("⏳ {n} waiting"),
        };
        effects.push(Effect::Broadcast {
            name: "zjstatus".to_owned(),
            payload: format!("zjstatus::pipe::pipe_ask::{text}"),
        });
    }

    /// The host told us the titles of the terminal panes.
    pub fn pane_titles(&mut self, titles: impl IntoIterator<Item = (u32, String)>) -> Vec<Effect> {
        let mut effects = Vec::new();
        for (pane, title) in titles {
            self.marks.update(pane, &title, &mut effects);
        }
        if self.config.indicator {
            let mut waiting: Vec<u32> = self.asked().filter_map(|r| r.pane).collect();
            waiting.extend(self.waits_panes());
            for pane in waiting {
                self.marks.mark(pane, &mut effects);
            }
        }
        self.done(effects)
    }
}
