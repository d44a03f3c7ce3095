//! The list of the questionnaires asked before, as the popup shows it: read-only, latest
//! first, each as the record reads (`ask_popup_protocol::history::Entry::block`), scrolled a line at a
//! time, with a footer of its keys.

use super::frame::Frame;
use super::style::{Line, Role, Style};
use super::text::truncate_ellipsis;
use super::wrap::wrap;

/// One questionnaire as the list shows it: when (as the popup tells time) and its block.
pub struct Listed<'a> {
    pub when: String,
    pub entry: &'a ask_popup_protocol::history::Entry,
}

/// The list in `cols` × `rows` cells, from line `scroll` of it; `back_to_questions`: questions
/// wait (the footer says how to go back to them); `hide_key`: the popup's hide key, for the
/// footer. With the greatest scroll that still fills the screen.
pub fn history_frame(
    listed: &[Listed],
    scroll: usize,
    cols: usize,
    rows: usize,
    back_to_questions: bool,
    hide_key: Option<&str>,
) -> (Frame, usize) {
    let width = cols.max(1);
    let mut body: Vec<Line> = Vec::new();
    for (i, item) in listed.iter().enumerate() {
        if i > 0 {
            body.push(Line::new());
        }
        for (j, text) in item.entry.block(&item.when).iter().enumerate() {
            let role = if j == 0 { Role::Accent } else { Role::Text };
            let indent = text.chars().take_while(|c| *c == ' ').count();
            // (`block` cleaned it.)
            let text = text.trim_start();
            for (k, piece) in wrap(text, width.saturating_sub(indent).max(1))
                .into_iter()
                .enumerate()
            {
                let mut line = Line::new();
                // A wrapped line goes on under its text, not under its indent.
                line.push_spaces(if k == 0 { indent } else { indent + 2 }.min(width));
                line.push(piece, Style::new(role));
                line.clip(width);
                body.push(line);
            }
        }
    }
    if listed.is_empty() {
        body.push(Line::styled(
            "No questionnaires asked in this session yet.",
            Role::Muted,
        ));
    }
    let title = Line::styled(
        truncate_ellipsis("Asked before in this session, the latest first", width).into_owned(),
        Style::new(Role::Heading).bold(),
    );
    // The title, a blank line, the list, a blank line, the footer.
    let room = rows.saturating_sub(4).max(1);
    let max_scroll = body.len().saturating_sub(room);
    let scroll = scroll.min(max_scroll);
    let mut lines = vec![title, Line::new()];
    lines.extend(body.into_iter().skip(scroll).take(room));
    while lines.len() < rows.saturating_sub(2) {
        lines.push(Line::new());
    }
    lines.truncate(rows.saturating_sub(2).max(1));
    lines.push(Line::new());
    let mut keys = vec!["↑/↓ PgUp/PgDn scroll"];
    keys.push(if back_to_questions {
        "Esc, h back to the questions"
    } else {
        "Esc close"
    });
    let hide = hide_key.map(|key| format!("{key} hide"));
    let mut parts: Vec<&str> = keys;
    if let Some(hide) = &hide {
        parts.push(hide);
    }
    let footer = truncate_ellipsis(&parts.join(" · "), width).into_owned();
    lines.push(Line::styled(footer, Role::Dim));
    lines.truncate(rows.max(1));
    let frame = Frame {
        width,
        height: lines.len(),
        lines,
        hits: Vec::new(),
        preview_max_scroll: None,
    };
    (frame, max_scroll)
}
