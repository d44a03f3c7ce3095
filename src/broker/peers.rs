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
                if self.peers.known.insert(message.from) && self.peers.me.is_some() {
                    // A newcomer: tell it we are here too.
                    effects.push(self.peer_message(PeerKind::Hello));
                }
            }
            PeerKind::Settled { pipe, event, reply } => {
                let Some(i) = self.pending.iter().position(|r| r.pipe == pipe) else {
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

    /// A message for the other instances.
    pub(super) fn peer_message(&self, kind: PeerKind) -> Effect {
        Effect::Peer(to_json(&PeerMessage {
            from: self.peers.me.unwrap_or_default(),
            kind,
        }))
    }
}
