//! The footer: the one hint line of the current mode (the dialog's hints, see
//! `Dialog::hints`), with the countdown first.

use super::Chrome;
use crate::dialog::{Dialog, Mode};
use crate::view::style::{Line, Role, Style};
use crate::view::text::{self, truncate_ellipsis};

pub(super) fn footer(dialog: &Dialog, chrome: &Chrome, width: usize) -> Line {
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
    let mut parts: Vec<String> = dialog
        .hints()
        .iter()
        .map(|hint| format!("{} {}", hint.keys, hint.action))
        .collect();
    if dialog.mode() == Mode::Browse {
        if let Some(key) = &chrome.hide_key {
            parts.push(format!("{key} hide"));
        }
    }
    let text = parts.join(" · ");
    line.push(
        truncate_ellipsis(&text, width.saturating_sub(used)).into_owned(),
        Role::Dim,
    );
    line
}
