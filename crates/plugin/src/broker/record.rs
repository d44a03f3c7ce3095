//! What the record stamps each entry with: when (the wall clock) and where (the session).
//! Entries are written in `ops/record.rs`.

use ask_popup_protocol::history::Entry;

/// What the record stamps each entry with: when (the wall clock) and where (the session).
#[derive(Debug, Default)]
pub(super) struct RecordStamp {
    /// The host's wall clock when the broker's clock read 0, in milliseconds since the Unix
    /// epoch.
    pub(super) epoch_ms: u64,
    /// The session's name, once Zellij has said.
    pub(super) session: Option<String>,
}

impl RecordStamp {
    /// The wall clock when the broker's clock read `now_ms`.
    pub(super) fn wall_ms(&self, now_ms: u64) -> u64 {
        self.epoch_ms.saturating_add(now_ms)
    }

    /// Whether the list of questionnaires asked before shows `entry`: one of this session
    /// (any, before Zellij has said which session this is).
    pub(super) fn lists(&self, entry: &Entry) -> bool {
        self.session.is_none() || entry.session == self.session
    }
}
