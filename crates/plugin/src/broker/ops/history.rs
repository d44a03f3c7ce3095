//! The list of this session's questionnaires in the popup, read-only: opened with the
//! bring-back binding (or `show`) when no question waits, or with `h` from a question, and
//! closed with Esc. The plugin reads the record (`Effect::OpenHistory`) and hands the entries
//! over (`Broker::history_loaded`).

use crate::broker::{
    history_view::{HistoryView, ListInput},
    state::Broker,
};
use crate::dialog::Input;
use crate::effect::Effect;
use crate::view::Theme;
use ask_popup_protocol::history::Entry;

impl Broker {
    /// Whether the popup shows the list of questionnaires.
    pub fn showing_history(&self) -> bool {
        self.history.is_some()
    }

    /// The record's entries, read for the list (`Effect::OpenHistory`): this session's latest
    /// show.
    pub fn history_loaded(&mut self, entries: Vec<Entry>) -> Vec<Effect> {
        self.history = Some(HistoryView::listing(entries, |e| self.stamp.lists(e)));
        let mut effects = vec![
            Effect::SetOwnTitle("ask-popup · asked before".to_owned()),
            Effect::Show,
            Effect::Render,
        ];
        // The question it covers is not on screen meanwhile: its countdown waits.
        self.on_screen_changed(false, &mut effects);
        self.done(effects)
    }

    /// Input while the list shows: it scrolls, Esc (and `h` from a question) closes it.
    pub(super) fn history_input(&mut self, input: &Input, effects: &mut Vec<Effect>) {
        let Some(view) = self.history.as_mut() else {
            return;
        };
        match view.input(input) {
            ListInput::Redraw => effects.push(Effect::Render),
            ListInput::Nothing => {}
            ListInput::Close => self.close_history(effects),
            ListInput::Hide => {
                // Hidden first: the question the list covered does not come on screen.
                self.visible = false;
                self.close_history(effects);
                effects.push(Effect::Hide);
            }
        }
    }

    /// Closes the list: back to the question that waits, or the popup hides.
    pub(super) fn close_history(&mut self, effects: &mut Vec<Effect>) {
        if self.history.take().is_none() {
            return;
        }
        if self.queue.is_empty() {
            self.visible = false;
            effects.push(Effect::Hide);
            effects.push(Effect::SetOwnTitle("ask-popup".to_owned()));
        } else {
            effects.push(Effect::SetOwnTitle(self.own_title()));
            effects.push(Effect::FitAnew);
            effects.push(Effect::Render);
            self.on_screen_changed(false, effects);
        }
    }

    /// The list in `rows` × `cols` cells, with `theme`'s colours.
    pub(super) fn history_text(&mut self, rows: usize, cols: usize, theme: &Theme) -> String {
        let now = self.stamp.wall_ms(self.now_ms);
        let back = !self.queue.is_empty();
        let hide = self.config.hide_key_label.clone();
        let Some(view) = self.history.as_mut() else {
            return String::new();
        };
        view.text(now, rows, cols, back, hide.as_deref(), theme)
    }
}
