//! The other instances of this plugin (one per attached client): their hellos, which of
//! them leads, and what they tell each other about requests they ended.

use super::*;

/// The other instances of this plugin, and which one leads.
#[derive(Debug, Default)]
pub(super) struct Peers {
    /// This instance's client id, once the host said (None: the only instance).
    pub(super) me: Option<u16>,
    pub(super) known: BTreeSet<u16>,
}

impl Peers {
    pub(super) fn leads(&self) -> bool {
        match (self.me, self.known.first()) {
            (Some(me), Some(first)) => me <= *first,
            _ => true,
        }
    }
}

impl Broker {
    /// This instance serves client `client`: it says hello to the others.
    pub fn join(&mut self, client: u16) -> Vec<Effect> {
        self.peers.me = Some(client);
        self.peers.known.insert(client);
        vec![self.peer_message(PeerKind::Hello)]
    }

    /// A message from another instance of this plugin.
    pub(super) fn peer(&mut self, payload: &str, effects: &mut Vec<Effect>) {
        let Ok(message) = serde_json::from_str::<PeerMessage>(payload) else {
            return;
        };
        if Some(message.from) == self.peers.me {
            return;
        }
        match message.kind {
            PeerKind::Hello => {
                let led = self.leads();
                if self.peers.known.insert(message.from) && self.peers.me.is_some() {
                    // A newcomer: tell it we are here too, and, from the leader, what it missed.
                    effects.push(self.peer_message(PeerKind::Hello));
                    if led && self.gate.state == Gate::Open {
                        effects.push(self.sync_for(message.from));
                    }
                }
            }
            PeerKind::Sync {
                to,
                requests,
                answered,
            } => {
                if Some(to) == self.peers.me {
                    self.synced(requests, answered, effects);
                }
            }
            PeerKind::Settled { pipe, event, reply } => {
                let Some(i) = self.pending.iter().position(|r| r.pipe == pipe) else {
                    // Not heard here yet (this instance is still loading): not to be asked.
                    self.remember(&pipe);
                    return;
                };
                let request = self.take(i);
                self.remember_reply(&request.caller, request.request_id.as_deref(), &reply);
                self.after_removal(effects);
                self.remember(&pipe);
                self.after_request(&request, Some(event), effects);
            }
            PeerKind::Touched { pipe } => {
                if let Some(r) = self.pending.iter_mut().find(|r| r.pipe == pipe) {
                    r.dialog.stop_countdown();
                }
            }
        }
    }

    /// What the newcomer `to` missed: every pending request, how far its countdown ran, and
    /// the pipes answered lately (their messages may still reach it, held while it loaded).
    fn sync_for(&self, to: u16) -> Effect {
        let requests = self
            .pending
            .iter()
            .map(|r| SyncedRequest {
                pipe: r.pipe.clone(),
                args: r.args(),
                questionnaire: to_json(r.dialog.questionnaire()),
                bytes: r.bytes,
                timeout_ms: r.dialog.questionnaire().timeout_ms,
                remaining_ms: r.dialog.countdown().map(|c| c.remaining_ms),
            })
            .collect();
        let answered = self.arrivals.answered_pipes();
        self.peer_message(PeerKind::Sync {
            to,
            requests,
            answered,
        })
    }

    /// The leader's pending requests, for this newcomer: each one not known here yet is
    /// asked here too, as it stands in the leader (its caller's CLI is already held there).
    fn synced(
        &mut self,
        requests: Vec<SyncedRequest>,
        answered: Vec<String>,
        effects: &mut Vec<Effect>,
    ) {
        for pipe in answered {
            if !self.pending.iter().any(|r| r.pipe == pipe) {
                self.remember(&pipe);
            }
        }
        let before = self.pending.len();
        for synced in requests {
            let known = self.pending.iter().any(|r| r.pipe == synced.pipe)
                || self.arrivals.was_answered(&synced.pipe);
            if known {
                continue;
            }
            let Ok(mut questionnaire) = request::parse(&synced.questionnaire) else {
                continue;
            };
            questionnaire.timeout_ms = synced.timeout_ms;
            let mut dialog = Dialog::new(questionnaire);
            dialog.set_countdown(synced.remaining_ms);
            self.arrivals.drop_partial(&synced.pipe);
            // The leader announced it, and says when it ends (`announced` stays false here).
            let request =
                Request::new(synced.pipe, &synced.args, dialog, synced.bytes, self.now_ms);
            self.pending.push(request);
        }
        if self.pending.len() > before {
            if self.config.indicator {
                // The marks the leader set, known here in case this instance comes to lead.
                let panes: Vec<u32> = self.pending.iter().filter_map(|r| r.pane).collect();
                for pane in panes {
                    self.marks.mark(pane, effects);
                }
            }
            self.show(effects);
        }
    }

    /// A message for the other instances.
    pub(super) fn peer_message(&self, kind: PeerKind) -> Effect {
        Effect::Peer(to_json(&PeerMessage {
            from: self.peers.me.unwrap_or_default(),
            kind,
        }))
    }
}
