//! Lays the dialog out for a pane size: tab bar, question, options, preview, notes, footer.
//!
//! Everything that depends only on the payload and a width (wrapped question text, option
//! rows, rendered markdown) is computed once and kept in a [`ViewCache`]; a frame then costs
//! in proportion to the cells it shows, whatever the size of the payload.

use super::frame::{Frame, Hit};
use super::markdown;
use super::style::{Line, Role, Style};
use super::text::{self, sanitize, sanitize_line, truncate_ellipsis, wrap};
use crate::dialog::{row_number, Choice, Dialog, Editor, Mode, Row, Target, SUBMIT_CHOICES};
use crate::envelope;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// The smallest pane the dialog is drawn in; below it, a one-line notice.
pub const MIN_WIDTH: usize = 20;
pub const MIN_HEIGHT: usize = 6;
/// From this width on, previews sit beside the options.
pub const SIDE_BY_SIDE_WIDTH: usize = 100;
/// Description lines shown per option.
const MAX_DESCRIPTION_LINES: usize = 4;
/// Lines of an editor shown at once.
const MAX_EDITOR_LINES: usize = 6;

/// What surrounds the dialog: who asks, how many are waiting, and the hide key's name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chrome {
    /// One line above the dialog, e.g. `claude asks · 1 of 3 waiting`.
    pub banner: Option<String>,
    /// The hide key as the footer names it (`Ctrl+]`), or None when hiding is off.
    pub hide_key: Option<String>,
    /// The request just appeared and keys do not count yet: the footer shows `…`.
    pub settling: bool,
}

/// A piece of the payload laid out for one width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Piece {
    Question(usize),
    Context(usize),
    Label(usize, usize),
    Description(usize, usize),
    Preview(usize, usize),
}

/// Laid-out payload text, per request and width.
#[derive(Debug, Default)]
pub struct ViewCache {
    pieces: HashMap<(Piece, usize), Rc<Laid>>,
    pane_width: usize,
}

impl ViewCache {
    pub fn new() -> Self {
        ViewCache::default()
    }

    /// Forgets layouts made for another pane width, so a resized pane does not keep them all.
    fn prepare(&mut self, pane_width: usize) {
        if self.pane_width != pane_width {
            self.pieces.clear();
            self.pane_width = pane_width;
        }
    }

    fn get(&mut self, d: &Dialog, piece: Piece, width: usize) -> Rc<Laid> {
        self.pieces
            .entry((piece, width))
            .or_insert_with(|| Rc::new(Laid::new(lay_out(d, piece, width))))
            .clone()
    }
}

/// Laid-out lines with their widths, each measured the first time it is shown: a long preview
/// is laid out once, but only the lines on screen are ever measured.
#[derive(Debug)]
struct Laid {
    lines: Vec<Line>,
    widths: RefCell<Vec<usize>>,
}

impl Laid {
    fn new(lines: Vec<Line>) -> Self {
        let widths = RefCell::new(vec![UNMEASURED; lines.len()]);
        Laid { lines, widths }
    }
    fn len(&self) -> usize {
        self.lines.len()
    }
    fn width(&self, i: usize) -> usize {
        let mut widths = self.widths.borrow_mut();
        match widths.get_mut(i) {
            Some(w) if *w == UNMEASURED => {
                *w = self.lines.get(i).map_or(0, Line::width);
                *w
            }
            Some(w) => *w,
            None => 0,
        }
    }
    fn iter(&self) -> impl Iterator<Item = (&Line, usize)> {
        self.rows(0, self.len())
    }
    /// Up to `count` lines from `start`, measuring only those.
    fn rows(&self, start: usize, count: usize) -> impl Iterator<Item = (&Line, usize)> {
        let end = start.saturating_add(count).min(self.len());
        let start = start.min(end);
        (start..end).filter_map(move |i| Some((self.lines.get(i)?, self.width(i))))
    }
    fn max_width(&self) -> usize {
        (0..self.len()).map(|i| self.width(i)).max().unwrap_or(0)
    }
}

fn plain_lines(s: &str, width: usize, style: Style) -> Vec<Line> {
    wrap(&sanitize(s), width)
        .into_iter()
        .map(|l| Line::styled(l, style))
        .collect()
}

fn lay_out(d: &Dialog, piece: Piece, width: usize) -> Vec<Line> {
    let questions = &d.questionnaire().questions;
    let option = |q: usize, o: usize| questions.get(q).and_then(|q| q.options.get(o));
    match piece {
        Piece::Question(q) => questions.get(q).map_or_else(Vec::new, |q| {
            plain_lines(&q.question, width, Style::new(Role::Text).bold())
        }),
        Piece::Context(q) => questions
            .get(q)
            .and_then(|q| q.context.as_deref())
            .map_or_else(Vec::new, |c| markdown::render(c, width)),
        Piece::Label(q, o) => option(q, o).map_or_else(Vec::new, |o| {
            plain_lines(&o.label, width, Style::new(Role::Text))
        }),
        Piece::Description(q, o) => option(q, o).map_or_else(Vec::new, |o| {
            let mut lines = plain_lines(&o.description, width, Style::new(Role::Muted));
            if o.description.trim().is_empty() {
                lines.clear();
            }
            if lines.len() > MAX_DESCRIPTION_LINES {
                lines.truncate(MAX_DESCRIPTION_LINES);
                if let Some(last) = lines.last_mut() {
                    let text = format!("{}…", last.plain());
                    *last = Line::styled(
                        truncate_ellipsis(&text, width).into_owned(),
                        Style::new(Role::Muted),
                    );
                }
            }
            lines
        }),
        Piece::Preview(q, o) => option(q, o)
            .and_then(|o| o.preview.as_deref())
            .map_or_else(Vec::new, |p| markdown::render(p, width)),
    }
}

/// Width of a line not measured yet.
const UNMEASURED: usize = usize::MAX;

/// Lines with the clickable regions on them and the lines that must stay visible. Lines copied
/// from the cache keep their measured widths, so a frame does not measure them again.
#[derive(Default)]
struct Block {
    lines: Vec<Line>,
    widths: Vec<usize>,
    hits: Vec<Hit>,
    focus: Option<Focus>,
}

/// The lines of a block to keep in view: the focused row (`start..end`), and the one line of
/// it that must show whatever the pane's height, its `❯` line (`pointer`).
#[derive(Clone, Copy, Debug)]
struct Focus {
    start: usize,
    end: usize,
    pointer: usize,
}

impl Focus {
    /// A focus on `start..end` whose first line is the `❯` line.
    fn rows(start: usize, end: usize) -> Self {
        Focus {
            start,
            end,
            pointer: start,
        }
    }
}

impl Block {
    fn push(&mut self, line: Line) {
        self.lines.push(line);
        self.widths.push(UNMEASURED);
    }
    fn push_measured(&mut self, line: Line, width: usize) {
        self.lines.push(line);
        self.widths.push(width);
    }
    fn blank(&mut self) {
        self.push_measured(Line::new(), 0);
    }
    fn remove_first(&mut self) {
        if !self.lines.is_empty() {
            self.lines.remove(0);
            self.widths.remove(0);
            self.hits.retain(|h| h.line > 0);
            self.hits.iter_mut().for_each(|h| h.line -= 1);
        }
    }
    fn pop(&mut self) {
        self.lines.pop();
        self.widths.pop();
    }
    /// Marks the last line as clickable over `cols`.
    fn hit(&mut self, target: Target, cols: std::ops::Range<usize>) {
        if let Some(line) = self.lines.len().checked_sub(1) {
            self.hits.push(Hit { line, cols, target });
        }
    }
    fn append(&mut self, other: Block) {
        let offset = self.lines.len();
        if let Some(f) = other.focus {
            self.focus = Some(Focus {
                start: f.start + offset,
                end: f.end + offset,
                pointer: f.pointer + offset,
            });
        }
        self.hits.extend(other.hits.into_iter().map(|mut h| {
            h.line += offset;
            h
        }));
        self.lines.extend(other.lines);
        self.widths.extend(other.widths);
    }
    fn len(&self) -> usize {
        self.lines.len()
    }
}

/// Draws the dialog in a pane of `width` × `height` cells.
pub fn render(
    d: &Dialog,
    cache: &mut ViewCache,
    chrome: &Chrome,
    width: usize,
    height: usize,
) -> Frame {
    draw(d, cache, chrome, width, height, true)
}

/// The frame [`render`] draws, laid out for the same pane, but with the question or the review
/// left whole where `render` cuts it to the pane under `↑ N more` / `↓ N more` markers; it may
/// be taller than `height`. It shows what those markers stand for, so a test can check them
/// without repeating the arithmetic that placed them.
#[doc(hidden)]
pub fn render_uncut(
    d: &Dialog,
    cache: &mut ViewCache,
    chrome: &Chrome,
    width: usize,
    height: usize,
) -> Frame {
    draw(d, cache, chrome, width, height, false)
}

/// [`render`], or with `cut` false [`render_uncut`].
fn draw(
    d: &Dialog,
    cache: &mut ViewCache,
    chrome: &Chrome,
    width: usize,
    height: usize,
    cut: bool,
) -> Frame {
    if width < MIN_WIDTH || height < MIN_HEIGHT {
        let notice = format!("Enlarge this pane to at least {MIN_WIDTH}×{MIN_HEIGHT}");
        return Frame {
            width,
            height,
            lines: if width == 0 || height == 0 {
                Vec::new()
            } else {
                vec![Line::styled(
                    truncate_ellipsis(&notice, width).into_owned(),
                    Role::Warning,
                )]
            },
            hits: Vec::new(),
            preview_max_scroll: None,
        };
    }
    cache.prepare(width);

    let mut top = Block::default();
    if let Some(banner) = &chrome.banner {
        top.push(Line::styled(
            truncate_ellipsis(&sanitize_line(banner), width).into_owned(),
            Role::Muted,
        ));
    }
    if d.tab_count() > 1 {
        tab_bar(d, width, &mut top);
    } else if let Some(q) = d.questionnaire().questions.first() {
        let header = format!(" {} ", sanitize_line(&q.header));
        top.push(Line::styled(
            truncate_ellipsis(&header, width).into_owned(),
            Style::new(Role::Selected).bold(),
        ));
    }
    top.blank();

    let mut bottom = Block::default();
    bottom.blank();
    bottom.push(footer(d, chrome, width));

    // Very short panes lose the spacing first, then the banner.
    let mut avail = height.saturating_sub(top.len() + bottom.len());
    if avail < 3 && bottom.len() > 1 {
        bottom.remove_first();
        avail += 1;
    }
    if avail < 3 && top.lines.last().is_some_and(|l| l.spans.is_empty()) {
        top.pop();
        avail += 1;
    }
    if avail < 3 && chrome.banner.is_some() && top.len() > 1 {
        top.remove_first();
        avail += 1;
    }

    let mut preview_max_scroll = None;
    let middle = if d.on_submit_tab() {
        review(d, width)
    } else {
        question_tab(d, cache, width, avail, &mut preview_max_scroll)
    };

    let mut frame = Frame {
        width,
        height,
        lines: Vec::with_capacity(height),
        hits: Vec::new(),
        preview_max_scroll,
    };
    let mut out = top;
    out.append(if cut {
        window(middle, avail, width)
    } else {
        middle
    });
    out.append(bottom);
    for (line, measured) in out.lines.into_iter().zip(out.widths) {
        frame.lines.push(if measured <= width {
            line
        } else {
            fit(line, width)
        });
    }
    if cut {
        frame.lines.truncate(height);
    }
    frame.hits = out.hits;
    frame
}

/// Cuts a line that would overflow, and says how wide it is. Layout keeps lines within the
/// width; this makes the invariant hold even where a computation is off by a cell.
fn fit_measured(line: Line, width: usize) -> (Line, usize) {
    let used = line.width();
    if used <= width {
        return (line, used);
    }
    let mut out = Line::new();
    let mut left = width;
    for span in line.spans {
        if left == 0 {
            break;
        }
        let head = text::truncate(&span.text, left);
        left -= text::width(head);
        out.push(head.to_owned(), span.style);
    }
    (out, width - left)
}

fn fit(line: Line, width: usize) -> Line {
    fit_measured(line, width).0
}

/// Pads a line with spaces to exactly `width` cells (cutting it if longer).
fn pad(line: Line, width: usize) -> Line {
    let (mut line, used) = fit_measured(line, width);
    push_spaces(&mut line, width.saturating_sub(used));
    line
}

/// Appends `n` spaces without building them one by one.
fn push_spaces(line: &mut Line, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut left = n;
    while left > 0 {
        let take = left.min(SPACES.len());
        line.push(&SPACES[..take], Style::default());
        left -= take;
    }
}

/// Shows the part of `block` that fits in `rows`, with a `↑ N more` / `↓ N more` marker in
/// place of the lines cut above / below it, N counting exactly the lines the marker stands for.
/// The focus is kept in view whole when it fits; when it does not, its `❯` line is shown and
/// the rest of it is cut below that line.
fn window(mut block: Block, rows: usize, width: usize) -> Block {
    let total = block.len();
    if total <= rows {
        return block;
    }
    let focus = block
        .focus
        .filter(|f| f.start <= f.pointer && f.pointer < f.end && f.end <= total)
        .unwrap_or(Focus::rows(0, 1));
    let (first, last) = if rows < 3 {
        // No room for a marker on each side and a line between them. Never so in the dialog:
        // from the minimum size up, `render` frees 3 rows by dropping spacing and the banner.
        // The `❯` line wins over the markers.
        let first = focus.pointer.min(total - rows);
        (first, first + rows)
    } else {
        let whole = first_showing(focus.end, total, rows);
        let first = if whole <= focus.start {
            whole
        } else {
            first_showing(focus.pointer + 1, total, rows).max(focus.start)
        };
        (first, shown_end(first, total, rows))
    };
    let above = rows >= 3 && first > 0;
    let below = rows >= 3 && last < total;

    let mut lines = Vec::with_capacity(rows);
    let mut widths = Vec::with_capacity(rows);
    if above {
        lines.push(marker('↑', first, width));
        widths.push(UNMEASURED);
    }
    lines.extend(block.lines.drain(first..last));
    widths.extend(block.widths.drain(first..last));
    if below {
        lines.push(marker('↓', total - last, width));
        widths.push(UNMEASURED);
    }
    let shift = usize::from(above);
    let hits = block
        .hits
        .into_iter()
        .filter(|h| (first..last).contains(&h.line))
        .map(|mut h| {
            h.line = h.line - first + shift;
            h
        })
        .collect();
    Block {
        lines,
        widths,
        hits,
        focus: None,
    }
}

/// The line that says `hidden` lines are cut in the direction of `arrow`.
fn marker(arrow: char, hidden: usize, width: usize) -> Line {
    Line::styled(
        truncate_ellipsis(&format!("{arrow} {hidden} more"), width).into_owned(),
        Role::Dim,
    )
}

/// Where the lines shown end when a block of `total` lines (more than `rows`, at least 3) is
/// shown from line `first` on: a marker takes a row on each side where lines are cut.
fn shown_end(first: usize, total: usize, rows: usize) -> usize {
    let room = rows - usize::from(first > 0);
    if total - first <= room {
        total
    } else {
        first + room - 1
    }
}

/// The first line to show, scrolling as little as possible, so that the shown lines reach down
/// to line `end - 1`; `total` and `rows` as for [`shown_end`]. From the top, lines
/// `0..rows - 1` show; from line `first > 0`, lines `first..first + rows - 2`, or all the rest
/// once they fit in `rows - 1`.
fn first_showing(end: usize, total: usize, rows: usize) -> usize {
    if end < rows {
        0
    } else {
        (end + 2 - rows).min(total + 1 - rows)
    }
}

fn tab_bar(d: &Dialog, width: usize, out: &mut Block) {
    // Each tab: (text, style, target).
    let mut tabs: Vec<(String, Style)> = Vec::with_capacity(d.tab_count());
    for (i, q) in d.questionnaire().questions.iter().enumerate() {
        let answered = d.is_answered(i);
        let noted = d.tab_state(i).is_some_and(|t| !t.note.is_blank());
        let mark = if answered { '■' } else { '□' };
        let star = if noted { '*' } else { ' ' };
        let text = format!(" {mark}{star}{} ", sanitize_line(&q.header));
        let style = if i == d.tab() {
            Style::new(Role::Selected).bold()
        } else if answered {
            Style::new(Role::Success)
        } else {
            Style::new(Role::Muted)
        };
        tabs.push((text, style));
    }
    if d.has_submit_tab() {
        let all = (0..d.question_count()).all(|i| d.is_answered(i));
        let style = if d.on_submit_tab() {
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
    let active = d.tab().min(tabs.len().saturating_sub(1));
    let budget = width.saturating_sub(4); // room for the arrows or ellipses
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
    for (i, (text, style)) in tabs.iter().enumerate().take(last + 1).skip(first) {
        let shown = truncate_ellipsis(text, budget.max(1)).into_owned();
        let w = text::width(&shown);
        hits.push((Target::Tab(i), col..col + w));
        line.push(shown, *style);
        col += w;
    }
    line.push(if last + 1 < tabs.len() { "…" } else { "→" }, Role::Dim);
    out.push(line);
    for (target, cols) in hits {
        out.hit(target, cols);
    }
}

/// The rows of a question tab: options, `Type something.`, `Next`, a rule and `Chat about this`.
fn question_tab(
    d: &Dialog,
    cache: &mut ViewCache,
    width: usize,
    avail: usize,
    preview_max_scroll: &mut Option<usize>,
) -> Block {
    let qi = d.tab();
    let Some(question) = d.questionnaire().questions.get(qi) else {
        return Block::default();
    };
    let Some(state) = d.tab_state(qi) else {
        return Block::default();
    };
    let typing = d.mode() == Mode::Typing;
    let has_preview = !question.multi_select && question.has_preview() && !typing;
    let side_by_side = has_preview && width >= SIDE_BY_SIDE_WIDTH;
    let rows = d.rows(qi);

    let list_width = if side_by_side {
        let longest = (0..question.options.len())
            .map(|o| {
                cache
                    .get(d, Piece::Label(qi, o), usize::MAX / 4)
                    .max_width()
            })
            .max()
            .unwrap_or(0);
        (longest + 7).clamp(30, width / 2)
    } else {
        width
    };

    // Above the options: the question and its context.
    let mut pre = Block::default();
    for (line, w) in cache.get(d, Piece::Question(qi), width).iter() {
        pre.push_measured(line.clone(), w);
    }
    let options = option_rows(d, cache, &rows, list_width);

    // Below the options: the note.
    let mut post = Block::default();
    note_lines(d, &state.note, width, "Notes", &mut post);

    if question.context.is_some() {
        let context = cache.get(d, Piece::Context(qi), width);
        let fits = pre.len() + context.len() + 2 + options.len() + post.len() <= avail;
        let expanded = fits != d.context_expanded();
        if expanded && fits {
            for (line, w) in context.iter() {
                pre.push_measured(line.clone(), w);
            }
        } else if expanded {
            // A context taller than the pane gets the room the options leave, and scrolls
            // with PgUp/PgDn when the question has no preview to scroll.
            let room = avail
                .saturating_sub(pre.len() + 2 + options.len() + post.len() + 1)
                .max(3);
            let max_scroll = context.len().saturating_sub(room);
            let scroll = if question.has_preview() && !question.multi_select {
                0
            } else {
                *preview_max_scroll = Some(max_scroll);
                state.preview_scroll.min(max_scroll)
            };
            for (line, w) in context.rows(scroll, room) {
                pre.push_measured(line.clone(), w);
            }
            let below = context.len().saturating_sub(scroll + room);
            let text = format!("▾ ▲ {scroll} ▼ {below} more · PgUp/PgDn scroll · Ctrl+E collapse");
            pre.push(Line::styled(
                truncate_ellipsis(&text, width).into_owned(),
                Role::Dim,
            ));
        } else {
            let text = format!("▸ Context ({} lines) · Ctrl+E to expand", context.len());
            pre.push(Line::styled(
                truncate_ellipsis(&text, width).into_owned(),
                Role::Muted,
            ));
        }
    }
    pre.blank();

    let body_avail = avail.saturating_sub(pre.len() + post.len()).max(3);
    let focused_option = match d.focused_row() {
        Some(Row::Option(o)) => Some(o),
        _ => None,
    };
    let body = if side_by_side {
        let box_width = width.saturating_sub(list_width + 2);
        let preview = preview_box(
            d,
            cache,
            focused_option,
            box_width,
            body_avail.max(options.len().min(body_avail)),
            preview_max_scroll,
        );
        beside(options, list_width, preview)
    } else if has_preview {
        let mut body = options;
        body.blank();
        let room = body_avail.saturating_sub(body.len()).max(5);
        let preview = preview_box(d, cache, focused_option, width, room, preview_max_scroll);
        body.append(preview);
        body
    } else {
        options
    };

    let mut out = pre;
    out.append(body);
    out.append(post);
    out
}

/// Puts `right` beside `left` (padded to `left_width`), two cells apart.
fn beside(left: Block, left_width: usize, right: Block) -> Block {
    let rows = left.len().max(right.len());
    let mut out = Block {
        focus: left.focus,
        ..Block::default()
    };
    let mut left_lines = left.lines.into_iter().zip(left.widths);
    let mut right_lines = right.lines.into_iter().zip(right.widths);
    for _ in 0..rows {
        let (l, lw) = left_lines.next().unwrap_or_default();
        let mut line = if lw <= left_width + 2 {
            let mut l = l;
            push_spaces(&mut l, left_width + 2 - lw);
            l
        } else {
            pad(l, left_width + 2)
        };
        let mut width = left_width + 2;
        if let Some((r, rw)) = right_lines.next() {
            line.extend(r);
            width = width.saturating_add(rw);
        }
        out.push_measured(line, width);
    }
    out.hits = left.hits;
    out.hits.extend(right.hits.into_iter().map(|mut h| {
        h.cols = h.cols.start + left_width + 2..h.cols.end + left_width + 2;
        h
    }));
    out
}

fn option_rows(d: &Dialog, cache: &mut ViewCache, rows: &[Row], width: usize) -> Block {
    let qi = d.tab();
    let mut out = Block::default();
    let Some(question) = d.questionnaire().questions.get(qi) else {
        return out;
    };
    let Some(state) = d.tab_state(qi) else {
        return out;
    };
    let multi = question.multi_select;
    let numbers = rows.iter().filter(|r| **r != Row::Next).count();
    let num_width = numbers.to_string().len();
    let last_question = qi + 1 == d.question_count();

    for (index, row) in rows.iter().enumerate() {
        let focused = state.focus == index;
        let start = out.len();
        let pointer = if focused { "❯ " } else { "  " };
        let number = row_number(rows, index)
            .map(|n| format!("{n:>num_width$}. "))
            .unwrap_or_default();
        let mut head = format!("{pointer}{number}");
        let accent = Style::new(Role::Accent).bold();
        match row {
            Row::Option(o) => {
                let ticked = state.ticks.get(*o).copied().unwrap_or(false);
                let chosen = !multi && state.choice == Some(Choice::Option(*o));
                let head_line = row_head(&mut head, focused, multi.then_some(ticked));
                let indent = text::width(&head);
                let label_width = width.saturating_sub(indent + 2).max(1);
                let label = cache.get(d, Piece::Label(qi, *o), label_width);
                let label_style = if focused {
                    accent
                } else if chosen {
                    Style::new(Role::Success)
                } else {
                    Style::new(Role::Text)
                };
                for (i, (l, _)) in label.iter().enumerate() {
                    let mut line = if i == 0 {
                        head_line.clone()
                    } else {
                        Line::styled(" ".repeat(indent), Style::default())
                    };
                    line.push(l.plain(), label_style);
                    if chosen && i + 1 == label.len() {
                        line.push(" ✔", Role::Success);
                    }
                    out.push(line);
                }
                let description = cache.get(d, Piece::Description(qi, *o), label_width);
                for (l, w) in description.iter() {
                    let mut line = Line::styled(" ".repeat(indent), Style::default());
                    line.spans.extend(l.spans.iter().cloned());
                    out.push_measured(line, indent + w);
                }
            }
            Row::Freeform => {
                let draft = &state.draft;
                let chosen = !multi && state.choice == Some(Choice::Freeform);
                let mut head_line = row_head(&mut head, focused, multi.then(|| !draft.is_blank()));
                let indent = text::width(&head);
                let room = width.saturating_sub(indent + 2).max(1);
                if focused && d.mode() == Mode::Typing {
                    let lines = editor_lines(draft, room, Some("Type something."));
                    for (i, l) in lines.into_iter().enumerate() {
                        let mut line = if i == 0 {
                            head_line.clone()
                        } else {
                            Line::styled(" ".repeat(indent), Style::default())
                        };
                        line.extend(l);
                        out.push(line);
                    }
                } else if draft.is_blank() {
                    head_line.push(
                        "Type something.",
                        if focused { accent } else { Role::Muted.into() },
                    );
                    out.push(head_line);
                } else {
                    let first = sanitize_line(draft.text().trim());
                    head_line.push(
                        truncate_ellipsis(&first, room).into_owned(),
                        if focused {
                            accent
                        } else if chosen {
                            Role::Success.into()
                        } else {
                            Role::Text.into()
                        },
                    );
                    if chosen {
                        head_line.push(" ✔", Role::Success);
                    }
                    out.push(head_line);
                }
            }
            Row::Next => {
                let label = if last_question { "Submit" } else { "Next" };
                out.push(Line::styled(
                    format!("{pointer}{label}"),
                    if focused { accent } else { Role::Text.into() },
                ));
            }
            Row::Chat => {
                out.push(Line::styled("─".repeat(width.min(48)), Role::Dim));
                let mut line = Line::styled(
                    head.clone(),
                    if focused { accent } else { Role::Text.into() },
                );
                line.push(
                    "Chat about this",
                    if focused { accent } else { Role::Muted.into() },
                );
                out.push(line);
                // The rule is not part of the row.
                let end = out.len();
                out.hits.push(Hit {
                    line: end - 1,
                    cols: 0..width,
                    target: Target::Row(index),
                });
                if focused {
                    out.focus = Some(Focus::rows(end - 1, end));
                }
                continue;
            }
        }
        let end = out.len();
        for line in start..end {
            out.hits.push(Hit {
                line,
                cols: 0..width,
                target: Target::Row(index),
            });
        }
        if focused {
            out.focus = Some(Focus::rows(start, end));
        }
    }
    out
}

/// The start of a row: the pointer and number in `head`, and on a multi-select question the
/// box (`ticked` is Some), which `head` then includes so continuation lines indent past it.
fn row_head(head: &mut String, focused: bool, ticked: Option<bool>) -> Line {
    let accent = Style::new(Role::Accent).bold();
    let mut line = Line::styled(
        head.clone(),
        if focused { accent } else { Role::Text.into() },
    );
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

/// The focused option's preview in a bordered box of `width` × at most `height` cells.
fn preview_box(
    d: &Dialog,
    cache: &mut ViewCache,
    option: Option<usize>,
    width: usize,
    height: usize,
    max_scroll_out: &mut Option<usize>,
) -> Block {
    let mut out = Block::default();
    if width < 8 || height < 3 {
        return out;
    }
    let inner = width - 4;
    let qi = d.tab();
    let has = option
        .and_then(|o| d.questionnaire().questions.get(qi)?.options.get(o))
        .is_some_and(|o| o.preview.is_some());
    let content = match option {
        Some(o) if has => cache.get(d, Piece::Preview(qi, o), inner),
        _ => Rc::new(Laid::new(vec![Line::styled(
            "No preview available",
            Role::Dim,
        )])),
    };
    let visible = (height - 2).min(content.len()).max(1);
    let max_scroll = content.len().saturating_sub(visible);
    *max_scroll_out = Some(max_scroll);
    let scroll = d
        .tab_state(qi)
        .map_or(0, |t| t.preview_scroll)
        .min(max_scroll);
    let below = content.len().saturating_sub(scroll + visible);

    out.push(border(
        '┌',
        '┐',
        width,
        (scroll > 0).then(|| format!("▲ {scroll} more")),
    ));
    for (line, w) in content.rows(scroll, visible) {
        let mut l = Line {
            spans: Vec::with_capacity(line.spans.len() + 3),
        };
        l.push("│ ", Role::Accent);
        // Cached lines already fit the inner width (markdown wraps to it).
        l.spans.extend(line.spans.iter().cloned());
        push_spaces(&mut l, inner.saturating_sub(w));
        l.push(" │", Role::Accent);
        out.push_measured(l, 4 + w.max(inner));
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

fn border(left: char, right: char, width: usize, marker: Option<String>) -> Line {
    let mut line = Line::styled(left.to_string(), Role::Accent);
    let inner = width.saturating_sub(2);
    match marker {
        Some(m) if text::width(&m) + 4 <= inner => {
            line.push("─ ", Role::Accent);
            let w = text::width(&m);
            line.push(m, Role::Dim);
            line.push(format!(" {}", "─".repeat(inner - w - 3)), Role::Accent);
        }
        _ => line.push("─".repeat(inner), Role::Accent),
    }
    line.push(right.to_string(), Role::Accent);
    line
}

/// An editor's text wrapped at `width` cells, with the cursor as a reversed cell; at most
/// `MAX_EDITOR_LINES` lines, around the cursor.
fn editor_lines(editor: &Editor, width: usize, placeholder: Option<&str>) -> Vec<Line> {
    let text = editor.text();
    let cursor_style = Style::new(Role::Text).reverse();
    if text.is_empty() {
        let mut line = Line::styled(" ", cursor_style);
        if let Some(p) = placeholder {
            line.push(
                text::truncate(p, width.saturating_sub(1)).to_owned(),
                Role::Dim,
            );
        }
        return vec![line];
    }
    // Hard-wrap by cells so the cursor's place is exact.
    let mut lines: Vec<Line> = vec![Line::new()];
    let mut current = String::new();
    let mut col = 0usize;
    let mut cursor_line = 0usize;
    let flush = |lines: &mut Vec<Line>, current: &mut String| {
        if let Some(last) = lines.last_mut() {
            last.push(std::mem::take(current), Style::default());
        }
    };
    let mut chars = text.char_indices().peekable();
    loop {
        let at_cursor = chars.peek().map_or(text.len(), |(i, _)| *i) == editor.cursor();
        let next = chars.next();
        if at_cursor {
            flush(&mut lines, &mut current);
            cursor_line = lines.len() - 1;
            let shown = match next {
                Some((_, c)) if c != '\n' && c != '\t' => c.to_string(),
                _ => " ".to_owned(),
            };
            let w = text::width(&shown).max(1);
            if col + w > width {
                lines.push(Line::new());
                col = 0;
                cursor_line += 1;
            }
            if let Some(last) = lines.last_mut() {
                last.push(sanitize(&shown), cursor_style);
            }
            col += w;
            match next {
                Some((_, '\n')) => {
                    lines.push(Line::new());
                    col = 0;
                }
                None => break,
                _ => {}
            }
            continue;
        }
        let Some((_, c)) = next else {
            break;
        };
        if c == '\n' {
            flush(&mut lines, &mut current);
            lines.push(Line::new());
            col = 0;
            continue;
        }
        let shown = if c == '\t' { ' ' } else { c };
        if shown.is_control() {
            continue;
        }
        let w = text::char_width(shown);
        if col + w > width {
            flush(&mut lines, &mut current);
            lines.push(Line::new());
            col = 0;
        }
        if w <= width {
            current.push(shown);
            col += w;
        }
    }
    flush(&mut lines, &mut current);
    if lines.len() > MAX_EDITOR_LINES {
        let start = cursor_line
            .saturating_sub(MAX_EDITOR_LINES - 1)
            .min(lines.len() - MAX_EDITOR_LINES);
        lines.drain(..start);
        lines.truncate(MAX_EDITOR_LINES);
    }
    lines
}

/// The note under a question (or the global note on the Submit tab): the editor while it is
/// open, else a one-line reminder of what was written.
fn note_lines(d: &Dialog, note: &Editor, width: usize, title: &str, out: &mut Block) {
    if d.mode() == Mode::Note {
        out.blank();
        out.push(Line::styled(format!("{title}:"), Role::Muted));
        for line in editor_lines(note, width.saturating_sub(2).max(1), None) {
            let mut l = Line::styled("  ", Style::default());
            l.extend(line);
            out.push(l);
        }
    } else if !note.is_blank() {
        out.blank();
        let text = format!(
            "{}: {}",
            title.to_lowercase(),
            sanitize_line(note.text().trim())
        );
        out.push(Line::styled(
            truncate_ellipsis(&text, width).into_owned(),
            Role::Dim,
        ));
    }
}

/// The Submit tab: every question with its answer and notes, a warning naming the unanswered
/// ones, and the two choices.
fn review(d: &Dialog, width: usize) -> Block {
    let mut out = Block::default();
    out.push(Line::styled(
        "Review your answers",
        Style::new(Role::Accent).bold(),
    ));
    out.blank();
    let q = d.questionnaire();
    let answer_width = width.saturating_sub(5).max(1);
    let mut unanswered = Vec::new();
    for (i, question) in q.questions.iter().enumerate() {
        let header = sanitize_line(&question.header);
        match d.answer(i) {
            Some(answer) => {
                out.push(Line::styled(
                    truncate_ellipsis(&format!(" ● {header}"), width).into_owned(),
                    Role::Success,
                ));
                let text = sanitize(&envelope::answer_text(q, i, &answer));
                for (n, line) in wrap(&text, answer_width).into_iter().take(3).enumerate() {
                    let lead = if n == 0 { "   → " } else { "     " };
                    let mut l = Line::styled(lead, Role::Muted);
                    l.push(line, Role::Text);
                    out.push(l);
                }
            }
            None => {
                unanswered.push(header.clone());
                out.push(Line::styled(
                    truncate_ellipsis(&format!(" ○ {header}"), width).into_owned(),
                    Role::Muted,
                ));
                out.push(Line::styled("   → not answered", Role::Dim));
            }
        }
        if let Some(note) = d.tab_state(i).map(|t| &t.note).filter(|n| !n.is_blank()) {
            let text = format!("     notes: {}", sanitize_line(note.text().trim()));
            out.push(Line::styled(
                truncate_ellipsis(&text, width).into_owned(),
                Role::Dim,
            ));
        }
    }
    if !d.global_note().is_blank() && d.mode() != Mode::Note {
        out.push(Line::styled(" ● Note", Role::Success));
        let text = format!("   → {}", sanitize_line(d.global_note().text().trim()));
        out.push(Line::styled(
            truncate_ellipsis(&text, width).into_owned(),
            Role::Text,
        ));
    }
    out.blank();
    if unanswered.is_empty() {
        out.push(Line::styled("Ready to submit your answers?", Role::Muted));
    } else {
        let text = format!(
            "⚠ Not answered: {} (you can still submit)",
            unanswered.join(", ")
        );
        for line in wrap(&text, width) {
            out.push(Line::styled(line, Role::Warning));
        }
    }
    out.blank();
    let start = out.len();
    for (i, choice) in SUBMIT_CHOICES.iter().enumerate() {
        let focused = d.submit_focus() == i;
        let text = format!("{}{}. {choice}", if focused { "❯ " } else { "  " }, i + 1);
        out.push(Line::styled(
            text,
            if focused {
                Style::new(Role::Accent).bold()
            } else {
                Style::new(Role::Text)
            },
        ));
        out.hit(Target::SubmitChoice(i), 0..width);
    }
    let pointer = (start + d.submit_focus()).min(out.len().saturating_sub(1));
    out.focus = Some(Focus {
        start,
        end: out.len(),
        pointer,
    });
    let mut note = Block::default();
    note_lines(d, d.global_note(), width, "Global note", &mut note);
    if d.mode() == Mode::Note {
        out.append(note);
        // While typing the note, keep it in view.
        out.focus = Some(Focus {
            start,
            end: out.len(),
            pointer,
        });
    }
    out
}

/// The one hint line of the current mode, with the countdown first.
fn footer(d: &Dialog, chrome: &Chrome, width: usize) -> Line {
    let mut line = Line::new();
    let mut used = 0usize;
    if let Some(c) = d.countdown() {
        let secs = c.remaining_ms.div_ceil(1000);
        let text = format!("⏱ {}:{:02} · ", secs / 60, secs % 60);
        used += text::width(&text);
        line.push(text, Style::new(Role::Warning).bold());
    }
    if chrome.settling {
        line.push("…", Role::Dim);
        return line;
    }
    if d.esc_armed() {
        let text = "Press Esc again to discard your answers · any other key keeps them";
        line.push(
            truncate_ellipsis(text, width.saturating_sub(used)).into_owned(),
            Role::Warning,
        );
        return line;
    }
    let mut parts: Vec<&str> = Vec::with_capacity(10);
    let multi_tab = d.tab_count() > 1;
    let question = d.questionnaire().questions.get(d.tab());
    match d.mode() {
        Mode::Note => {
            parts.extend([
                "Enter save note",
                "Alt+Enter newline",
                "Ctrl+U clear",
                "Esc close",
            ]);
        }
        Mode::Typing => {
            let multi = question.is_some_and(|q| q.multi_select);
            parts.push(if multi || d.has_submit_tab() {
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
            if question.is_some_and(|q| q.multi_select) {
                parts.push("Space toggle");
            }
            let noted = d
                .tab_state(d.tab())
                .map_or(!d.global_note().is_blank(), |t| !t.note.is_blank());
            parts.push(match (d.on_submit_tab(), noted) {
                (_, false) => "n note",
                (_, true) => "n edit note",
            });
            if question.is_some_and(|q| q.has_preview() && !q.multi_select) {
                parts.push("PgUp/PgDn scroll");
            }
            if multi_tab {
                parts.push("Tab switch");
            }
            parts.push("Esc cancel");
        }
    }
    let hide = chrome.hide_key.as_ref().map(|k| format!("{k} hide"));
    if d.mode() == Mode::Browse {
        if let Some(h) = hide.as_deref() {
            parts.push(h);
        }
    }
    let text = parts.join(" · ");
    line.push(
        truncate_ellipsis(&text, width.saturating_sub(used)).into_owned(),
        Role::Dim,
    );
    line
}
