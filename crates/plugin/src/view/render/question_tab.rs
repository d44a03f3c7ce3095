//! A question's tab: the question and its context, the option rows, the focused option's
//! preview (beside the options in a wide pane, below them otherwise) and the note.

use super::block::{beside, Block, Focus};
use super::cache::{LaidOut, PayloadText, ViewCache};
use super::editor::{editor_lines, note_lines, MAX_EDITOR_LINES};
use super::fit::{compact, fit, fit_parts};
use crate::dialog::{row_number, Choice, Dialog, Mode, Row, TabState, Target};
use crate::view::frame::Hit;
use crate::view::style::{Line, Role, Style};
use crate::view::text::{self, sanitize_line};
use ask_popup_protocol::elicitation::page::DECLINE_LABEL;
use ask_popup_protocol::request::{
    Question, CHAT_LABEL, FREEFORM_LABEL, NEXT_LABEL, RECOMMENDED_MARK,
};
use std::rc::Rc;

/// From this width on, previews sit beside the options.
pub const SIDE_BY_SIDE_WIDTH: usize = 100;

/// The rows of a question tab: options, `Type something.`, `Next`, a rule and `Chat about this`.
pub(super) fn question_tab(
    dialog: &Dialog,
    cache: &mut ViewCache,
    width: usize,
    avail: usize,
    measure: bool,
    preview_max_scroll: &mut Option<usize>,
) -> Block {
    let index = dialog.tab();
    let Some(question) = dialog.questionnaire().questions.get(index) else {
        return Block::default();
    };
    let Some(state) = dialog.tab_state(index) else {
        return Block::default();
    };
    let tab = Tab {
        dialog,
        index,
        question,
        state,
        width,
        measure,
    };
    let typing = dialog.mode() == Mode::Typing;
    let has_preview = !question.multi_select && question.has_preview() && !typing;
    let side_by_side = has_preview && width >= SIDE_BY_SIDE_WIDTH;
    let list_width = if side_by_side {
        tab.list_width_beside_preview(cache)
    } else {
        width
    };

    // Above the options: the question and its context.
    let mut pre = Block::default();
    for (line, line_width) in cache
        .get(dialog, PayloadText::Question(index), width)
        .iter()
    {
        pre.push_measured(line.clone(), line_width);
    }
    let options = option_rows(&tab, cache, &dialog.rows(index), list_width);

    // Below the options: the note.
    let mut post = Block::default();
    note_lines(dialog, &state.note, width, "Notes", &mut post);

    if question.context.is_some() {
        let others = options.len() + post.len();
        tab.push_context(cache, &mut pre, avail, others, preview_max_scroll);
    }
    pre.blank();

    let body = if has_preview {
        let body_avail = avail.saturating_sub(pre.len() + post.len()).max(3);
        let room = Room {
            list_width,
            side_by_side,
            body_avail,
        };
        tab.with_preview(cache, options, room, preview_max_scroll)
    } else {
        options
    };

    let mut out = pre;
    out.append(body);
    out.append(post);
    out
}

/// What every part of a question tab reads: the question shown, its state, and how it is drawn.
struct Tab<'a> {
    dialog: &'a Dialog,
    /// The question's index (the current tab).
    index: usize,
    question: &'a Question,
    state: &'a TabState,
    width: usize,
    /// Only the tab's height matters: a preview's lines are counted, not copied.
    measure: bool,
}

/// Where the options and a preview go: the options' width, and the rows left for both.
struct Room {
    list_width: usize,
    side_by_side: bool,
    body_avail: usize,
}

impl Tab<'_> {
    /// The options' column beside a preview: as wide as the longest label and its row's
    /// pointer, number and mark, within 30 cells and half the pane.
    fn list_width_beside_preview(&self, cache: &mut ViewCache) -> usize {
        let longest = (0..self.question.options.len())
            .map(|option_index| {
                cache
                    .get(
                        self.dialog,
                        PayloadText::Label(self.index, option_index),
                        usize::MAX / 4,
                    )
                    .max_width()
            })
            .max()
            .unwrap_or(0);
        (longest + 7).clamp(30, self.width / 2)
    }

    /// The question's context under it (`pre`, the question's lines), as the room left by the
    /// `others` rows (options and note) in `avail` allows: whole, in a scrolling window, or
    /// folded to one line. Ctrl+E turns the first two into the third and back.
    fn push_context(
        &self,
        cache: &mut ViewCache,
        pre: &mut Block,
        avail: usize,
        others: usize,
        preview_max_scroll: &mut Option<usize>,
    ) {
        let context = cache.get(self.dialog, PayloadText::Context(self.index), self.width);
        let fits = pre.len() + context.len() + 2 + others <= avail;
        let expanded = fits != self.dialog.context_expanded();
        if expanded && fits {
            for (line, line_width) in context.iter() {
                pre.push_measured(line.clone(), line_width);
            }
        } else if expanded {
            // A context taller than the pane gets the room the options and the line under it
            // leave (that line as long as it can get: the compact layout may wrap it).
            let under = window_line(context.len(), context.len());
            let under = fit_parts(&under, self.width, Style::default()).len();
            let room = avail.saturating_sub(pre.len() + 2 + others + under).max(3);
            self.push_context_window(&context, room, pre, preview_max_scroll);
        } else {
            let text = format!("▸ Context ({} lines) · Ctrl+E to expand", context.len());
            pre.push_all(fit_parts(&text, self.width, Role::Muted.into()));
        }
    }

    /// `room` rows of a context taller than the pane, and a line on how to scroll and fold it.
    /// It scrolls with PgUp/PgDn when the question has no preview to scroll.
    fn push_context_window(
        &self,
        context: &LaidOut,
        room: usize,
        pre: &mut Block,
        preview_max_scroll: &mut Option<usize>,
    ) {
        let max_scroll = context.len().saturating_sub(room);
        let scroll = if self.question.has_preview() && !self.question.multi_select {
            0
        } else {
            *preview_max_scroll = Some(max_scroll);
            self.state.preview_scroll.min(max_scroll)
        };
        for (line, line_width) in context.rows(scroll, room) {
            pre.push_measured(line.clone(), line_width);
        }
        let below = context.len().saturating_sub(scroll + room);
        pre.push_all(fit_parts(
            &window_line(scroll, below),
            self.width,
            Role::Dim.into(),
        ));
    }

    /// The options with the focused option's preview: beside them in a wide pane, below them
    /// otherwise.
    fn with_preview(
        &self,
        cache: &mut ViewCache,
        options: Block,
        room: Room,
        preview_max_scroll: &mut Option<usize>,
    ) -> Block {
        let focused_option = match self.dialog.focused_row() {
            Some(Row::Option(option_index)) => Some(option_index),
            _ => None,
        };
        if room.side_by_side {
            let box_width = self.width.saturating_sub(room.list_width + 2);
            let preview = preview_box(
                self.dialog,
                cache,
                focused_option,
                box_width,
                room.body_avail.max(options.len().min(room.body_avail)),
                self.measure,
                preview_max_scroll,
            );
            return beside(options, room.list_width, preview);
        }
        let mut body = options;
        body.blank();
        let height = room.body_avail.saturating_sub(body.len()).max(5);
        let preview = preview_box(
            self.dialog,
            cache,
            focused_option,
            self.width,
            height,
            self.measure,
            preview_max_scroll,
        );
        body.append(preview);
        body
    }
}

/// The line under a context shown in a window, `above` and `below` lines of it out of view.
fn window_line(above: usize, below: usize) -> String {
    format!("▾ ▲ {above} ▼ {below} more · PgUp/PgDn scroll · Ctrl+E collapse")
}

/// The rows of the question's options and the rows after them, each row's lines a click target
/// for it, and the focused row the block's focus.
fn option_rows(tab: &Tab, cache: &mut ViewCache, rows: &[Row], width: usize) -> Block {
    let mut out = Block::default();
    let numbers = rows.iter().filter(|row| **row != Row::Next).count();
    let num_width = numbers.to_string().len();
    for (row_index, row) in rows.iter().enumerate() {
        let focused = tab.state.focus == row_index;
        if *row == Row::Chat {
            // A form's field says under its rows why its value does not fit.
            if let Some(misfit) = tab.dialog.shown_misfit(tab.index) {
                let text = format!("  ⚠ {misfit}");
                out.push_all(fit(
                    compact(tab.width),
                    &text,
                    width,
                    4,
                    Role::Warning.into(),
                    usize::MAX,
                ));
            }
            // The rule above `Chat about this` is not part of the row.
            out.push(Line::styled("─".repeat(width.min(48)), Role::Dim));
        }
        let start = out.len();
        let pointer = if focused { "❯ " } else { "  " };
        let number = row_number(rows, row_index)
            .filter(|_| tab.dialog.numbers_rows())
            .map(|n| format!("{n:>num_width$}. "))
            .unwrap_or_default();
        let head = format!("{pointer}{number}");
        match *row {
            Row::Option(option_index) => {
                option_row(tab, cache, option_index, focused, head, width, &mut out);
            }
            Row::Freeform => freeform_row(tab, focused, head, width, &mut out),
            Row::Next => {
                let last_question = tab.index + 1 == tab.dialog.question_count();
                let label = if last_question { "Submit" } else { NEXT_LABEL };
                out.push(Line::styled(
                    format!("{pointer}{label}"),
                    row_style(focused),
                ));
            }
            Row::Chat => {
                let label = if tab.dialog.form().is_some() {
                    DECLINE_LABEL
                } else {
                    CHAT_LABEL
                };
                let indent = text::width(&head);
                let room = width.saturating_sub(indent);
                let label = fit(
                    compact(tab.width),
                    label,
                    room,
                    0,
                    label_style(focused),
                    usize::MAX,
                );
                push_row(
                    Line::styled(head, row_style(focused)),
                    indent,
                    label,
                    &mut out,
                );
            }
        }
        for line in start..out.len() {
            out.hits.push(Hit {
                line,
                cols: 0..width,
                target: Target::Row(row_index),
            });
        }
        if focused {
            out.focus = Some(Focus::rows(start, out.len()));
        }
    }
    out
}

/// An option's row: its label after `head` (the pointer and number), with the box of a
/// multi-select question or the mark of the chosen answer, and its description under it.
fn option_row(
    tab: &Tab,
    cache: &mut ViewCache,
    option_index: usize,
    focused: bool,
    mut head: String,
    width: usize,
    out: &mut Block,
) {
    let multi = tab.question.multi_select;
    let ticked = tab.state.ticks.get(option_index).copied().unwrap_or(false);
    let chosen = !multi && tab.state.choice == Some(Choice::Option(option_index));
    let head_line = row_head(&mut head, focused, multi.then_some(ticked));
    let indent = text::width(&head);
    let label_width = width.saturating_sub(indent + 2).max(1);
    let label = cache.get(
        tab.dialog,
        PayloadText::Label(tab.index, option_index),
        label_width,
    );
    let label_style = if focused {
        accent()
    } else if chosen {
        Style::new(Role::Success)
    } else {
        Style::new(Role::Text)
    };
    let recommended = tab
        .question
        .options
        .get(option_index)
        .is_some_and(|o| o.is_recommended());
    for (label_index, (label_line, _)) in label.iter().enumerate() {
        let mut line = if label_index == 0 {
            head_line.clone()
        } else {
            Line::styled(" ".repeat(indent), Style::default())
        };
        let text = label_line.plain();
        match text.rfind(RECOMMENDED_MARK).filter(|_| recommended) {
            // The mark the agent put on its recommended option stands out (the label, which
            // the envelope returns, is not changed).
            Some(at) => {
                let (before, mark) = text.split_at(at);
                line.push(before, label_style);
                line.push(mark, Style::new(Role::Success).bold());
            }
            None => line.push(text, label_style),
        }
        if chosen && label_index + 1 == label.len() {
            line.push(" ✔", Role::Success);
        }
        out.push(line);
    }
    // The label keeps room for the chosen mark after it; a description in the compact layout
    // takes every cell, so that a narrow pane breaks fewer of its words.
    let description_width = if compact(tab.width) {
        width.saturating_sub(indent).max(1)
    } else {
        label_width
    };
    let description = cache.get(
        tab.dialog,
        PayloadText::Description(tab.index, option_index),
        description_width,
    );
    for (description_line, line_width) in description.iter() {
        let mut line = Line::styled(" ".repeat(indent), Style::default());
        line.spans.extend(description_line.spans.iter().cloned());
        out.push_measured(line, indent + line_width);
    }
}

/// The `Type something.` row: the editor while the user types in it, else the placeholder or
/// the first line of what was typed.
fn freeform_row(tab: &Tab, focused: bool, mut head: String, width: usize, out: &mut Block) {
    let masked;
    let draft = match tab.dialog.form() {
        // A secret is never on screen.
        Some(form) if form.secret(tab.index) => {
            masked = tab.state.draft.masked();
            &masked
        }
        _ => &tab.state.draft,
    };
    let multi = tab.question.multi_select;
    let chosen = !multi && tab.state.choice == Some(Choice::Freeform);
    let head_line = row_head(&mut head, focused, multi.then(|| !draft.is_blank()));
    let indent = text::width(&head);
    let room = width.saturating_sub(indent + 2).max(1);
    let lines = if focused && tab.dialog.mode() == Mode::Typing {
        editor_lines(draft, room, Some(FREEFORM_LABEL))
    } else if draft.is_blank() {
        let room = width.saturating_sub(indent);
        fit(
            compact(tab.width),
            FREEFORM_LABEL,
            room,
            0,
            label_style(focused),
            usize::MAX,
        )
    } else {
        let first = sanitize_line(draft.text().trim());
        let style = if focused {
            accent()
        } else if chosen {
            Role::Success.into()
        } else {
            Role::Text.into()
        };
        let mut shown = fit(compact(tab.width), &first, room, 0, style, MAX_EDITOR_LINES);
        if let Some(last) = shown.last_mut().filter(|_| chosen) {
            last.push(" ✔", Role::Success);
        }
        shown
    };
    push_row(head_line, indent, lines, out);
}

/// A row's `lines` into `out`: the first after `head_line` (its pointer, number and box), the
/// others under it, indented by `indent` cells.
fn push_row(head_line: Line, indent: usize, lines: Vec<Line>, out: &mut Block) {
    let mut head_line = Some(head_line);
    for content in lines {
        let mut line = head_line
            .take()
            .unwrap_or_else(|| Line::styled(" ".repeat(indent), Style::default()));
        line.extend(content);
        out.push(line);
    }
    if let Some(line) = head_line {
        out.push(line);
    }
}

/// The focused row's style.
fn accent() -> Style {
    Style::new(Role::Accent).bold()
}

/// A row's pointer and number: accented when the row has the focus.
fn row_style(focused: bool) -> Style {
    if focused {
        accent()
    } else {
        Role::Text.into()
    }
}

/// The label of a row the payload did not write (`Type something.`, `Chat about this`): muted,
/// or accented when the row has the focus.
fn label_style(focused: bool) -> Style {
    if focused {
        accent()
    } else {
        Role::Muted.into()
    }
}

/// The start of a row: the pointer and number in `head`, and on a multi-select question the
/// box (`ticked` is Some), which `head` then includes so continuation lines indent past it.
fn row_head(head: &mut String, focused: bool, ticked: Option<bool>) -> Line {
    let mut line = Line::styled(head.clone(), row_style(focused));
    if let Some(ticked) = ticked {
        let boxed = if ticked { "[✔] " } else { "[ ] " };
        line.push(
            boxed,
            if ticked || focused {
                Style::new(Role::Success)
            } else {
                Style::new(Role::Muted)
            },
        );
        head.push_str(boxed);
    }
    line
}

/// The focused option's preview in a bordered box of `width` × at most `height` cells; when
/// only its height matters (`measure`), with blank lines in place of the preview's.
fn preview_box(
    dialog: &Dialog,
    cache: &mut ViewCache,
    option: Option<usize>,
    width: usize,
    height: usize,
    measure: bool,
    max_scroll_out: &mut Option<usize>,
) -> Block {
    let mut out = Block::default();
    if width < 8 || height < 3 {
        return out;
    }
    let inner = width - 4;
    let question_index = dialog.tab();
    let has_preview = option
        .and_then(|option_index| {
            dialog
                .questionnaire()
                .questions
                .get(question_index)?
                .options
                .get(option_index)
        })
        .is_some_and(|option| option.preview.is_some());
    let content = match option {
        Some(option_index) if has_preview => cache.get(
            dialog,
            PayloadText::Preview(question_index, option_index),
            inner,
        ),
        _ => Rc::new(LaidOut::new(vec![Line::styled(
            "No preview available",
            Role::Dim,
        )])),
    };
    let visible = (height - 2).min(content.len()).max(1);
    let max_scroll = content.len().saturating_sub(visible);
    *max_scroll_out = Some(max_scroll);
    let scroll = dialog
        .tab_state(question_index)
        .map_or(0, |tab| tab.preview_scroll)
        .min(max_scroll);
    let below = content.len().saturating_sub(scroll + visible);

    if measure {
        for _ in 0..visible + 2 {
            out.blank();
        }
        return out;
    }
    out.push(border(
        '┌',
        '┐',
        width,
        (scroll > 0).then(|| format!("▲ {scroll} more")),
    ));
    for (content_line, line_width) in content.rows(scroll, visible) {
        let mut line = Line {
            spans: Vec::with_capacity(content_line.spans.len() + 3),
        };
        line.push("│ ", Role::Accent);
        // Cached lines already fit the inner width (markdown wraps to it).
        line.spans.extend(content_line.spans.iter().cloned());
        line.push_spaces(inner.saturating_sub(line_width));
        line.push(" │", Role::Accent);
        out.push_measured(line, 4 + line_width.max(inner));
        out.hit(Target::Preview, 0..width);
    }
    out.push(border(
        '└',
        '┘',
        width,
        (below > 0).then(|| format!("▼ {below} more")),
    ));
    out
}

/// A border of the preview box, with a scroll marker in it when there is room.
fn border(left: char, right: char, width: usize, marker: Option<String>) -> Line {
    let mut line = Line::styled(left.to_string(), Role::Accent);
    let inner = width.saturating_sub(2);
    match marker {
        Some(marker) if text::width(&marker) + 4 <= inner => {
            line.push("─ ", Role::Accent);
            let marker_width = text::width(&marker);
            line.push(marker, Role::Dim);
            line.push(
                format!(" {}", "─".repeat(inner - marker_width - 3)),
                Role::Accent,
            );
        }
        _ => line.push("─".repeat(inner), Role::Accent),
    }
    line.push(right.to_string(), Role::Accent);
    line
}
