//! Blocks of lines on their way into a frame, and the window that cuts a tall block to the
//! pane under `↑ N more` / `↓ N more` markers.

use crate::dialog::Target;
use crate::view::frame::Hit;
use crate::view::style::{Line, Role};
use crate::view::text::truncate_ellipsis;

/// Lines with the clickable regions on them and the lines that must stay visible. Each line
/// carries its width once it is known: lines copied from the cache keep theirs, so a frame
/// does not measure them again.
#[derive(Default)]
pub(super) struct Block {
    pub(super) lines: Vec<(Line, Option<usize>)>,
    pub(super) hits: Vec<Hit>,
    pub(super) focus: Option<Focus>,
}

/// The lines of a block to keep in view: the focused row (`start..end`), and the one line of
/// it that must show whatever the pane's height, its `❯` line (`pointer`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Focus {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) pointer: usize,
}

impl Focus {
    /// A focus on `start..end` whose first line is the `❯` line.
    pub(super) fn rows(start: usize, end: usize) -> Self {
        Focus {
            start,
            end,
            pointer: start,
        }
    }
}

impl Block {
    pub(super) fn push(&mut self, line: Line) {
        self.lines.push((line, None));
    }
    pub(super) fn push_measured(&mut self, line: Line, width: usize) {
        self.lines.push((line, Some(width)));
    }
    pub(super) fn blank(&mut self) {
        self.push_measured(Line::new(), 0);
    }
    pub(super) fn push_all(&mut self, lines: Vec<Line>) {
        self.lines
            .extend(lines.into_iter().map(|line| (line, None)));
    }
    /// Keeps only lines `kept`, with their click targets; the focus, shifted with them.
    pub(super) fn keep(&mut self, kept: std::ops::Range<usize>) {
        let kept = kept.start.min(kept.end)..kept.end.min(self.lines.len());
        let mut line = 0;
        self.lines.retain(|_| {
            line += 1;
            kept.contains(&(line - 1))
        });
        self.hits.retain(|h| kept.contains(&h.line));
        self.hits.iter_mut().for_each(|h| h.line -= kept.start);
        if let Some(focus) = &mut self.focus {
            focus.start = focus.start.saturating_sub(kept.start);
            focus.end = focus.end.saturating_sub(kept.start);
            focus.pointer = focus.pointer.saturating_sub(kept.start);
        }
    }
    /// Marks the last line as clickable over `cols`.
    pub(super) fn hit(&mut self, target: Target, cols: std::ops::Range<usize>) {
        if let Some(line) = self.lines.len().checked_sub(1) {
            self.hits.push(Hit { line, cols, target });
        }
    }
    pub(super) fn append(&mut self, other: Block) {
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
    }
    pub(super) fn len(&self) -> usize {
        self.lines.len()
    }
}

/// Puts `right` beside `left` (padded to `left_width`), two cells apart.
pub(super) fn beside(left: Block, left_width: usize, right: Block) -> Block {
    let rows = left.len().max(right.len());
    let mut out = Block {
        focus: left.focus,
        ..Block::default()
    };
    let gutter = left_width + 2;
    let mut left_lines = left.lines.into_iter();
    let mut right_lines = right.lines.into_iter();
    for _ in 0..rows {
        let (mut line, left_measured) = left_lines.next().unwrap_or((Line::new(), Some(0)));
        match left_measured {
            Some(w) if w <= gutter => line.push_spaces(gutter - w),
            _ => line.pad(gutter),
        }
        let mut width = Some(gutter);
        if let Some((right_line, right_measured)) = right_lines.next() {
            line.extend(right_line);
            width = right_measured.map(|w| gutter.saturating_add(w));
        }
        match width {
            Some(w) => out.push_measured(line, w),
            None => out.push(line),
        }
    }
    out.hits = left.hits;
    out.hits.extend(right.hits.into_iter().map(|mut h| {
        h.cols = h.cols.start + gutter..h.cols.end + gutter;
        h
    }));
    out
}

/// Shows the part of `block` that fits in `rows`, with a `↑ N more` / `↓ N more` marker in
/// place of the lines cut above / below it, N counting exactly the lines the marker stands for.
/// The focus is kept in view whole when it fits; when it does not, its `❯` line is shown and
/// the rest of it is cut below that line.
pub(super) fn window(mut block: Block, rows: usize, width: usize) -> Block {
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
    if above {
        lines.push((marker('↑', first, width), None));
    }
    lines.extend(block.lines.drain(first..last));
    if below {
        lines.push((marker('↓', total - last, width), None));
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
