//! A wait that is not a question of ours (an agent waiting on the person in a dialog of its
//! own, as `ask-popup blocked` tells), and how it is handed over between instances. What
//! starts and ends one is in `ops/waits.rs`.

use super::pipes::*;
use crate::outgoing::Announced;

/// At most this many waits are kept at once; beyond, a new one is answered `busy`.
pub const MAX_WAITS: usize = 64;

/// One agent's wait on the person in a dialog that is not ours.
#[derive(Clone, Debug)]
pub(super) struct Wait {
    pub(super) caller: Asker,
    pub(super) pane: Option<u32>,
    pub(super) agent: Option<String>,
    pub(super) id: String,
    /// How many `ask-popup:blocked` ends this instance owes for it (see `Request::owed_ends`).
    pub(super) owed_ends: u8,
}

impl Wait {
    /// The name it is handed over under (`Announced::pipe`): never a CLI pipe's.
    pub(super) fn key(&self) -> String {
        match &self.caller {
            Asker::Pane(pane) => format!("blocked/{pane}/{}", self.id),
            Asker::Agent(agent) => {
                format!("blocked//{}/{}", agent.as_deref().unwrap_or(""), self.id)
            }
        }
    }

    /// As another instance hands it over, or the leader tells a newcomer.
    pub(super) fn announced(&self, agent: String) -> Announced {
        Announced {
            pipe: self.key(),
            pane_id: self.pane,
            agent,
            request_id: Some(self.id.clone()),
        }
    }

    /// A wait another instance told of (owing nothing here).
    pub(super) fn of_announced(a: &Announced) -> Option<Wait> {
        let id = a.request_id.clone()?;
        let caller = match a.pane_id {
            Some(pane) => Asker::Pane(pane),
            None => Asker::Agent(Some(a.agent.clone()).filter(|a| !a.is_empty())),
        };
        Some(Wait {
            caller,
            pane: a.pane_id,
            agent: Some(a.agent.clone()).filter(|a| !a.is_empty()),
            id,
            owed_ends: 0,
        })
    }
}
