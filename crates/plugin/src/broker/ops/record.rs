//! The record of every questionnaire (`ask_popup_protocol::history`): the instance that replies to a request
//! writes its entry, once, whoever asked and however it ended (`Effect::Record`).

use crate::broker::{pipes::*, request::*, state::Broker};
use crate::effect::Effect;
use ask_popup_protocol::elicitation::answers::shown_to_others;
use ask_popup_protocol::history::{Entry, RecordedQuestion, FORM_DECLINED};
use ask_popup_protocol::request::Questionnaire;
use std::collections::BTreeMap;

impl Broker {
    /// The host's wall clock when the broker's clock read 0, in milliseconds since the Unix
    /// epoch: the record says when things happened.
    pub fn set_epoch(&mut self, unix_ms: u64) {
        self.stamp.epoch_ms = unix_ms;
    }

    /// The session's name, for the record.
    pub fn set_session(&mut self, name: &str) {
        if !name.is_empty() {
            self.stamp.session = Some(name.to_owned());
        }
    }

    /// Records `request`, which ended as `ending` with `reply`.
    pub(super) fn record_request(
        &self,
        request: &Request,
        ending: &str,
        reply: &str,
        effects: &mut Vec<Effect>,
    ) {
        let questionnaire = request.dialog.questionnaire();
        let entry = Entry {
            asked_ms: self.stamp.wall_ms(request.arrived_ms),
            ended_ms: self.stamp.wall_ms(self.now_ms),
            session: request
                .from_session
                .clone()
                .or_else(|| self.stamp.session.clone()),
            agent: self.agent_name(request),
            pane_id: request.pane.or(request.from_pane),
            request_id: request.request_id.clone(),
            questions: RecordedQuestion::all_of(questionnaire),
            ending: form_ending(Some(questionnaire), ending),
            reply: recorded_reply(Some(questionnaire), reply),
            form: recorded_form(Some(questionnaire), reply),
            approval: approval_of(Some(questionnaire), reply),
            approval_by: approval_of(Some(questionnaire), reply).and(request.approval_by.clone()),
            // A copy of another session's question: answered in this one.
            answered_in: request
                .from_session
                .as_ref()
                .and_then(|_| self.stamp.session.clone()),
            answered_from: request.answered_from.map(str::to_owned),
        };
        self.record(&entry, effects);
    }

    /// Records that `caller`'s request `id`, a copy of the question of session `from_session`
    /// (an argument of the `cancel` pipe) that was answered here, was answered in another
    /// session first: its caller took that answer (`history::ANSWERED_ELSEWHERE`). Written by
    /// the leader alone, as the answer was.
    pub(super) fn record_answered_elsewhere(
        &self,
        args: &BTreeMap<String, String>,
        caller: &Asker,
        id: &str,
        effects: &mut Vec<Effect>,
    ) {
        if !self.leads() {
            return;
        }
        let from_session = args.get("from_session").filter(|s| !s.is_empty()).cloned();
        let agent = match caller {
            Asker::Pane(pane) => self.caller_name(None, Some(*pane)),
            Asker::Agent(agent) => self.caller_name(agent.as_deref(), None),
        };
        let now = self.stamp.wall_ms(self.now_ms);
        let entry = Entry {
            asked_ms: now,
            ended_ms: now,
            answered_in: from_session
                .as_ref()
                .and_then(|_| self.stamp.session.clone()),
            session: from_session.or_else(|| self.stamp.session.clone()),
            agent,
            request_id: Some(id.to_owned()),
            ending: ask_popup_protocol::history::ANSWERED_ELSEWHERE.to_owned(),
            ..Entry::default()
        };
        self.record(&entry, effects);
    }

    /// Records a request of pipe arguments `args` that ended as `ending` with `reply` before it
    /// was asked (rejected, busy, withdrawn before it came), with its questions when they were
    /// read.
    pub(super) fn record_unasked(
        &self,
        args: &BTreeMap<String, String>,
        questionnaire: Option<&Questionnaire>,
        ending: &str,
        reply: &str,
        effects: &mut Vec<Effect>,
    ) {
        let pane = args.get("pane_id").and_then(|p| parse_pane_id(p));
        let agent = agent_arg(args);
        let now = self.stamp.wall_ms(self.now_ms);
        let entry = Entry {
            asked_ms: now,
            ended_ms: now,
            session: self.stamp.session.clone(),
            agent: self.caller_name(agent.as_deref(), pane),
            pane_id: pane,
            request_id: args.get("id").cloned().filter(|id| !id.is_empty()),
            questions: questionnaire
                .map(RecordedQuestion::all_of)
                .unwrap_or_default(),
            ending: form_ending(questionnaire, ending),
            reply: recorded_reply(questionnaire, reply),
            form: recorded_form(questionnaire, reply),
            approval: approval_of(questionnaire, reply),
            approval_by: approval_of(questionnaire, reply).and(approval_by_arg(args)),
            answered_in: None,
            answered_from: None,
        };
        self.record(&entry, effects);
    }

    fn record(&self, entry: &Entry, effects: &mut Vec<Effect>) {
        if self.config.history {
            effects.push(Effect::Record(entry.to_line()));
        }
    }
}

/// What an approval decided, for its record; `None` for a questionnaire that is no approval.
fn approval_of(questionnaire: Option<&Questionnaire>, reply: &str) -> Option<String> {
    questionnaire
        .filter(|q| q.approval)
        .map(|q| ask_popup_protocol::approval::recorded(q, reply).to_owned())
}

/// The reply as the record keeps it: as others are shown it, a form's secrets hidden.
fn recorded_reply(questionnaire: Option<&Questionnaire>, reply: &str) -> String {
    let shown = questionnaire.map(|q| shown_to_others(q, reply));
    ask_popup_protocol::history::kept_reply(shown.as_deref().unwrap_or(reply))
}

/// A form's server, message and the content `reply` sent; `None` for a questionnaire that is
/// no form.
fn recorded_form(
    questionnaire: Option<&Questionnaire>,
    reply: &str,
) -> Option<ask_popup_protocol::history::RecordedForm> {
    questionnaire
        .and_then(|q| q.form.as_ref())
        .map(|form| form.recorded(reply))
}

/// How a request ended, as the record names it: a form's `Decline` (where `Chat about this`
/// is) as `form_declined`.
fn form_ending(questionnaire: Option<&Questionnaire>, ending: &str) -> String {
    match questionnaire.and_then(|q| q.form.as_ref()) {
        Some(_) if ending == "chat" => FORM_DECLINED.to_owned(),
        _ => ending.to_owned(),
    }
}
