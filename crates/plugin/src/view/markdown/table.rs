//! Markdown tables: cells laid out in columns that share the width, wrapped within a column.

use super::event::Alignment;

use crate::view::style::{Line, Role, Span, Style};
use crate::view::text;
use crate::view::wrap::wrap_styled;

/// A table as the parser hands it over, row by row.
#[derive(Default)]
pub(super) struct Table {
    pub(super) alignments: Vec<Alignment>,
    /// Rows of cells; the flag marks the header row.
    pub(super) rows: Vec<(bool, Vec<Vec<Span>>)>,
    pub(super) row: Vec<Vec<Span>>,
    pub(super) in_head: bool,
}

impl Table {
    /// The table's lines, each at most `avail` cells wide.
    pub(super) fn lines(self, avail: usize) -> Vec<Line> {
        let columns = self.rows.iter().map(|(_, r)| r.len()).max().unwrap_or(0);
        if columns == 0 {
            return Vec::new();
        }
        let separators = 3 * (columns - 1);
        let sep_style = Style::new(Role::Dim);
        let mut lines = Vec::new();
        if separators + columns > avail {
            // Too many columns to give each a cell: one clipped line per row.
            for (header, row) in &self.rows {
                let mut line = Line::new();
                for (c, cell) in row.iter().enumerate() {
                    if c > 0 {
                        line.push(" │ ", sep_style);
                    }
                    line.spans.extend(cell.iter().cloned());
                }
                line.clip(avail);
                lines.push(line);
                if *header {
                    lines.push(Line::styled("─".repeat(avail), sep_style));
                }
            }
            return lines;
        }
        let widths = column_widths(&self.rows, columns, avail - separators);
        for (header, row) in self.rows {
            let mut row = row.into_iter();
            let mut cells: Vec<Vec<Line>> = widths
                .iter()
                .map(|&w| {
                    let cell = row.next().unwrap_or_default();
                    let cell_w: usize = cell.iter().map(|s| text::width(&s.text)).sum();
                    if cell_w <= w {
                        // Cells hold no newlines (hard breaks become spaces): it fits as is.
                        vec![Line { spans: cell }]
                    } else {
                        wrap_styled(&cell, w, w)
                    }
                })
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            for i in 0..height {
                let mut line = Line::new();
                for (c, (&w, cell)) in widths.iter().zip(&mut cells).enumerate() {
                    if c > 0 {
                        line.push_merged(" │ ", sep_style);
                    }
                    let body = cell.get_mut(i).map(std::mem::take).unwrap_or_default();
                    let fill = w.saturating_sub(body.width());
                    let (left, right) = match self.alignments.get(c) {
                        Some(Alignment::Right) => (fill, 0),
                        Some(Alignment::Center) => (fill / 2, fill - fill / 2),
                        _ => (0, fill),
                    };
                    line.push_spaces(left);
                    line.extend_merged(body);
                    if c + 1 < columns {
                        line.push_spaces(right);
                    }
                }
                lines.push(line);
            }
            if header {
                let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
                lines.push(Line::styled(rule.join("─┼─"), sep_style));
            }
        }
        lines
    }
}

/// Column widths for a table: natural widths, the widest cut down first when they do not fit
/// in `budget` (which allows at least one cell per column).
fn column_widths(rows: &[(bool, Vec<Vec<Span>>)], columns: usize, budget: usize) -> Vec<usize> {
    let mut natural = vec![1usize; columns];
    for (_, row) in rows {
        for (c, cell) in row.iter().enumerate() {
            let w: usize = cell.iter().map(|s| text::width(&s.text)).sum();
            if let Some(n) = natural.get_mut(c) {
                *n = (*n).max(w);
            }
        }
    }
    if natural.iter().sum::<usize>() <= budget {
        return natural;
    }
    // The largest cap with sum(min(natural, cap)) <= budget, by binary search.
    let capped = |cap: usize| natural.iter().map(|&n| n.min(cap)).sum::<usize>();
    let (mut lo, mut hi) = (1usize, natural.iter().copied().max().unwrap_or(1));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if capped(mid) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let mut widths: Vec<usize> = natural.iter().map(|&n| n.min(lo)).collect();
    // Hand the cells left over to the columns that were cut.
    let mut spare = budget.saturating_sub(widths.iter().sum());
    for (w, &n) in widths.iter_mut().zip(&natural) {
        if spare == 0 {
            break;
        }
        if n > *w {
            *w += 1;
            spare -= 1;
        }
    }
    widths
}
