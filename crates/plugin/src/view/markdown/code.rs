//! Markdown code blocks: each source line on its own line, indented and hard-wrapped, since
//! word-wrapping would change what the code says.

use crate::view::style::{Line, Role};
use crate::view::text::{self, char_width, push_sanitized};

const CODE_INDENT: usize = 2;

/// The lines of a code block, at most `max` of them; the first gets `first_width` cells, the
/// others `rest_width`.
pub(super) fn lines(code: &str, first_width: usize, rest_width: usize, max: usize) -> Vec<Line> {
    let indent_for = |w: usize| if w > CODE_INDENT * 2 { CODE_INDENT } else { 0 };
    let mut lines = Vec::new();
    let mut clean = String::new();
    for source in code.strip_suffix('\n').unwrap_or(code).split('\n') {
        if lines.len() >= max {
            break;
        }
        clean.clear();
        push_sanitized(&mut clean, source, true);
        if clean.is_empty() {
            lines.push(Line::new());
            continue;
        }
        let mut rest = clean.as_str();
        while !rest.is_empty() && lines.len() < max {
            let avail = if lines.is_empty() {
                first_width
            } else {
                rest_width
            };
            let indent = indent_for(avail);
            // The indent is part of the code span: a themed code background then shows
            // as a block.
            let mut chunk = String::with_capacity(avail.min(rest.len() + indent));
            chunk.extend(std::iter::repeat_n(' ', indent));
            rest = hard_split_into(&mut chunk, rest, avail - indent);
            lines.push(Line::styled(chunk, Role::Code));
        }
    }
    lines
}

/// Appends to `out` the longest prefix of `s` that fits in `max` (at least 1) cells and
/// returns the rest; a character too wide to fit on its own becomes `?`.
fn hard_split_into<'s>(out: &mut String, s: &'s str, max: usize) -> &'s str {
    let max = max.max(1);
    let head = text::truncate(s, max);
    if !head.is_empty() || s.is_empty() {
        out.push_str(head);
        return s.get(head.len()..).unwrap_or("");
    }
    // The first character alone is wider than the line.
    let first_len = s.chars().next().map_or(0, char::len_utf8);
    let tail = s.get(first_len..).unwrap_or("");
    // Zero-width characters that belonged to it go with it.
    let zero = tail
        .char_indices()
        .find(|&(_, c)| char_width(c) > 0)
        .map_or(tail.len(), |(i, _)| i);
    out.push('?');
    out.push_str(tail.get(..zero).unwrap_or(""));
    tail.get(zero..).unwrap_or("")
}
