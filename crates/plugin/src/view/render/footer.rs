//! The footer: the hints of the current mode (the dialog's hints, see `Dialog::hints`), with the
//! countdown first. One line, cut at the pane's width; in the compact layout at most two, with
//! the hints that do not fit left out whole, from the end (the least used).

use super::fit::{compact, end_with_ellipsis, pack};
use super::Chrome;
use crate::dialog::{Dialog, Mode};
use crate::view::style::{Line, Role, Style};

/// Lines of hints in the compact layout.
const COMPACT_LINES: usize = 2;

/// The warning when Esc would discard answers, in two parts.
const ESC_ARMED: [&str; 2] = [
    "Press Esc again to discard your answers",
    "any other key keeps them",
];

pub(super) fn footer(dialog: &Dialog, chrome: &Chrome, width: usize) -> Vec<Line> {
    let countdown = dialog.countdown().map(|countdown| {
        let secs = countdown.remaining_ms.div_ceil(1000);
        format!("⏱ {}:{:02}", secs / 60, secs % 60)
    });
    let mut hints: Vec<String> = dialog
        .hints()
        .iter()
        .map(|hint| format!("{} {}", hint.keys, hint.action))
        .collect();
    if dialog.mode() == Mode::Browse {
        if let Some(key) = &chrome.hide_key {
            hints.push(format!("{key} hide"));
        }
    }
    let mut parts: Vec<(&str, Style)> = Vec::new();
    if let Some(countdown) = &countdown {
        parts.push((countdown, Style::new(Role::Warning).bold()));
    }
    let lead = parts.len();
    parts.extend(hints.iter().map(|hint| (hint.as_str(), Role::Dim.into())));
    // The usual layout lays the parts out on one line and cuts it below.
    let compact = compact(width);
    let room = if compact { width } else { usize::MAX };
    let mut lines = pack(&parts, room, if compact { COMPACT_LINES } else { 1 });
    if chrome.settling || dialog.esc_armed() {
        let rows = lines.len().max(1);
        parts.truncate(lead);
        if chrome.settling {
            // A request that just appeared, whose keys do not count yet: `…` alone after the
            // countdown. The end-to-end tests know it by that; no other footer is `…` or ends
            // with `· …`.
            parts.push(("…", Role::Dim.into()));
        } else {
            parts.extend(ESC_ARMED.map(|part| (part, Role::Warning.into())));
        }
        lines = pack(&parts, room, usize::MAX);
        if chrome.settling {
            // As many lines as the hints that come next, so the popup keeps its height.
            while lines.len() < rows {
                lines.push(Line::new());
            }
        }
    }
    if !compact {
        for line in lines.iter_mut().filter(|line| line.width() > width) {
            end_with_ellipsis(line, width);
        }
    }
    lines
}
