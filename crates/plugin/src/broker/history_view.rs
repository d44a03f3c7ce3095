//! The list of this session's questionnaires in the popup, read-only: opened with the
//! bring-back binding (or `show`) when no question waits, or with `h` from a question, and
//! closed with Esc. The plugin reads the record (`Effect::OpenHistory`) and hands the entries
//! over (`Broker::history_loaded`).

use super::state::Broker;
use crate::dialog::{Input, Key};
use crate::effect::Effect;
use crate::view::history_list::{history_frame, Listed};
use crate::view::Theme;
use ask_popup_protocol::history::Entry;

/// How many of the session's latest questionnaires the list holds.
pub const HISTORY_LISTED: usize = 50;

/// The list while it shows.
#[derive(Debug, Default)]
pub(super) struct HistoryView {
    /// The session's latest entries, latest first.
    entries: Vec<Entry>,
    /// The first line shown, and the most it can be.
    scroll: usize,
    max_scroll: usize,
}

impl Broker {
    /// Whether the popup shows the list of questionnaires.
    pub fn showing_history(&self) -> bool {
        self.history.is_some()
    }

    /// The record's entries, read for the list (`Effect::OpenHistory`): this session's latest
    /// show.
    pub fn history_loaded(&mut self, entries: Vec<Entry>) -> Vec<Effect> {
        let mut entries: Vec<Entry> = entries
            .into_iter()
            .filter(|e| self.session.is_none() || e.session == self.session)
            .collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.asked_ms));
        entries.truncate(HISTORY_LISTED);
        self.history = Some(HistoryView {
            entries,
            ..HistoryView::default()
        });
        let mut effects = vec![
            Effect::SetOwnTitle("ask-popup · asked before".to_owned()),
            Effect::Show,
            Effect::Render,
        ];
        // The question it covers is not on screen meanwhile: its countdown waits.
        self.on_screen_changed(&mut effects);
        self.done(effects)
    }

    /// Input while the list shows: it scrolls, Esc (and `h` from a question) closes it.
    pub(super) fn history_input(&mut self, input: &Input, effects: &mut Vec<Effect>) {
        let Some(view) = self.history.as_mut() else {
            return;
        };
        let page = 8;
        let scroll = match input {
            Input::Key(Key::Up) => view.scroll.saturating_sub(1),
            Input::Key(Key::Down) => view.scroll.saturating_add(1),
            Input::Key(Key::PageUp) => view.scroll.saturating_sub(page),
            Input::Key(Key::PageDown) => view.scroll.saturating_add(page),
            Input::Key(Key::Home) => 0,
            Input::Key(Key::End) => view.max_scroll,
            Input::Wheel { lines } => view.scroll.saturating_add_signed(*lines as isize),
            Input::Key(Key::Esc | Key::Char('h')) => {
                self.close_history(effects);
                return;
            }
            Input::Key(Key::Hide) => {
                self.close_history(effects);
                self.visible = false;
                effects.push(Effect::Hide);
                return;
            }
            _ => return,
        };
        let scroll = scroll.min(view.max_scroll);
        if scroll != view.scroll {
            view.scroll = scroll;
            effects.push(Effect::Render);
        }
    }

    /// Closes the list: back to the question that waits, or the popup hides.
    pub(super) fn close_history(&mut self, effects: &mut Vec<Effect>) {
        if self.history.take().is_none() {
            return;
        }
        if self.pending.is_empty() {
            self.visible = false;
            effects.push(Effect::Hide);
            effects.push(Effect::SetOwnTitle("ask-popup".to_owned()));
        } else {
            effects.push(Effect::SetOwnTitle(self.own_title()));
            effects.push(Effect::FitAnew);
            effects.push(Effect::Render);
            self.on_screen_changed(effects);
        }
    }

    /// The list in `rows` × `cols` cells, with `theme`'s colours.
    pub(super) fn history_text(&mut self, rows: usize, cols: usize, theme: &Theme) -> String {
        let now = self.epoch_ms.saturating_add(self.now_ms);
        let back = !self.pending.is_empty();
        let hide = self.config.hide_key_label.clone();
        let Some(view) = self.history.as_mut() else {
            return String::new();
        };
        let listed: Vec<Listed> = view
            .entries
            .iter()
            .map(|entry| Listed {
                when: ago(now.saturating_sub(entry.asked_ms)),
                entry,
            })
            .collect();
        let (frame, max_scroll) =
            history_frame(&listed, view.scroll, cols, rows, back, hide.as_deref());
        view.max_scroll = max_scroll;
        view.scroll = view.scroll.min(max_scroll);
        frame.to_ansi(theme)
    }
}

/// How long ago, as a person says it (the plugin knows no time zone): `just now`, `5 min ago`,
/// `2 h ago`, `3 days ago`.
fn ago(ms: u64) -> String {
    let min = ms / 60_000;
    match min {
        0 => "just now".to_owned(),
        1..=59 => format!("{min} min ago"),
        60..=2879 => format!("{} h ago", min / 60),
        _ => format!("{} days ago", min / 1440),
    }
}
