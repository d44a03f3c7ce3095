//! The other instances of this plugin (one per attached client): their hellos, which of
//! them leads, what they tell each other about requests they ended, and who has left.
//!
//! Zellij 0.45 keeps a plugin instance running when its client detaches, and tells it
//! nothing: it keeps hearing pipe messages (though not those Zellij caches while another
//! client's instance loads), but no more tab updates, which go to attached clients only. The
//! instances still attached see who left in their tab updates (each tab lists the other
//! clients on it): the one that leads then tells the instance of the client that left
//! (`Gone`), which says `Bye`, hands over the waits it announced, and stops answering for the
//! others until its client is back (a client that attaches with its id), when it says hello
//! again as a newcomer. A client is taken for gone only once a tab update has listed it: in a
//! mirrored session the tab updates list no other client, and nobody is taken for gone.

use crate::broker::{
    arrival::keeps_reply,
    config::*,
    peers::{MAX_RESHOWS, RESHOW_WINDOW_MS},
    request::*,
    state::Broker,
};
use crate::dialog::Dialog;
use crate::effect::Effect;
use crate::outgoing::{to_json, Announced, PeerKind, PeerMessage, SyncedRequest};
use ask_popup_protocol::request::{self};

impl Broker {
    /// This plugin's id in the session (Zellij says it on load): the messages of its other
    /// instances come from it.
    pub fn set_plugin_id(&mut self, plugin_id: u32) {
        self.peers.plugin_id = Some(plugin_id);
    }

    /// This instance serves client `client`: it says hello to the others.
    pub fn join(&mut self, client: u16) -> Vec<Effect> {
        self.peers.me = Some(client);
        self.peers.known.insert(client);
        vec![self.peers.message(PeerKind::Hello)]
    }

    /// A tab update (only attached clients' instances get them): `others`, the other clients
    /// attached (on any tab). A known instance whose client was listed before and is no longer
    /// has left: the leader tells it (`Gone`). An instance that had left is back.
    pub fn attached(&mut self, others: &[u16]) -> Vec<Effect> {
        let mut effects = Vec::new();
        let Some(me) = self.peers.me else {
            // Not serving yet (the permission not granted): who is attached is only noted, for
            // who places the popup (`Peers::first_seen`).
            self.peers.seen.extend(others);
            return effects;
        };
        if self.peers.away {
            self.come_back(me, &mut effects);
        }
        let newcomer = others
            .iter()
            .any(|client| *client != me && !self.peers.seen.contains(client));
        if newcomer {
            self.peers.newcomer_ms = Some(self.now_ms);
            self.peers.reshows = 0;
            self.peers.reshow_unseen = false;
        }
        self.peers
            .seen
            .extend(others.iter().copied().filter(|client| *client != me));
        let gone: Vec<u16> = self
            .peers
            .known
            .iter()
            .copied()
            .filter(|k| *k != me && self.peers.seen.contains(k) && !others.contains(k))
            .collect();
        for client in gone {
            self.peers.seen.remove(&client);
            self.peers.known.remove(&client);
            if self.leads() {
                effects.push(self.peers.message(PeerKind::Gone { client }));
            }
        }
        // A web client attaching makes Zellij hide the floating panes of its tab for every
        // client: a question that showed shows again (and takes this client's focus back).
        if newcomer && self.visible && !self.queue.is_empty() {
            self.show(&mut effects);
        }
        self.done(effects)
    }

    /// Whether the popup's pane is on screen, as Zellij's latest tab and pane updates have it.
    /// A client attaching sets off more than one hand on the popup's one pane (Zellij hides
    /// the floating panes of a web client's tab; the new client's instance, which has not heard
    /// of the question yet, hides the pane it showed for the permission request): for a moment
    /// after a client attached, a question that shows here and is found hidden shows again, a
    /// few times at most. Later, a hidden popup is the person's doing, and stays hidden.
    pub fn popup_seen(&mut self, on_screen: bool) -> Vec<Effect> {
        if on_screen {
            self.peers.reshow_unseen = false;
            return Vec::new();
        }
        let attached_lately = self
            .peers
            .newcomer_ms
            .is_some_and(|at| self.now_ms <= at.saturating_add(RESHOW_WINDOW_MS));
        if !attached_lately
            || self.peers.reshow_unseen
            || !self.visible
            || self.queue.is_empty()
            || self.peers.reshows >= MAX_RESHOWS
        {
            return Vec::new();
        }
        self.peers.reshows += 1;
        self.peers.reshow_unseen = true;
        let mut effects = Vec::new();
        self.show(&mut effects);
        self.done(effects)
    }

    /// This instance's client left: say bye, handing the waits this instance announced to
    /// the leader, and stop answering for the others.
    fn leave(&mut self, effects: &mut Vec<Effect>) {
        self.peers.away = true;
        let mut announced = Vec::new();
        for r in self.queue.iter() {
            let handed = Announced {
                pipe: r.pipe.clone(),
                pane_id: r.pane,
                agent: self.agent_name(r),
                request_id: r.request_id.clone(),
            };
            announced.extend(std::iter::repeat_n(handed, usize::from(r.owed_ends)));
        }
        for r in self.queue.iter_mut() {
            r.owed_ends = 0;
        }
        announced.extend(self.hand_over_waits());
        effects.push(self.peers.message(PeerKind::Bye { announced }));
    }

    /// This instance's client is back (a client attached with its id): it joins again as a
    /// newcomer would, holding messages until the others have said hello and the leader has
    /// told it what is pending.
    fn come_back(&mut self, me: u16, effects: &mut Vec<Effect>) {
        effects.push(self.peers.come_back(me, self.now_ms));
        if self.gate.is_open() {
            self.gate.listen_for_hellos(self.now_ms);
            effects.push(Effect::SetTimer(HELLO_WINDOW_MS as f64 / 1000.0));
        }
    }

    /// Instance `from` left: the leader (perhaps this one, now) says the end of each wait it
    /// handed over when that wait ends, or at once if it has ended already.
    fn left(&mut self, from: u16, announced: Vec<Announced>, effects: &mut Vec<Effect>) {
        self.peers.known.remove(&from);
        if !self.leads() {
            return;
        }
        for handed in announced {
            if let Some(r) = self.queue.iter_mut().find(|r| r.pipe == handed.pipe) {
                r.owed_ends = r.owed_ends.saturating_add(1);
                continue;
            }
            if self.take_over_wait(&handed) {
                continue;
            }
            self.push_blocked_of(
                handed.pane_id,
                &handed.agent,
                handed.request_id.as_deref(),
                false,
                effects,
            );
            // Ended here before the hand-over came: nobody said how, yet.
            if let Some(event) = self.peers.take_unsaid_end(&handed.pipe) {
                effects.push(Effect::Broadcast {
                    name: event.name().to_owned(),
                    payload: to_json(&event),
                });
            }
        }
        self.status_line(effects);
    }

    /// A message from another instance of this plugin.
    pub(super) fn peer(&mut self, payload: &str, effects: &mut Vec<Effect>) {
        let Some(message) = PeerMessage::from_json(payload) else {
            return;
        };
        if Some(message.from) == self.peers.me {
            return;
        }
        // An instance whose client left hears the others but takes no part.
        if self.peers.away && matches!(message.kind, PeerKind::Hello | PeerKind::Sync { .. }) {
            return;
        }
        match message.kind {
            PeerKind::Bye { announced } => self.left(message.from, announced, effects),
            PeerKind::Gone { client } => {
                if Some(client) == self.peers.me {
                    if !self.peers.away {
                        self.leave(effects);
                    }
                } else {
                    self.peers.known.remove(&client);
                }
            }
            PeerKind::Hello => {
                let led = self.leads();
                if self.peers.known.insert(message.from) && self.peers.me.is_some() {
                    // A newcomer: tell it we are here too, and, from the leader, what it missed
                    // (once this instance knows whether it leads, if it still listens itself).
                    effects.push(self.peers.message(PeerKind::Hello));
                    if !self.gate.is_open() {
                        self.peers.unsynced.insert(message.from);
                    } else if led {
                        effects.push(self.sync_for(message.from));
                    }
                }
            }
            PeerKind::Sync {
                to,
                requests,
                answered,
                waits,
            } => {
                if Some(to) == self.peers.me {
                    self.synced(requests, answered, effects);
                    self.synced_waits(&waits, effects);
                }
            }
            PeerKind::Settled { pipe, event, reply } => {
                let Some(i) = self.queue.iter().position(|r| r.pipe == pipe) else {
                    // Not heard here yet (this instance is still loading): not to be asked.
                    self.arrivals.remember(&pipe, self.now_ms);
                    return;
                };
                let request = self.queue.take(i);
                let questionnaire = request.dialog.questionnaire();
                if keeps_reply(questionnaire) {
                    let id = request.request_id.as_deref();
                    self.arrivals.remember_reply(
                        &request.caller,
                        id,
                        request.digest,
                        &reply,
                        self.now_ms,
                    );
                }
                self.after_removal(effects);
                self.arrivals.remember(&pipe, self.now_ms);
                self.after_request(&request, Some(event), effects);
            }
            PeerKind::Touched { pipe } => {
                if let Some(r) = self.queue.iter_mut().find(|r| r.pipe == pipe) {
                    r.dialog.stop_countdown();
                }
            }
        }
    }

    /// The gate opened: the newcomers that said hello meanwhile are told what they missed by
    /// the leader, as those that say it later are.
    pub(super) fn sync_late_newcomers(&mut self, effects: &mut Vec<Effect>) {
        let newcomers = std::mem::take(&mut self.peers.unsynced);
        if !self.leads() {
            return;
        }
        for to in newcomers {
            if self.peers.known.contains(&to) {
                effects.push(self.sync_for(to));
            }
        }
    }

    /// What the newcomer `to` missed: every pending request, how far its countdown ran, and
    /// the pipes answered lately (their messages may still reach it, held while it loaded).
    fn sync_for(&self, to: u16) -> Effect {
        let requests = self
            .queue
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
        self.peers.message(PeerKind::Sync {
            to,
            requests,
            answered,
            waits: self.waits_for_newcomer(),
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
            if !self.asked().any(|r| r.pipe == pipe) {
                // Answered while this instance loaded: not to be asked, nor shown.
                self.arrivals.remember(&pipe, self.now_ms);
                if self.take_provisional(&pipe).is_some() {
                    self.after_removal(effects);
                }
            }
        }
        // Back after its client had left: what it still holds from before and the leader no
        // longer has ended meanwhile (it missed the news). Its waits were handed over.
        if let Some(back) = self.peers.back_ms.take() {
            let ended =
                |r: &Request| r.arrived_ms <= back && !requests.iter().any(|s| s.pipe == r.pipe);
            let before = self.queue.len();
            while let Some(i) = self.queue.iter().position(ended) {
                let request = self.queue.take(i);
                self.arrivals.remember(&request.pipe, self.now_ms);
            }
            if self.queue.len() < before {
                self.after_removal(effects);
            }
        }
        let mut added = false;
        for synced in requests {
            let known = self.asked().any(|r| r.pipe == synced.pipe)
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
            // The leader announced it, and says when it ends (`owed_ends` stays 0 here).
            let mut request =
                Request::new(synced.pipe, &synced.args, dialog, synced.bytes, self.now_ms);
            // Shown here already from its held message: this request takes its place.
            if let Some(shown) = self.take_provisional(&request.pipe) {
                request.take_over(shown);
            }
            self.queue.push(request);
            added = true;
        }
        if added {
            if self.config.indicator {
                // The marks the leader set, known here in case this instance comes to lead.
                let panes: Vec<u32> = self.asked().filter_map(|r| r.pane).collect();
                for pane in panes {
                    self.marks.mark(pane, effects);
                }
            }
            self.show(effects);
        }
    }
}
