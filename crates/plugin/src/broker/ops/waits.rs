//! Waits that are not questions of ours: an agent waiting on the person in a dialog of its own
//! (another Pi extension's confirm, say), as `ask-popup blocked` tells on the `blocked` pipe.
//! Each marks its caller's pane and makes the blocked pair as a question does, counts among
//! what waits, and ends when its caller says so, its pane closes or the popup goes.
//!
//! Every instance keeps the waits alike (each gets the pipe); the leader announces a wait and
//! then owes its end, and hands what it owes over as its client leaves, as for requests.

use crate::broker::{
    pipes::*,
    state::Broker,
    waits::{Wait, MAX_WAITS},
};
use crate::effect::Effect;
use crate::outgoing::{to_json, Announced};
use ask_popup_protocol::envelope;
use ask_popup_protocol::request::RequestError;
use serde::Serialize;
use std::collections::BTreeMap;

/// The `blocked` pipe's reply.
#[derive(Serialize)]
struct Reply {
    /// Whether the caller's wait of this id stands now.
    active: bool,
    /// Everything waiting on the person now: the questions asked and the waits.
    waiting: usize,
}

impl Broker {
    /// The `blocked` pipe (`id`, the caller's `pane_id` or `agent`, `active` true or false):
    /// the caller's wait starts or ends; answered at once.
    pub(super) fn blocked_pipe(&mut self, pipe: &str, msg: &PipeIn, effects: &mut Vec<Effect>) {
        self.answer_first(pipe, msg.payload.is_some(), effects, |b, fx| {
            b.blocked(&msg.args, fx)
        });
    }

    fn blocked(&mut self, args: &BTreeMap<String, String>, effects: &mut Vec<Effect>) -> String {
        let Some(id) = args.get("id").filter(|id| !id.is_empty()).cloned() else {
            let error = RequestError::Missing {
                path: "the blocked pipe's id argument".to_owned(),
                hint: "name the wait, so that its end can be told",
            };
            return envelope::rejection(&error, None);
        };
        let active = !matches!(args.get("active").map(String::as_str), Some("false" | "0"));
        let caller = Asker::of(args);
        let found = self
            .waits
            .iter()
            .position(|w| w.caller == caller && w.id == id);
        match (active, found) {
            (true, None) => {
                if self.waits.len() >= MAX_WAITS {
                    return envelope::host_error(envelope::ErrorCode::Busy, Some(&id));
                }
                let wait = Wait {
                    pane: match caller {
                        Asker::Pane(pane) => Some(pane),
                        Asker::Agent(_) => None,
                    },
                    caller,
                    agent: agent_arg(args),
                    id,
                    owed_ends: 0,
                };
                self.waits.push(wait);
                self.announce_wait(self.waits.len() - 1, effects);
            }
            (false, Some(i)) => {
                let wait = self.waits.remove(i);
                self.wait_ended(&wait, effects);
            }
            (true, Some(_)) | (false, None) => {}
        }
        self.status_line(effects);
        let reply = Reply {
            active,
            waiting: self.waiting(),
        };
        format!("{}\n", to_json(&reply))
    }

    /// Everything that waits on the person: the questions asked and the waits.
    pub(super) fn waiting(&self) -> usize {
        self.asked().count() + self.waits.len()
    }

    /// Tells everyone that wait `index` started, as the leader (which then owes its end), and
    /// marks its caller's pane.
    fn announce_wait(&mut self, index: usize, effects: &mut Vec<Effect>) {
        let announce = self.config.indicator && self.leads();
        let Some(wait) = self.waits.get_mut(index) else {
            return;
        };
        wait.owed_ends = wait.owed_ends.saturating_add(u8::from(announce));
        let wait = wait.clone();
        if announce {
            let agent = self.caller_name(wait.agent.as_deref(), wait.pane);
            self.push_blocked_of(wait.pane, &agent, Some(&wait.id), true, effects);
        }
        if let (true, Some(pane)) = (self.config.indicator, wait.pane) {
            self.marks.mark(pane, effects);
        }
    }

    /// What follows a wait's end: the ends it owes, its pane's mark off when nothing else
    /// waits there.
    fn wait_ended(&mut self, wait: &Wait, effects: &mut Vec<Effect>) {
        if wait.owed_ends > 0 {
            let agent = self.caller_name(wait.agent.as_deref(), wait.pane);
            for _ in 0..wait.owed_ends {
                self.push_blocked_of(wait.pane, &agent, Some(&wait.id), false, effects);
            }
        }
        if let Some(pane) = wait.pane {
            self.unmark_if_idle(pane, effects);
        }
    }

    /// Takes `pane`'s mark off unless a question or a wait of it still stands.
    pub(super) fn unmark_if_idle(&mut self, pane: u32, effects: &mut Vec<Effect>) {
        if !self.config.indicator {
            return;
        }
        let asks = self.queue.iter().any(|r| r.pane == Some(pane));
        let waits = self.waits.iter().any(|w| w.pane == Some(pane));
        if !asks && !waits {
            self.marks.unmark(pane, effects);
        }
    }

    /// The panes of the waits, marked again (their titles came).
    pub(super) fn waits_panes(&self) -> Vec<u32> {
        self.waits.iter().filter_map(|w| w.pane).collect()
    }

    /// Ends every wait for which `ends` says so, as it goes (its pane closed, the popup).
    pub(super) fn end_waits(&mut self, ends: impl Fn(&Wait) -> bool, effects: &mut Vec<Effect>) {
        while let Some(i) = self.waits.iter().position(&ends) {
            let wait = self.waits.remove(i);
            self.wait_ended(&wait, effects);
        }
    }

    /// The waits whose ends this instance owes, handed over as its client leaves (it owes
    /// them no longer).
    pub(super) fn hand_over_waits(&mut self) -> Vec<Announced> {
        let mut announced = Vec::new();
        for i in 0..self.waits.len() {
            let wait = &self.waits[i];
            let handed = wait.announced(self.caller_name(wait.agent.as_deref(), wait.pane));
            announced.extend(std::iter::repeat_n(handed, usize::from(wait.owed_ends)));
        }
        for wait in &mut self.waits {
            wait.owed_ends = 0;
        }
        announced
    }

    /// A wait handed over by an instance that left: whether it still stands here (and this
    /// instance now owes its end).
    pub(super) fn take_over_wait(&mut self, handed: &Announced) -> bool {
        match self.waits.iter_mut().find(|w| w.key() == handed.pipe) {
            Some(wait) => {
                wait.owed_ends = wait.owed_ends.saturating_add(1);
                true
            }
            None => false,
        }
    }

    /// The waits as the leader tells a newcomer.
    pub(super) fn waits_for_newcomer(&self) -> Vec<Announced> {
        self.waits
            .iter()
            .map(|w| w.announced(w.agent.clone().unwrap_or_default()))
            .collect()
    }

    /// The leader's waits, for this newcomer (or an instance whose client is back, whose own
    /// waits ended meanwhile or were handed over): they stand here as there, owing nothing.
    pub(super) fn synced_waits(&mut self, waits: &[Announced], effects: &mut Vec<Effect>) {
        let before: Vec<Option<u32>> = self.waits.iter().map(|w| w.pane).collect();
        self.waits = waits.iter().filter_map(Wait::of_announced).collect();
        self.waits.truncate(MAX_WAITS);
        for pane in before.into_iter().flatten() {
            self.unmark_if_idle(pane, effects);
        }
        if self.config.indicator {
            for pane in self.waits_panes() {
                self.marks.mark(pane, effects);
            }
        }
    }
}
