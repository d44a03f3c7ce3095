//! The popup's pane: where it is placed and how large (`popup::popup_rect`), its name, and a
//! fullscreen that would hide it.

use super::Instance;
use crate::popup::{popup_rect, Placement};
use crate::zellij_command::Command;

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
    /// view), and the popup would wait unseen beneath it. Toggled once per covering pane until
    /// the popup is seen on screen again, and by the leader alone, since the command toggles.
    /// Looked at on tab updates, which Zellij sends after the pane update of the same moment
    /// (a pane update read with the tabs of the moment before could toggle a fullscreen the
    /// popup shows over).
    pub(super) fn uncover(&mut self) {
        if self.sighting.on_screen() {
            self.uncovered = None;
            return;
        }
        if !self.broker.is_visible() || !self.broker.leads() {
            return;
        }
        let Some((pane, plugin)) = self.sighting.covered_by() else {
            return;
        };
        if self.uncovered != Some((pane, plugin)) {
            self.uncovered = Some((pane, plugin));
            self.send(Command::ToggleFullscreen { pane, plugin });
        }
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
