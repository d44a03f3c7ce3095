//! What a markdown line can start where its containers' markers end: a block quote, an ATX
//! heading, a code fence, an HTML block, a setext underline, a GFM table's delimiter row, a
//! thematic break, a list item or an indented code block, tried in CommonMark's order.

use super::blocks::{is_blank, trim_blanks, trim_end_blanks, Kind, Parser, Start, MAX_OPEN};
use super::event::Alignment;
use super::scan;

impl Parser<'_> {
    /// Starts what the line starts at its first non-space character, if anything; `container`
    /// is the innermost block the line continues (or the one it just started).
    pub(super) fn start(&mut self, container: usize) -> Start {
        if self.blank {
            return Start::None;
        }
        if self.indent >= 4 {
            return self.indented_code();
        }
        let first = self.peek(self.nonspace);
        let paragraph = matches!(self.kind(container), Kind::Paragraph);
        let start = match first {
            b'>' => self.quote(),
            b'#' => self.heading(),
            b'`' | b'~' => self.fence(),
            b'<' => self.html(paragraph),
            _ => Start::None,
        };
        if !matches!(start, Start::None) {
            return start;
        }
        if paragraph {
            let start = self.underline();
            if !matches!(start, Start::None) {
                return start;
            }
            let start = self.table(container);
            if !matches!(start, Start::None) {
                return start;
            }
        }
        if matches!(first, b'*' | b'-' | b'_') {
            let start = self.rule();
            if !matches!(start, Start::None) {
                return start;
            }
        }
        self.list_item(paragraph)
    }

    fn quote(&mut self) -> Start {
        if self.depth() + 1 > MAX_OPEN {
            return Start::None;
        }
        self.skip_to_nonspace();
        self.advance_bytes(1);
        if matches!(self.peek(self.offset), b' ' | b'\t') {
            self.advance_columns(1);
        }
        self.close_unmatched();
        self.add_child(Kind::Quote);
        Start::Container
    }

    /// `#` to `######` and a space or the line's end; closing `#`s after a space are dropped.
    fn heading(&mut self) -> Start {
        let rest = self.rest();
        let level = rest.bytes().take_while(|&b| b == b'#').count();
        let after = rest.get(level..).unwrap_or("");
        if level > 6 || !after.bytes().next().is_none_or(is_blank) {
            return Start::None;
        }
        let mut content = trim_blanks(after);
        let unclosed = content.trim_end_matches('#');
        if unclosed.len() < content.len() && unclosed.bytes().next_back().is_none_or(is_blank) {
            content = trim_end_blanks(unclosed);
        }
        let range = self.range_of(content);
        self.close_unmatched();
        let id = self.add_child(Kind::Heading(level as u8));
        self.leaf_line(id, range);
        self.close_tip();
        Start::Done
    }

    /// Three or more backticks (with none in the info string after them) or tildes.
    fn fence(&mut self) -> Start {
        let rest = self.rest();
        let fence = self.peek(self.nonspace);
        let len = rest.bytes().take_while(|&b| b == fence).count();
        if len < 3 || (fence == b'`' && rest.get(len..).is_some_and(|info| info.contains('`'))) {
            return Start::None;
        }
        let indent = self.indent;
        self.close_unmatched();
        self.add_child(Kind::Code { fence, len, indent });
        Start::Done
    }

    /// An HTML block; a lone tag (CommonMark's seventh kind) cannot interrupt a paragraph,
    /// not even a lazy one.
    fn html(&mut self, paragraph: bool) -> Start {
        let lazy = !self.all_closed && matches!(self.kind(self.tip()), Kind::Paragraph);
        let Some(end) = scan::html_block(self.rest(), !paragraph && !lazy) else {
            return Start::None;
        };
        self.close_unmatched();
        self.add_child(Kind::Html { end });
        Start::Leaf
    }

    /// `===` or `---` under a paragraph makes it a heading.
    fn underline(&mut self) -> Start {
        let rest = trim_end_blanks(self.rest());
        let (level, mark) = match rest.as_bytes().first() {
            Some(b'=') => (1, b'='),
            Some(b'-') => (2, b'-'),
            _ => return Start::None,
        };
        if !rest.bytes().all(|b| b == mark) {
            return Start::None;
        }
        let (tip, line_no) = (self.tip(), self.line_no());
        if let Some(block) = self.blocks.get_mut(tip) {
            block.kind = Kind::Heading(level);
            block.last = line_no;
        }
        self.close_tip();
        Start::Done
    }

    /// A delimiter row under a paragraph whose last line has as many cells makes that line a
    /// table's header.
    fn table(&mut self, paragraph: usize) -> Start {
        let rest = self.rest();
        let Some(alignments) = rest.contains('|').then(|| delimiter_row(rest)).flatten() else {
            return Start::None;
        };
        let line_no = self.line_no();
        let text = self.text;
        let Some(block) = self.blocks.get_mut(paragraph) else {
            return Start::None;
        };
        let Some(&(a, b)) = block.lines.last() else {
            return Start::None;
        };
        let header = text.get(a..b).unwrap_or("");
        if block.task.is_some() || !header.contains('|') || cells(header).len() != alignments.len()
        {
            return Start::None;
        }
        if block.lines.len() == 1 {
            block.kind = Kind::Table(alignments);
            return Start::Done;
        }
        // The lines before the header stay a paragraph.
        block.lines.pop();
        self.close_tip();
        let id = self.add_child(Kind::Table(alignments));
        if let Some(table) = self.blocks.get_mut(id) {
            table.lines.push((a, b));
            table.first = line_no - 1;
        }
        Start::Done
    }

    /// Three or more of one of `*`, `-`, `_`, and spaces.
    fn rule(&mut self) -> Start {
        let rest = self.rest().as_bytes();
        let mark = rest.first().copied().unwrap_or(0);
        let mut count = 0;
        for &b in rest {
            if b == mark {
                count += 1;
            } else if b != b' ' && b != b'\t' {
                return Start::None;
            }
        }
        if count < 3 {
            return Start::None;
        }
        self.close_unmatched();
        self.add_child(Kind::Rule);
        self.close_tip();
        Start::Done
    }

    /// `-`, `+`, `*`, or a number of up to nine digits and `.` or `)`, then a space or the
    /// line's end. One that interrupts a paragraph must not be empty, and a number must be 1.
    fn list_item(&mut self, paragraph: bool) -> Start {
        if self.depth() + 2 > MAX_OPEN {
            return Start::None;
        }
        let rest = self.rest().as_bytes();
        let (marker, start, width) = match rest.first() {
            Some(&b @ (b'-' | b'+' | b'*')) => (b, None, 1),
            Some(b'0'..=b'9') => {
                let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                let Some(&delimiter @ (b'.' | b')')) = rest.get(digits) else {
                    return Start::None;
                };
                let number = rest
                    .iter()
                    .take(digits)
                    .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'));
                if digits > 9 || (paragraph && number != 1) {
                    return Start::None;
                }
                (delimiter, Some(number), digits + 1)
            }
            _ => return Start::None,
        };
        let after = rest.get(width..).unwrap_or(&[]);
        if !after.first().is_none_or(|b| matches!(b, b' ' | b'\t'))
            || (paragraph && after.iter().all(|&b| b == b' ' || b == b'\t'))
        {
            return Start::None;
        }
        let marker_offset = self.indent;
        self.skip_to_nonspace();
        self.advance_bytes(width);
        let (column, offset) = (self.column, self.offset);
        loop {
            self.advance_columns(1);
            if self.column - column >= 5 || !matches!(self.peek(self.offset), b' ' | b'\t') {
                break;
            }
        }
        let spaces = self.column - column;
        let padding = if !(1..5).contains(&spaces) || self.offset >= self.line.len() {
            // Content indented five or more is code one column in; an empty first line
            // leaves the content one column after the marker.
            self.column = column;
            self.offset = offset;
            if matches!(self.peek(self.offset), b' ' | b'\t') {
                self.advance_columns(1);
            }
            width + 1
        } else {
            width + spaces
        };
        self.close_unmatched();
        let same_list =
            matches!(self.kind(self.tip()), Kind::List { marker: m, .. } if *m == marker);
        if !same_list {
            self.add_child(Kind::List { marker, start });
        }
        self.add_child(Kind::Item {
            indent: marker_offset + padding,
        });
        Start::Container
    }

    /// Four columns of indentation, not in a paragraph (not even a lazy one).
    fn indented_code(&mut self) -> Start {
        if matches!(self.kind(self.tip()), Kind::Paragraph) {
            return Start::None;
        }
        self.advance_columns(4);
        self.close_unmatched();
        self.add_child(Kind::Code {
            fence: 0,
            len: 0,
            indent: 0,
        });
        Start::Leaf
    }

    fn leaf_line(&mut self, id: usize, range: (usize, usize)) {
        if let Some(block) = self.blocks.get_mut(id) {
            block.lines.push(range);
        }
    }
}

/// A table row's cells: split at the pipes that are not escaped, without a pipe that begins or
/// ends the row, each trimmed.
pub(super) fn cells(row: &str) -> Vec<&str> {
    let row = trim_blanks(row);
    let row = row.strip_prefix('|').unwrap_or(row);
    let bytes = row.as_bytes();
    let mut cells = Vec::new();
    let (mut start, mut i) = (0, 0);
    while let Some(&b) = bytes.get(i) {
        match b {
            // A pipe after a backslash is escaped, whatever comes before the backslash (GFM).
            b'\\' if bytes.get(i + 1) == Some(&b'|') => i += 1,
            b'|' => {
                cells.push(trim_blanks(row.get(start..i).unwrap_or("")));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < row.len() {
        cells.push(trim_blanks(row.get(start..).unwrap_or("")));
    }
    cells
}

/// A GFM delimiter row's alignments: cells of dashes with an optional colon at either end.
fn delimiter_row(row: &str) -> Option<Vec<Alignment>> {
    let cells = cells(row);
    let mut alignments = Vec::with_capacity(cells.len());
    for cell in cells {
        let left = cell.starts_with(':');
        let right = cell.len() > 1 && cell.ends_with(':');
        let dashes = cell.get(usize::from(left)..cell.len() - usize::from(right))?;
        if dashes.is_empty() || !dashes.bytes().all(|b| b == b'-') {
            return None;
        }
        alignments.push(match (left, right) {
            (true, true) => Alignment::Center,
            (true, false) => Alignment::Left,
            (false, true) => Alignment::Right,
            (false, false) => Alignment::None,
        });
    }
    (!alignments.is_empty()).then_some(alignments)
}
