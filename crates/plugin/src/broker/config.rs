//! What the broker is configured to do (`plugin.kdl`), and the bounds and timings it keeps to.

use crate::dialog::KeyPress;

/// Keys that arrive this soon after a request comes on screen never answer it: the user may
/// have been typing into another pane when the popup took the focus. It comes on screen each
/// time the popup shows (a question arriving, back from hidden, a client attaching), the
/// person switches to it, or it takes the place of the one that was on screen (see
/// `Broker::on_screen_changed`). Each key dropped so pushes the guard on by as much again: keys
/// count once the question has been on screen this long and this long has passed without a
/// key. And on an approval, a key that would pick an `Allow` counts only this long after the
/// key before it (see `Broker::input`).
pub const KEY_GUARD_MS: u64 = 400;
/// How long a pipe is remembered after its reply (its CLI may still send trailing lines and
/// its end-of-input message), and how long a partial stdin payload waits for its next line.
pub const FORGET_AFTER_MS: u64 = 60_000;
/// Answered pipes remembered at most, however fast they come.
pub(super) const MAX_REMEMBERED: usize = 4096;
/// The most reply bytes remembered for callers that ask again after their request ended
/// (`Arrivals::replies`); a larger reply is not remembered.
pub(super) const MAX_REMEMBERED_REPLY_BYTES: usize = 1024 * 1024;
/// The most bytes of callers' names and request ids remembered for withdrawals that came
/// before their questions (`Arrivals::withdrawn`).
pub(super) const MAX_WITHDRAWN_BYTES: usize = 1024 * 1024;
/// The most payload bytes held at once: pending requests, partial payloads and the messages
/// held until the permission answer together.
pub const MAX_PENDING_BYTES: usize = 8 * 1024 * 1024;
/// The countdown and clock tick.
pub(super) const TICK_MS: u64 = 1000;

/// Between two steps of laying out ahead what a key could show (`Broker::frame_coming`): one
/// preview per step, so that a key that comes meanwhile waits for one at most.
pub const AHEAD_STEP_MS: u64 = 20;
/// How long a newly granted instance listens for the other instances' hellos before it
/// answers what it held (the first question loads one instance per client at once).
pub const HELLO_WINDOW_MS: u64 = 300;

/// What the plugin is configured to do (from `plugin.kdl`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The key that hides the popup, None when hiding is off.
    pub hide_key: Option<KeyPress>,
    /// The hide key's name for the footer, None when hiding is off.
    pub hide_key_label: Option<String>,
    /// Applied to requests that carry no timeout of their own.
    pub default_timeout_ms: Option<u64>,
    /// Mark the caller's pane and broadcast the blocked events.
    pub indicator: bool,
    /// Put the answers in the answered/cancelled events.
    pub full_events: bool,
    /// Send a `zjstatus::pipe::pipe_ask::…` line for a status bar.
    pub zjstatus: bool,
    /// Keep a record of every questionnaire (`ask_popup_protocol::history`).
    pub history: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hide_key: "Ctrl ]".parse().ok(),
            hide_key_label: Some("Ctrl+]".to_owned()),
            default_timeout_ms: None,
            indicator: true,
            full_events: false,
            zjstatus: false,
            history: true,
        }
    }
}
