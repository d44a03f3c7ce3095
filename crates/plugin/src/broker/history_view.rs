//! The list of this session's questionnaires while it shows: the entries, how far it is
//! scrolled, what an input does to it, and how it is drawn (see `ops/history.rs`).

use crate::dialog::{Input, Key};
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

/// What an input does to the list.
pub(super) enum ListInput {
    /// It scrolled: draw it again.
    Redraw,
    Nothing,
    /// Back to the question waiting, if any.
    Close,
    /// The hide key: closed, and the popup hidden.
    Hide,
}

impl HistoryView {
    /// The newest `HISTORY_LISTED` of `entries` that `shown` lets through, newest first.
    pub(super) fn listing(entries: Vec<Entry>, shown: impl Fn(&Entry) -> bool) -> HistoryView {
        let mut entries: Vec<Entry> = entries.into_iter().filter(|e| shown(e)).collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.asked_ms));
        entries.truncate(HISTORY_LISTED);
        HistoryView {
            entries,
            ..HistoryView::default()
        }
    }

    /// Scrolls for `input`, or says what else it asks for.
    pub(super) fn input(&mut self, input: &Input) -> ListInput {
        let page = 8;
        let scroll = match input {
            Input::Key(Key::Up) => self.scroll.saturating_sub(1),
            Input::Key(Key::Down) => self.scroll.saturating_add(1),
            Input::Key(Key::PageUp) => self.scroll.saturating_sub(page),
            Input::Key(Key::PageDown) => self.scroll.saturating_add(page),
            Input::Key(Key::Home) => 0,
            Input::Key(Key::End) => self.max_scroll,
            Input::Wheel { lines } => self.scroll.saturating_add_signed(*lines as isize),
            Input::Key(Key::Esc | Key::Char('h')) => return ListInput::Close,
            Input::Key(Key::Hide) => return ListInput::Hide,
            _ => return ListInput::Nothing,
        };
        let scroll = scroll.min(self.max_scroll);
        if scroll == self.scroll {
            return ListInput::Nothing;
        }
        self.scroll = scroll;
        ListInput::Redraw
    }

    /// The list drawn `rows` by `cols` at wall clock `now_ms` (each entry says how long ago
    /// it was asked), with the way `back` to a question waiting and the `hide` key named.
    pub(super) fn text(
        &mut self,
        now_ms: u64,
        rows: usize,
        cols: usize,
        back: bool,
        hide: Option<&str>,
        theme: &Theme,
    ) -> String {
        let listed: Vec<Listed> = self
            .entries
            .iter()
            .map(|entry| Listed {
                when: ago(now_ms.saturating_sub(entry.asked_ms)),
                entry,
            })
            .collect();
        let (frame, max_scroll) = history_frame(&listed, self.scroll, cols, rows, back, hide);
        self.max_scroll = max_scroll;
        self.scroll = self.scroll.min(max_scroll);
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
