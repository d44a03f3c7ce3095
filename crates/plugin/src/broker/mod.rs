//! The broker: every caller's pending request, and what the plugin must do about each event.
//!
//! Host events go in (a pipe message, a key, a timer, the pane closing); effects come out
//! (block, reply, broadcast, rename, show, hide, set a timer). `instance.rs` turns them into
//! Zellij's commands, which `main.rs` sends.
//! Every request is answered through `resolve`, which removes it: that is how each request
//! gets exactly one reply, its own, whatever happens.
//!
//! Zellij runs one plugin instance per attached client, and each gets every pipe message. The
//! instances know each other (they say hello on load, and hear such messages only from this
//! plugin's own id, never from another plugin) and the one with the lowest client id
//! leads: it alone answers what every instance decides alike (rejections, `status`, `cancel`,
//! a superseded or dismissed request, a timeout), marks titles and broadcasts. What the user
//! does in one instance is answered by that instance, which tells the others to drop the

mod arrival;
mod config;
mod gate;
mod history_view;
mod ops;
mod peers;
mod pipes;
mod queue;
mod record;
mod request;
mod screen;
mod state;
mod waits;

pub use crate::effect::Effect;
pub use crate::marks::TITLE_MARK;
pub use config::{
    Config, AHEAD_STEP_MS, FORGET_AFTER_MS, HELLO_WINDOW_MS, KEY_GUARD_MS, MAX_PENDING_BYTES,
};
pub use gate::GRANT_SILENCE_MS;
pub use peers::RESHOW_WINDOW_MS;
pub use pipes::{
    PipeIn, Source, ANSWERED_ELSEWHERE_ARG, APPROVAL_BY_ARG, BLOCKED_PIPE, CANCEL_PIPE,
    FROM_PANE_ARG, FROM_SESSION_ARG, GO_KEY, GO_KEY_LABEL, PEER_PIPE, PICK_PIPE, SHOW_PIPE,
    STATUS_PIPE, VERSION, VERSION_PIPE,
};
pub use state::Broker;
pub use waits::MAX_WAITS;
