//! The request on screen, as it came there, with its key guard (see `KEY_GUARD_MS`). What
//! shows, and when a request comes on screen, is decided in `ops/screen.rs`.

use super::{config::KEY_GUARD_MS, request::Request};

/// The request on screen, as it came there: made only by `OnScreen::after` (which
/// `Broker::on_screen_changed` alone calls), anew each time a request comes on screen, so that
/// none shows without a key guard of its own.
#[derive(Debug)]
pub(super) struct OnScreen {
    /// Which request: its CLI pipe.
    pipe: String,
    /// Shown from a message still held behind the gate (see `Request::provisional`).
    provisional: bool,
    /// From when keys count (see `KEY_GUARD_MS`): `KEY_GUARD_MS` after it came on screen, or
    /// after the latest key that came before then.
    keys_from_ms: u64,
    /// Whether its frame shows that keys count (the footer's hints instead of `…`).
    drawn_ready: bool,
}

impl OnScreen {
    /// What is on screen once it may have changed, the only way one is made (its one caller is
    /// `Broker::on_screen_changed`): `was` on screen before; `r`, the request the popup shows
    /// now, if any; `shown` when the popup shows, which takes the focus; at `now_ms`.
    pub(super) fn after(
        was: Option<OnScreen>,
        r: Option<&Request>,
        shown: bool,
        now_ms: u64,
    ) -> Option<OnScreen> {
        match (was, r) {
            // Still on screen, and the popup did not show again; or the request asked from
            // the message shown while the hellos came in takes its place, on screen since
            // then (it took no keys meanwhile).
            (Some(was), Some(r))
                if was.pipe == r.pipe && (!shown || (was.provisional && !r.provisional)) =>
            {
                Some(OnScreen {
                    provisional: r.provisional,
                    ..was
                })
            }
            (_, r) => r.map(|r| OnScreen {
                pipe: r.pipe.clone(),
                provisional: r.provisional,
                keys_from_ms: now_ms.saturating_add(KEY_GUARD_MS),
                drawn_ready: false,
            }),
        }
    }

    /// The request on screen was asked again by its caller (the same questionnaire under the
    /// same id, on CLI pipe `pipe`) and stays on screen as it was.
    pub(super) fn moved_to(&mut self, pipe: &str) {
        pipe.clone_into(&mut self.pipe);
    }

    /// Whether it is `r` that is on screen.
    pub(super) fn is_of(&self, r: &Request) -> bool {
        self.pipe == r.pipe
    }

    /// From when keys count.
    pub(super) fn keys_from_ms(&self) -> u64 {
        self.keys_from_ms
    }

    /// A key came at `now_ms` before keys counted: they count `KEY_GUARD_MS` after it.
    pub(super) fn guard_from(&mut self, now_ms: u64) {
        self.keys_from_ms = now_ms.saturating_add(KEY_GUARD_MS);
    }

    /// Whether its frame shows that keys count.
    pub(super) fn drawn_ready(&self) -> bool {
        self.drawn_ready
    }

    pub(super) fn set_drawn_ready(&mut self, ready: bool) {
        self.drawn_ready = ready;
    }
}
