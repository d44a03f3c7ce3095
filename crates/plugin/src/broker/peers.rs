//! What an instance knows of the other instances of this plugin (one per attached client):
//! which said hello, which of them leads, who has left, and what it tells them (see
//! `ops/peers.rs` for how they come and go).

use crate::effect::Effect;
use crate::outgoing::{to_json, Ended, PeerKind, PeerMessage};
use std::collections::{BTreeSet, VecDeque};

/// The other instances of this plugin, and which one leads.
#[derive(Debug, Default)]
pub(super) struct Peers {
    /// This plugin's id in the session, the same in every instance, once the host said: the
    /// instances' messages come from it, and only theirs are heard (None: nobody's).
    pub(super) plugin_id: Option<u32>,
    /// This instance's client id, once the host said (None: the only instance).
    pub(super) me: Option<u16>,
    /// The instances that said hello (this one included) and have not left.
    pub(super) known: BTreeSet<u16>,
    /// This instance's client has left: it neither leads nor answers hellos.
    pub(super) away: bool,
    /// The other clients a tab update has listed: only these can be seen to leave.
    pub(super) seen: BTreeSet<u16>,
    /// When this instance came back after its client had left: its requests from before
    /// then that the leader no longer has are over.
    pub(super) back_ms: Option<u64>,
    /// The outcome events of the latest requests that ended here while this instance owed
    /// no end for them (at most `MAX_UNSAID_ENDS`), by pipe: a wait handed over by a leaving
    /// instance after its request ended here has its outcome said then, once.
    pub(super) unsaid_ends: VecDeque<(String, Ended)>,
    /// When a tab update last listed a client not seen before (see `popup_seen`).
    pub(super) newcomer_ms: Option<u64>,
    /// How often the popup was shown again since (at most `MAX_RESHOWS`).
    pub(super) reshows: u8,
    /// Shown again, and not yet seen on screen since: the updates Zellij sent before the
    /// popup showed again say nothing of whether it did.
    pub(super) reshow_unseen: bool,
    /// The newcomers that said hello while this instance still listened for hellos itself:
    /// told what they missed once it knows whether it leads (`sync_late_newcomers`).
    pub(super) unsynced: BTreeSet<u16>,
}

/// How many unsaid outcome events an instance keeps for waits handed over late.
const MAX_UNSAID_ENDS: usize = 64;

/// How long after a client attached a question found hidden shows again (`popup_seen`).
pub const RESHOW_WINDOW_MS: u64 = 10_000;

/// How often, at most, a question shows again in that time.
pub(super) const MAX_RESHOWS: u8 = 5;

impl Peers {
    /// This instance's client `me` is back at `now_ms`: it knows only itself until the others
    /// answer the hello it says (returned).
    pub(super) fn come_back(&mut self, me: u16, now_ms: u64) -> Effect {
        self.away = false;
        self.known = BTreeSet::from([me]);
        self.back_ms = Some(now_ms);
        self.message(PeerKind::Hello)
    }

    /// A message for the other instances.
    pub(super) fn message(&self, kind: PeerKind) -> Effect {
        Effect::Peer(to_json(&PeerMessage {
            from: self.me.unwrap_or_default(),
            kind,
        }))
    }

    /// Keeps the outcome event of a request of pipe `pipe` that ended here unsaid.
    pub(super) fn keep_unsaid_end(&mut self, pipe: &str, event: Ended) {
        if self.unsaid_ends.len() == MAX_UNSAID_ENDS {
            self.unsaid_ends.pop_front();
        }
        self.unsaid_ends.push_back((pipe.to_owned(), event));
    }

    /// The unsaid outcome event of pipe `pipe`'s request, taken: it is said once.
    pub(super) fn take_unsaid_end(&mut self, pipe: &str) -> Option<Ended> {
        let i = self.unsaid_ends.iter().position(|(p, _)| p == pipe)?;
        self.unsaid_ends.remove(i).map(|(_, event)| event)
    }

    /// Whether this instance's client has the lowest id of those it knows of: the ones that
    /// said hello and those a tab update listed (which come before the hellos).
    pub(super) fn first_seen(&self) -> bool {
        let Some(me) = self.me else { return true };
        self.known
            .iter()
            .chain(&self.seen)
            .all(|client| me <= *client)
    }

    /// Whether `id` is this plugin's own id in the session (its instances' messages come from
    /// it).
    pub(super) fn is_own(&self, id: u32) -> bool {
        self.plugin_id == Some(id)
    }

    /// Whether this instance's client has left (it answers no caller then).
    pub(super) fn is_away(&self) -> bool {
        self.away
    }

    /// Whether other instances said hello and are still here.
    pub(super) fn has_others(&self) -> bool {
        self.known.len() > 1
    }

    pub(super) fn leads(&self) -> bool {
        if self.away {
            return false;
        }
        match (self.me, self.known.first()) {
            (Some(me), Some(first)) => me <= *first,
            _ => true,
        }
    }
}
