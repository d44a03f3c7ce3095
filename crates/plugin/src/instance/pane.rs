//! The popup's pane: where it is placed and how large (`popup::popup_rect`), its name, and a
//! fullscreen that would hide it.

use super::Instance;
use crate::popup::{popup_rect, Placement};
use crate::zellij_command::Command;

/// How long a toggle that left the popup covered is given before the next (see `uncover`).
const UNCOVER_AGAIN_MS: u64 = 1000;
/// At most this many toggles per show (see `uncover`).
const UNCOVER_TRIES: u8 = 3;

/// How long after the popup showed the messages to the other instances and the pane's name
/// wait (see `Instance::run`): the first frame's way to the screen, through Zellij and the
/// terminal, takes about 10 ms on a small machine, and each of them sets Zellij to work for
/// every plugin of every client.
pub(super) const DEFERRED_MS: u64 = 40;

/// The fullscreen pane toggled last to uncover the popup (see `Instance::uncover`).
#[derive(Debug)]
pub(super) struct Uncovering {
    /// The pane, and whether it is a plugin's.
    pane: (u32, bool),
    /// When it was toggled.
    at: u64,
    /// How many times since the popup was last seen or hidden.
    tries: u8,
    /// Whether Zellij has reported the tabs since.
    reported: bool,
}

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
    /// command toggles. Looked at on tab updates, which Zellij sends after the pane update of
    /// the same moment (a pane update read with the tabs of the moment before could toggle a
    /// fullscreen the popup shows over), and on timers (`reported` false).
    ///
    /// Zellij's toggle does not report the panes, and its phone view follows the focus to the
    /// popup only when they are next reported; so the toggle goes with a rename of the popup's
    /// pane to the name it has, which does. While the popup stays covered, it is toggled again
    /// a second later, at most `UNCOVER_TRIES` times until the popup is seen or hidden, and
    /// only once Zellij has reported the tabs since the last toggle: a toggle made on a view
    /// from before the last one took would make the pane beneath fullscreen again, and the
    /// phone's view would leave its single pane for good.
    pub(super) fn uncover(&mut self, now_ms: u64, reported: bool) {
        // (Covered, the popup is not on screen.)
        let shown = self.broker.is_visible();
        let Some(pane) = self.sighting.covered_by().filter(|_| shown) else {
            self.uncovered = None;
            return;
        };
        if !self.broker.leads() {
            return;
        }
        let tries = match &mut self.uncovered {
            Some(last) if last.pane == pane => {
                last.reported |= reported;
                if !last.reported
                    || now_ms < last.at.saturating_add(UNCOVER_AGAIN_MS)
                    || last.tries >= UNCOVER_TRIES
                {
                    return;
                }
                last.tries + 1
            }
            _ => 1,
        };
        self.uncovered = Some(Uncovering {
            pane,
            at: now_ms,
            tries,
            reported: false,
        });
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
        let title = self
            .own_title
            .clone()
            .unwrap_or_else(|| "ask-popup".to_owned());
        self.rename_own_pane(title);
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
        if self.own_title.as_ref() != Some(&title) {
            self.rename_own_pane(title);
        }
    }

    /// Renames the popup's pane to `title`, the same name too (each rename has Zellij
    /// report the panes).
    fn rename_own_pane(&mut self, title: String) {
        if let Some(plugin) = self.plugin_id {
            self.send(Command::RenamePluginPane {
                plugin,
                title: title.clone(),
            });
            self.own_title = Some(title);
        }
    }
}
