//! The footer: the one hint line of the current mode, with the countdown first.

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
    let mut parts: Vec<&str> = Vec::with_capacity(10);
    let multi_tab = dialog.tab_count() > 1;
    let question = dialog.questionnaire().questions.get(dialog.tab());
    match dialog.mode() {
        Mode::Note => {
            parts.extend([
                "Enter save note",
                "Alt+Enter newline",
                "Ctrl+U clear",
                "Esc close",
            ]);
        }
        Mode::Typing => {
            let multi = question.is_some_and(|question| question.multi_select);
            parts.push(if multi || dialog.has_submit_tab() {
                "Enter confirm"
            } else {
                "Enter submit"
            });
            parts.extend([
                "Alt+Enter newline",
                "Ctrl+U clear",
                "↑/↓ leave",
                "Esc stop typing",
            ]);
        }
        Mode::Browse => {
            parts.extend(["Enter select", "↑/↓ move"]);
            if question.is_some_and(|question| question.multi_select) {
                parts.push("Space toggle");
            }
            let noted = dialog
                .tab_state(dialog.tab())
                .map_or(!dialog.global_note().is_blank(), |tab| !tab.note.is_blank());
            parts.push(match (dialog.on_submit_tab(), noted) {
                (_, false) => "n note",
                (_, true) => "n edit note",
            });
            if question.is_some_and(|question| question.has_preview() && !question.multi_select) {
                parts.push("PgUp/PgDn scroll");
            }
            if multi_tab {
                parts.push("Tab switch");
            }
            parts.push("Esc cancel");
        }
    }
    let hide = chrome.hide_key.as_ref().map(|key| format!("{key} hide"));
    if dialog.mode() == Mode::Browse {
        if let Some(hide) = hide.as_deref() {
            parts.push(hide);
        }
    }
    let text = parts.join(" · ");
    line.push(
        truncate_ellipsis(&text, width.saturating_sub(used)).into_owned(),
        Role::Dim,
    );
    line
}
