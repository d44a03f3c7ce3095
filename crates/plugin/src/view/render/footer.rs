//! The footer: the hints of the current mode (the dialog's hints, see `Dialog::hints`), with the
//! countdown first. One line, cut at the pane's width; in the compact layout at most two, with
//! the hints that do not fit left out whole, from the end (the least used).

use super::fit::{compact, pack};
use super::Chrome;
use crate::dialog::{Dialog, Mode};
use crate::view::style::{Line, Role, Style};
use crate::view::text::{self, truncate_ellipsis};

/// Lines of hints in the compact layout.
const COMPACT_LINES: usize = 2;

/// The warning when Esc would discard answers, in two parts.
const ESC_ARMED: [&str; 2] = [
    "Press Esc again to discard your answers",
    "any other key keeps them",
];

pub(super) fn footer(dialog: &Dialog, chrome: &Chrome, width: usize) -> Vec<Line> {
    if !compact(width) {
        return vec![usual(dialog, chrome, width)];
    }
    let countdown = dialog.countdown().map(|countdown| {
        let secs = countdown.remaining_ms.div_ceil(1000);
        format!("⏱ {}:{:02}", secs / 60, secs % 60)
    });
    let hints = hints(dialog, chrome);
    let mut parts: Vec<(&str, Style)> = Vec::new();
    if let Some(countdown) = &countdown {
        parts.push((countdown, Style::new(Role::Warning).bold()));
    }
    let lead = parts.len();
    parts.extend(hints.iter().map(|hint| (hint.as_str(), Role::Dim.into())));
    let mut lines = pack(&parts, width, COMPACT_LINES);
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
        lines = pack(&parts, width, usize::MAX);
        if chrome.settling {
            // As many lines as the hints that come next, so the popup keeps its height.
            while lines.len() < rows {
                lines.push(Line::new());
            }
        }
    }
    lines
}

/// The usual layout's footer: one line, cut at the pane's width (as it always was: the
/// compact one's packing costs a key's frame more work, for nothing at this width).
fn usual(dialog: &Dialog, chrome: &Chrome, width: usize) -> Line {
    let mut line = Line::new();
    let mut used = 0usize;
    if let Some(countdown) = dialog.countdown() {
        let secs = countdown.remaining_ms.div_ceil(1000);
        let text = format!("⏱ {}:{:02} · ", secs / 60, secs % 60);
        used += text::width(&text);
        line.push(text, Style::new(Role::Warning).bold());
    }
    if chrome.settling {
        line.push("…", Role::Dim);
        return line;
    }
    if dialog.esc_armed() {
        let text = "Press Esc again to discard your answers · any other key keeps them";
        line.push(
            truncate_ellipsis(text, width.saturating_sub(used)).into_owned(),
            Role::Warning,
        );
        return line;
    }
    let text = hints(dialog, chrome).join(" · ");
    line.push(
        truncate_ellipsis(&text, width.saturating_sub(used)).into_owned(),
        Role::Dim,
    );
    line
}

/// The current mode's hints (`Enter select`), the hide key's last while browsing.
fn hints(dialog: &Dialog, chrome: &Chrome) -> Vec<String> {
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
    hints
}
