//! The broker's state: each part's own state in its file (below this one), gathered in
//! `Broker`. What the broker does with it is in `ops/`, above.

use super::{
    arrival::Arrivals, config::Config, gate::GateState, history_view::HistoryView, peers::Peers,
    queue::Queue, record::RecordStamp, request::Request, screen::OnScreen, waits::Wait,
};
use crate::dialog::Dialog;
use crate::marks::PaneMarks;
use crate::view::Frame;

/// The pending requests of every caller, and the host state the decisions need.
#[derive(Debug, Default)]
pub struct Broker {
    pub(super) config: Config,
    /// The pending requests, in their order, and which one is on screen.
    pub(super) queue: Queue,
    /// Agents waiting on the person in dialogs that are not ours (the `blocked` pipe).
    pub(super) waits: Vec<Wait>,
    /// The request on screen, while the popup shows one (see `OnScreen`).
    pub(super) on_screen: Option<OnScreen>,
    /// What is arriving, and what was answered or withdrawn lately.
    pub(super) arrivals: Arrivals,
    pub(super) visible: bool,
    /// The host's clock, in milliseconds.
    pub(super) now_ms: u64,
    /// When the one-second tick is due, while it runs.
    pub(super) tick_due_ms: Option<u64>,
    pub(super) marks: PaneMarks,
    pub(super) peers: Peers,
    pub(super) gate: GateState,
    pub(super) last_frame: Option<Frame>,
    /// When and where, for the record: the wall clock and the session's name.
    pub(super) stamp: RecordStamp,
    /// The list of the questionnaires asked before, while it shows.
    pub(super) history: Option<HistoryView>,
    /// The rows and columns of the last frame drawn: what is laid out ahead is for them.
    pub(super) drawn_size: Option<(usize, usize)>,
    /// Whether a timer of `AHEAD_STEP_MS` is set to lay out more ahead.
    pub(super) ahead_armed: bool,
    /// When the latest input (key, click, wheel, paste) came, whatever became of it: a key
    /// that would pick an approval's `Allow` counts only `KEY_GUARD_MS` after it.
    pub(super) last_input_ms: Option<u64>,
    /// When the timer set to draw the footer's hints again, once the popup has settled (see
    /// `Broker::settled_at_ms`), fires.
    pub(super) settle_timer_ms: Option<u64>,
    /// Requests that ended, kept until the host's next call (`set_clock`): freeing one with
    /// its laid-out previews is a third of what answering it costs, and its reply goes out
    /// first.
    pub(super) ended: Vec<Request>,
}

impl Broker {
    pub fn new(config: Config) -> Self {
        Broker {
            config,
            ..Broker::default()
        }
    }

    /// How many requests wait for the user (shown ones not asked yet included).
    pub fn pending_count(&self) -> usize {
        self.queue.len()
    }

    /// The panes whose agents wait on the person (a question asked, a wait told): those the
    /// marks go on, and the tabs that hold them (`tab_marks`).
    pub fn waiting_panes(&self) -> Vec<u32> {
        let asking = self.asked().filter_map(|r| r.pane);
        asking
            .chain(self.waits.iter().filter_map(|w| w.pane))
            .collect()
    }

    /// The requests asked: the pending ones but those only shown yet (see `preview`).
    pub(super) fn asked(&self) -> impl Iterator<Item = &Request> {
        self.queue.asked()
    }

    pub fn is_visible(&self) -> bool {
        self.visible
    }

    /// The dialog being shown, if any.
    pub fn current_dialog(&self) -> Option<&Dialog> {
        self.queue.current().map(|r| &r.dialog)
    }

    /// Whether this instance leads (see the module's doc).
    pub fn leads(&self) -> bool {
        self.peers.leads()
    }

    /// The host's clock moved on to `now_ms` (it never goes back): a new call from the host,
    /// after the one that ended the requests in `ended`, which are freed now.
    pub fn set_clock(&mut self, now_ms: u64) {
        self.now_ms = self.now_ms.max(now_ms);
        self.ended.clear();
    }

    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }
}
