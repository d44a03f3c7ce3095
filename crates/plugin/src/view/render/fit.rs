//! Text on lines of the pane's width. In the usual layout a line that does not fit is cut with
//! `…`; in the compact one (a pane narrower than [`COMPACT_WIDTH`], a phone's) nothing is cut
//! at the right: text wraps, and a line of hints (`Enter select · ↑/↓ move`) breaks between
//! them, each hint whole.

use super::COMPACT_WIDTH;
use crate::view::style::{Line, Role, Span, Style};
use crate::view::text::{self, truncate_ellipsis};
use crate::view::wrap::{wrap, wrap_styled};

/// Whether a pane `width` cells wide gets the compact layout.
pub(super) fn compact(width: usize) -> bool {
    width < COMPACT_WIDTH
}

/// `text` in `style`, on one line when it fits in `width` cells. When it does not: cut with
/// `…` in the usual layout; in the `compact` one (the pane's, which may be wider than `width`)
/// wrapped, the lines after the first indented by `indent` cells, at most `max_lines` of them
/// (the last then ends with `…`: the text goes on below).
pub(super) fn fit(
    compact: bool,
    text: &str,
    width: usize,
    indent: usize,
    style: Style,
    max_lines: usize,
) -> Vec<Line> {
    if text::width(text) <= width || !compact {
        return vec![Line::styled(
            truncate_ellipsis(text, width).into_owned(),
            style,
        )];
    }
    let span = Span {
        text: text.to_owned(),
        style,
    };
    let mut lines = wrap_styled(&[span], width, width.saturating_sub(indent));
    for line in lines.iter_mut().skip(1) {
        line.spans.insert(
            0,
            Span {
                text: " ".repeat(indent),
                style: Style::default(),
            },
        );
    }
    if lines.len() > max_lines {
        lines.truncate(max_lines);
        if let Some(last) = lines.last_mut() {
            end_with_ellipsis(last, width);
        }
    }
    lines
}

/// A line of parts separated by ` · ` (a banner, a line of hints) in `style`: cut with `…` in
/// the usual layout, broken between the parts in the compact one.
pub(super) fn fit_parts(text: &str, width: usize, style: Style) -> Vec<Line> {
    if compact(width) {
        let parts: Vec<(&str, Style)> = text.split('·').map(|part| (part.trim(), style)).collect();
        pack(&parts, width, usize::MAX)
    } else {
        vec![Line::styled(
            truncate_ellipsis(text, width).into_owned(),
            style,
        )]
    }
}

/// `parts` one after the other with ` · ` between them (in the style of the part before it),
/// on lines of at most `width` cells: each part whole on a line, or wrapped onto lines of its
/// own when wider than one. At most `max_lines` lines: the part that would need more is left
/// out, and every part after it.
pub(super) fn pack(parts: &[(&str, Style)], width: usize, max_lines: usize) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut used = 0usize;
    let mut before = Style::default();
    for &(part, style) in parts {
        let part_width = text::width(part);
        match lines.last_mut() {
            Some(line) if used + 3 + part_width <= width => {
                line.push_merged(" · ", before);
                line.push_merged(part, style);
                used += 3 + part_width;
            }
            _ => {
                let pieces = wrap(part, width);
                if lines.len() + pieces.len() > max_lines {
                    break;
                }
                for piece in pieces {
                    used = text::width(&piece);
                    lines.push(Line::styled(piece, style));
                }
            }
        }
        before = style;
    }
    lines
}

/// `line` cut to `width` cells with `…` at its end, in the style of the text before it.
pub(super) fn end_with_ellipsis(line: &mut Line, width: usize) {
    line.clip(width.saturating_sub(1));
    line.trim_end();
    let style = line
        .spans
        .last()
        .map_or(Role::Dim.into(), |span| span.style);
    line.push_merged("…", style);
}
