//! A question being asked: its caller, its dialog, what the user saw of it, and how it ended.

use super::pipes::*;
use crate::dialog::Dialog;
use crate::view::ViewCache;
use std::collections::BTreeMap;

/// A question being asked.
#[derive(Debug)]
pub(super) struct Request {
    pub(super) pipe: String,
    pub(super) pane: Option<u32>,
    pub(super) agent: Option<String>,
    pub(super) caller: Asker,
    pub(super) request_id: Option<String>,
    pub(super) dialog: Dialog,
    pub(super) cache: ViewCache,
    pub(super) arrived_ms: u64,
    /// The payload's size, counted against `MAX_PENDING_BYTES`.
    pub(super) bytes: usize,
    /// While on screen: the time up to which its countdown has been charged.
    pub(super) counted_to_ms: Option<u64>,
    /// How many `ask-popup:blocked` ends this instance owes for it: one if it told everyone
    /// it waits (as the leader when it arrived), one more for each instance that announced it
    /// and handed it over as its client left. This instance says them when it ends, whoever
    /// leads by then.
    pub(super) owed_ends: u8,
    /// Shown from a message still held behind the gate while the hellos come in: not asked
    /// yet, and so neither answered, announced, marked nor told to anyone; it gives way to
    /// the request asked from that message (see `Broker::preview`).
    pub(super) provisional: bool,
    /// For a question asked in another session and shown here too (`from_session`, and its
    /// pane `from_pane`): that session, which the record names and a key switches to.
    pub(super) from_session: Option<String>,
    pub(super) from_pane: Option<u32>,
    /// The command that asked it, when an approval hook did (`APPROVAL_BY_ARG`).
    pub(super) approval_by: Option<String>,
    /// Where it was answered when not in the popup (the `pick` pipe), for the record.
    pub(super) answered_from: Option<&'static str>,
    /// The questionnaire's digest, which a kept reply is known by (`Questionnaire::digest`),
    /// taken as it arrives: hashing a 100 KB questionnaire is work the Enter that answers it
    /// would otherwise do before its reply goes out.
    pub(super) digest: u64,
}

impl Request {
    /// A request of CLI pipe `pipe` with its arguments `args` (who asks, its id), arrived now.
    pub(super) fn new(
        pipe: String,
        args: &BTreeMap<String, String>,
        dialog: Dialog,
        bytes: usize,
        now_ms: u64,
    ) -> Request {
        let caller = Asker::of(args);
        let digest = dialog.questionnaire().digest();
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
            counted_to_ms: None,
            owed_ends: 0,
            provisional: false,
            from_session: args
                .get(FROM_SESSION_ARG)
                .map(|s| crate::view::text::sanitize_line(s.trim()))
                .filter(|s| !s.is_empty()),
            from_pane: args.get(FROM_PANE_ARG).and_then(|p| parse_pane_id(p)),
            approval_by: approval_by_arg(args),
            answered_from: None,
            digest,
        }
    }

    /// Takes over what the user saw of `shown`, the provisional request of the same message,
    /// and what it came to owe: the countdown runs from when it first showed (and so does the
    /// key guard: see `Broker::on_screen_changed`). (Its dialog is as it came: a provisional
    /// request takes no input and does not count down.)
    pub(super) fn take_over(&mut self, shown: Request) {
        self.counted_to_ms = shown.counted_to_ms;
        self.owed_ends = self.owed_ends.saturating_add(shown.owed_ends);
        // What it laid out (the first frame's, and ahead) is this request's too.
        if self.dialog.questionnaire() == shown.dialog.questionnaire() {
            self.cache = shown.cache;
        }
    }

    /// The pipe arguments that name its caller and id, as they came.
    pub(super) fn args(&self) -> BTreeMap<String, String> {
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
pub(super) enum Decided {
    /// By this instance alone (the user's input here, or the leader's countdown): it replies
    /// and tells the others.
    Here,
    /// Alike in every instance (a host event they all saw): the leader replies.
    Everywhere,
}
