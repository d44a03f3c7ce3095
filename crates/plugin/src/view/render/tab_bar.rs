//! The tab bar: one tab per question and the Submit tab, as many around the active one as fit;
//! in the compact layout all of them, on as many rows as they take.

use super::block::{Block, Focus};
use super::fit::compact;
use crate::dialog::{Dialog, Target};
use crate::view::style::{Line, Role, Style};
use crate::view::text::{self, sanitize_line, truncate_ellipsis};
use crate::view::wrap::wrap;

pub(super) fn tab_bar(dialog: &Dialog, width: usize, out: &mut Block) {
    let mut tabs: Vec<(String, Style)> = Vec::with_capacity(dialog.tab_count());
    for (question_index, question) in dialog.questionnaire().questions.iter().enumerate() {
        let answered = dialog.is_answered(question_index);
        let noted = dialog
            .tab_state(question_index)
            .is_some_and(|tab| !tab.note.is_blank());
        let mark = if answered { '■' } else { '□' };
        let star = if noted { '*' } else { ' ' };
        let text = format!(" {mark}{star}{} ", sanitize_line(&question.header));
        let style = if question_index == dialog.tab() {
            Style::new(Role::Selected).bold()
        } else if answered {
            Style::new(Role::Success)
        } else {
            Style::new(Role::Muted)
        };
        tabs.push((text, style));
    }
    if dialog.has_submit_tab() {
        let all = (0..dialog.question_count()).all(|i| dialog.is_answered(i));
        let style = if dialog.on_submit_tab() {
            Style::new(Role::Selected).bold()
        } else if all {
            Style::new(Role::Success)
        } else {
            Style::new(Role::Dim)
        };
        tabs.push((" ✓ Submit ".to_owned(), style));
    }

    // Show as many tabs around the active one as fit.
    let widths: Vec<usize> = tabs.iter().map(|(t, _)| text::width(t)).collect();
    let active = dialog.tab().min(tabs.len().saturating_sub(1));
    // Room for the arrows, and for the ellipses of tabs scrolled out of view; the compact
    // layout shows every tab, between the arrows when they fit, else on rows.
    let budget = width.saturating_sub(if compact(width) { 2 } else { 4 });
    if compact(width) && widths.iter().sum::<usize>() > budget {
        rows(tabs, active, width, out);
        return;
    }
    let (mut first, mut last) = (active, active);
    let mut used = widths.get(active).copied().unwrap_or(0);
    loop {
        let mut grew = false;
        if last + 1 < tabs.len() && used + widths[last + 1] <= budget {
            last += 1;
            used += widths[last];
            grew = true;
        }
        if first > 0 && used + widths[first - 1] <= budget {
            first -= 1;
            used += widths[first];
            grew = true;
        }
        if !grew {
            break;
        }
    }

    let mut line = Line::new();
    let mut col = 0usize;
    let lead = if first > 0 { "…" } else { "←" };
    line.push(lead, Role::Dim);
    col += text::width(lead);
    let mut hits = Vec::new();
    for (tab_index, (text, style)) in tabs.iter().enumerate().take(last + 1).skip(first) {
        let shown = truncate_ellipsis(text, budget.max(1)).into_owned();
        let shown_width = text::width(&shown);
        hits.push((Target::Tab(tab_index), col..col + shown_width));
        line.push(shown, *style);
        col += shown_width;
    }
    line.push(if last + 1 < tabs.len() { "…" } else { "→" }, Role::Dim);
    out.push(line);
    for (target, cols) in hits {
        out.hit(target, cols);
    }
}

/// Every tab, each whole, on as many rows as they take (one wider than the pane wraps onto rows
/// of its own); the active tab's rows are the block's focus, kept when the pane is short.
fn rows(tabs: Vec<(String, Style)>, active: usize, width: usize, out: &mut Block) {
    // Full: the first tab starts a row.
    let mut col = width;
    for (tab_index, (text, style)) in tabs.into_iter().enumerate() {
        let pieces = if text::width(&text) <= width {
            vec![text]
        } else {
            wrap(&text, width)
        };
        let mut start = None;
        for piece in pieces {
            let piece_width = text::width(&piece);
            // A wrapped tab's pieces fill their rows.
            if col + piece_width > width || start.is_some() {
                out.push(Line::new());
                col = 0;
            }
            start.get_or_insert(out.len() - 1);
            out.hit(Target::Tab(tab_index), col..col + piece_width);
            if let Some((row, _)) = out.lines.last_mut() {
                row.push(piece, style);
            }
            col += piece_width;
        }
        if tab_index == active {
            out.focus = start.map(|start| Focus::rows(start, out.len()));
        }
    }
}
