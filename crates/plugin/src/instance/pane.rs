//! The popup's pane: where it is placed and how large (`popup::popup_rect`), its name, and a
//! fullscreen that would hide it.

use super::Instance;
use crate::popup::{popup_rect, Placement};
use crate::zellij_command::Command;

/// How long a toggle that left the popup covered is given before the next (see `uncover`).
const UNCOVER_AGAIN_MS: u64 = 1000;
/// At most this many toggles per show (see `uncover`).
const UNCOVER_TRIES: u8 = 3;

impl Instance {
    /// Sizes the popup (see `popup::popup_rect`). Before Zellij has said how large the screen
    /// is, just the configured size.
    pub(super) fn resize(&mut self) {
        let Some(screen) = self.screen else {
            if let Some(placement) = self.popup.unmeasured_placement() {
                self.place(placement);
            }
            return;
        };
        let broker = &mut self.broker;
        let rect = popup_rect(
            self.popup,
            screen,
            |cols, rows| broker.natural_height(cols, rows),
            self.fitted_height,
        );
        if self.fitted_height == Some(rect.height) {
            return;
        }
        self.fitted_height = Some(rect.height);
        self.place(Placement::from(rect));
    }

    /// A fullscreen that hides the shown popup becomes one that shows it: Zellij's web client
    /// on a phone keeps its focused pane fullscreen over the floating panes (its single-pane
    /// view), and the popup would wait unseen beneath it. By the leader alone, since the
    /// command toggles; any toggle of a tiled pane's fullscreen leaves the floating panes
    /// shown, so one made on an update that was already out of date does no harm. Looked at
    /// on tab updates, which Zellij sends after the pane update of the same moment (a pane
    /// update read with the tabs of the moment before could toggle a fullscreen the popup
    /// shows over), and on timers: while it stays covered, Zellij may not report the panes
    /// again, so a toggle is made again a second later, at most `UNCOVER_TRIES` times in all
    /// until the popup is seen or hidden.
    pub(super) fn uncover(&mut self, now_ms: u64) {
        // (Covered, the popup is not on screen.)
        let shown = self.broker.is_visible();
        let Some(pane) = self.sighting.covered_by().filter(|_| shown) else {
            self.uncovered = None;
            return;
        };
        if !self.broker.leads() {
            return;
        }
        let tries = match self.uncovered {
            Some((before, at, tries)) if before == pane => {
                if now_ms < at.saturating_add(UNCOVER_AGAIN_MS) || tries >= UNCOVER_TRIES {
                    return;
                }
                tries + 1
            }
            _ => 1,
        };
        self.uncovered = Some((pane, now_ms, tries));
        if self.trace {
            self.log(format_args!(
                "toggles the fullscreen of pane {} (plugin: {}) over the popup, try {tries}",
                pane.0, pane.1
            ));
        }
        self.send(Command::ToggleFullscreen {
            pane: pane.0,
            plugin: pane.1,
        });
    }

    /// Moves and sizes the popup's pane.
    fn place(&mut self, placement: Placement) {
        if let Some(plugin) = self.plugin_id {
            self.send(Command::PlacePluginPane { plugin, placement });
        }
    }

    /// Names the popup's pane (each rename has Zellij tell every plugin of every client:
    /// a name it has already is not sent again).
    pub(super) fn set_own_title(&mut self, title: String) {
        if self.own_title.as_ref() == Some(&title) {
            return;
        }
        if let Some(id) = self.plugin_id {
            self.send(Command::RenamePluginPane {
                plugin: id,
                title: title.clone(),
            });
            self.own_title = Some(title);
        }
    }
}
