//! Word-wrapping text to a width: plain strings, and styled spans whose styles carry across
//! the breaks. Breaks follow terminal widths as measured in [`crate::view::text`].

use crate::view::style::{Line, Span, Style};
use crate::view::text::{self, char_width, sanitize_line};

/// Word-wraps `s` to `width` cells. `\n` starts a new line; breaks happen at spaces (which
/// are dropped at the break); a word longer than the width is broken between characters; a
/// wide character that cannot fit at all (width 1) becomes `?`. A paragraph's leading
/// indentation is kept on its first line. Every line fits; width 0 gives no lines.
pub fn wrap(s: &str, width: usize) -> Vec<String> {
    if width == 0 {
        return Vec::new();
    }
    let span = [Span {
        text: s.to_owned(),
        style: Style::default(),
    }];
    wrap_styled(&span, width, width)
        .into_iter()
        .map(|line| match line.spans.len() {
            0 => String::new(),
            1 => line
                .spans
                .into_iter()
                .next()
                .map(|s| s.text)
                .unwrap_or_default(),
            _ => line.plain(),
        })
        .collect()
}

/// Word-wraps styled text: the first line gets `first_width` cells, the others `rest_width`.
/// Same rules as [`wrap`]; styles carry across breaks, adjacent runs of one style merge.
/// A width of 0 is treated as 1 (callers reserve at least one cell for content).
pub(crate) fn wrap_styled(spans: &[Span], first_width: usize, rest_width: usize) -> Vec<Line> {
    let mut lines = Vec::new();
    wrap_styled_into(
        &mut WrapScratch::default(),
        &mut lines,
        spans,
        first_width,
        rest_width,
    );
    lines
}

/// Word-wraps styled spans to `width` cells; the first line starts with `first_indent`, the
/// others with `rest_indent` (plain text; indents are cut to leave at least one cell).
/// Styles carry across breaks; same rules as [`wrap`]. Width 0 gives no lines.
pub fn wrap_spans(
    spans: &[Span],
    width: usize,
    first_indent: &str,
    rest_indent: &str,
) -> Vec<Line> {
    if width == 0 {
        return Vec::new();
    }
    let first_indent = sanitize_line(first_indent);
    let rest_indent = sanitize_line(rest_indent);
    let first_indent = text::truncate(&first_indent, width - 1);
    let rest_indent = text::truncate(&rest_indent, width - 1);
    let first_w = width - text::width(first_indent);
    let rest_w = width - text::width(rest_indent);
    wrap_styled(spans, first_w, rest_w)
        .into_iter()
        .enumerate()
        .map(|(i, content)| {
            let indent = if i == 0 { first_indent } else { rest_indent };
            let mut line = Line::styled(indent, Style::default());
            line.extend(content);
            line
        })
        .collect()
}

/// Buffers [`wrap_styled_into`] reuses between calls.
#[derive(Default)]
pub(crate) struct WrapScratch {
    word: Vec<SpanRange>,
    spaces: Vec<SpanRange>,
}

/// [`wrap_styled`] appending to `out`, with reusable buffers: a renderer that wraps many
/// small blocks saves their allocations.
pub(crate) fn wrap_styled_into(
    scratch: &mut WrapScratch,
    out: &mut Vec<Line>,
    spans: &[Span],
    first_width: usize,
    rest_width: usize,
) {
    let mut wrapper = Wrapper::new(spans, first_width.max(1), rest_width.max(1));
    wrapper.lines = std::mem::take(out);
    wrapper.first_line = wrapper.lines.len();
    wrapper.word = std::mem::take(&mut scratch.word);
    wrapper.spaces = std::mem::take(&mut scratch.spaces);
    // Roughly one line per `rest_width` bytes (exact for ASCII prose).
    let bytes: usize = spans.iter().map(|s| s.text.len()).sum();
    wrapper
        .lines
        .reserve((bytes / wrapper.rest_width).min(1 << 16) + 1);
    for (span_index, span) in spans.iter().enumerate() {
        let text = span.text.as_str();
        let bytes = text.as_bytes();
        // Runs of spaces, runs of word characters and newlines; a word may continue across
        // span boundaries (`**bold**ing` is one word). Widths are summed during the scan.
        let mut start = 0usize;
        let mut word_w = 0usize;
        let mut i = 0usize;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'\n' | b' ' => {
                    wrapper.add_word_range(span_index, start, i, word_w);
                    word_w = 0;
                    if b == b'\n' {
                        wrapper.end_paragraph();
                    } else {
                        if !wrapper.word.is_empty() {
                            wrapper.flush_word();
                        }
                        wrapper.add_space(span_index, i);
                    }
                    i += 1;
                    start = i;
                }
                0x00..=0x7f => {
                    word_w += usize::from((0x20..0x7f).contains(&b));
                    i += 1;
                }
                _ => {
                    let c = text.get(i..).and_then(|t| t.chars().next()).unwrap_or(' ');
                    word_w += char_width(c);
                    i += c.len_utf8();
                }
            }
        }
        wrapper.add_word_range(span_index, start, bytes.len(), word_w);
    }
    wrapper.end_paragraph();
    *out = wrapper.lines;
    wrapper.word.clear();
    wrapper.spaces.clear();
    scratch.word = wrapper.word;
    scratch.spaces = wrapper.spaces;
}

/// A byte range of one input span: words and runs of spaces are kept as ranges, not copied.
#[derive(Clone, Copy)]
struct SpanRange {
    span: usize,
    start: usize,
    end: usize,
}

/// Greedy line filling over styled pieces; linear in the input.
struct Wrapper<'a> {
    spans: &'a [Span],
    first_width: usize,
    rest_width: usize,
    lines: Vec<Line>,
    /// Index in `lines` of the first line of this text.
    first_line: usize,
    cur: Line,
    cur_w: usize,
    /// Whether `cur` holds anything besides indentation.
    has_content: bool,
    /// Whether `cur` is the first line of a paragraph (its leading spaces are indentation).
    para_start: bool,
    /// Input already placed on the current line but not yet copied into `cur`.
    pending: Option<SpanRange>,
    /// Spaces seen since the last word (pieces of spaces only) and how many.
    spaces: Vec<SpanRange>,
    spaces_w: usize,
    word: Vec<SpanRange>,
    word_w: usize,
}

impl<'a> Wrapper<'a> {
    fn new(spans: &'a [Span], first_width: usize, rest_width: usize) -> Self {
        Wrapper {
            spans,
            first_width,
            rest_width,
            lines: Vec::new(),
            first_line: 0,
            cur: Line::new(),
            cur_w: 0,
            has_content: false,
            para_start: true,
            pending: None,
            spaces: Vec::new(),
            spaces_w: 0,
            word: Vec::new(),
            word_w: 0,
        }
    }

    fn avail(&self) -> usize {
        if self.lines.len() == self.first_line {
            self.first_width
        } else {
            self.rest_width
        }
    }

    fn text(&self, p: SpanRange) -> (&'a str, Style) {
        match self.spans.get(p.span) {
            Some(span) => (span.text.get(p.start..p.end).unwrap_or(""), span.style),
            None => ("", Style::default()),
        }
    }

    fn add_word_range(&mut self, span: usize, start: usize, end: usize, width: usize) {
        if start < end {
            self.word_w += width;
            self.word.push(SpanRange { span, start, end });
        }
    }

    /// Notes one space; consecutive spaces of one span share a piece.
    fn add_space(&mut self, span: usize, at: usize) {
        self.spaces_w += 1;
        match self.spaces.last_mut() {
            Some(last) if last.span == span && last.end == at => last.end = at + 1,
            _ => self.spaces.push(SpanRange {
                span,
                start: at,
                end: at + 1,
            }),
        }
    }

    fn push_line(&mut self) {
        self.materialize();
        let line = std::mem::take(&mut self.cur);
        self.lines.push(line);
        self.cur_w = 0;
        self.has_content = false;
        self.para_start = false;
    }

    /// Copies the pending segment into the current line.
    fn materialize(&mut self) {
        if let Some(p) = self.pending.take() {
            let (text, style) = self.text(p);
            self.append_str(text, style);
        }
    }

    /// Appends a piece of input. Contiguous pieces of one span are only copied when the line
    /// is done, so a paragraph costs one copy per line rather than one per word.
    fn append_piece(&mut self, p: SpanRange) {
        if p.start >= p.end {
            return;
        }
        if let Some(pending) = self.pending.as_mut() {
            if pending.span == p.span && pending.end == p.start {
                pending.end = p.end;
                return;
            }
        }
        self.materialize();
        self.pending = Some(p);
    }

    fn append_pieces(&mut self, pieces: &[SpanRange]) {
        for &p in pieces {
            self.append_piece(p);
        }
    }

    /// Appends text that is not a piece of the input (the `?` of a wide character).
    fn append(&mut self, text: &str, style: Style) {
        self.materialize();
        self.append_str(text, style);
    }

    fn append_str(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        match self.cur.spans.last_mut() {
            Some(last) if last.style == style => last.text.push_str(text),
            _ => {
                // Room for the rest of the line, so the span rarely grows again.
                let room = self.avail().saturating_sub(self.cur_w).min(256);
                let mut owned = String::with_capacity(text.len().max(room));
                owned.push_str(text);
                self.cur.spans.push(Span { text: owned, style });
            }
        }
    }

    /// Places the pending word (with the spaces before it) on the current or a new line.
    fn flush_word(&mut self) {
        let mut word = std::mem::take(&mut self.word);
        let mut spaces = std::mem::take(&mut self.spaces);
        let word_w = std::mem::replace(&mut self.word_w, 0);
        let sp_w = std::mem::replace(&mut self.spaces_w, 0);
        if self.has_content {
            if self.cur_w + sp_w + word_w <= self.avail() {
                self.append_pieces(&spaces);
                self.append_pieces(&word);
                self.cur_w += sp_w + word_w;
            } else {
                self.push_line();
                if word_w <= self.avail() {
                    self.append_pieces(&word);
                    self.cur_w = word_w;
                    self.has_content = true;
                } else {
                    self.hard_break(&word);
                }
            }
        } else {
            if self.para_start && self.cur_w == 0 {
                // Leading indentation, kept as long as it leaves the line some room.
                let mut keep = sp_w.min(self.avail().saturating_sub(1));
                self.cur_w += keep;
                for &p in &spaces {
                    // Pieces of spaces: one byte per cell.
                    let take = keep.min(p.end - p.start);
                    self.append_piece(SpanRange {
                        end: p.start + take,
                        ..p
                    });
                    keep -= take;
                }
            }
            if self.cur_w + word_w <= self.avail() {
                self.append_pieces(&word);
                self.cur_w += word_w;
                self.has_content = true;
            } else {
                self.hard_break(&word);
            }
        }
        // Hand the buffers back so they are not reallocated for every word.
        word.clear();
        spaces.clear();
        self.word = word;
        self.spaces = spaces;
    }

    /// Breaks a word that does not fit on a line between characters.
    fn hard_break(&mut self, word: &[SpanRange]) {
        for &p in word {
            let (text, style) = self.text(p);
            let mut run_start = 0usize;
            for (i, c) in text.char_indices() {
                let cw = char_width(c);
                if self.cur_w + cw <= self.avail() {
                    self.cur_w += cw;
                    self.has_content = true;
                    continue;
                }
                self.append_piece(SpanRange {
                    span: p.span,
                    start: p.start + run_start,
                    end: p.start + i,
                });
                run_start = i;
                if self.has_content {
                    self.push_line();
                } else {
                    // Only indentation so far: drop it rather than leave a line of spaces.
                    self.pending = None;
                    self.cur = Line::new();
                    self.cur_w = 0;
                }
                if cw > self.avail() {
                    self.append("?", style);
                    run_start = i + c.len_utf8();
                    self.cur_w = 1;
                } else {
                    self.cur_w = cw;
                }
                self.has_content = true;
            }
            self.append_piece(SpanRange {
                span: p.span,
                start: p.start + run_start,
                end: p.end,
            });
        }
    }

    /// Ends the current paragraph: trailing spaces are dropped, the line is always emitted
    /// (an empty paragraph is an empty line).
    fn end_paragraph(&mut self) {
        if !self.word.is_empty() {
            self.flush_word();
        }
        self.spaces.clear();
        self.spaces_w = 0;
        self.push_line();
        self.para_start = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::style::Role;

    #[test]
    fn wrap_breaks_at_spaces() {
        assert_eq!(wrap("the quick brown fox", 10), ["the quick", "brown fox"]);
        assert_eq!(wrap("a  b", 10), ["a  b"]);
        assert_eq!(wrap("one two", 3), ["one", "two"]);
    }

    #[test]
    fn wrap_keeps_paragraphs_and_empty_lines() {
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(wrap("a\n\nb", 5), ["a", "", "b"]);
        assert_eq!(wrap("a\n", 5), ["a", ""]);
        assert_eq!(wrap("trailing   ", 20), ["trailing"]);
    }

    #[test]
    fn wrap_hard_breaks_long_words() {
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("ab abcdefgh", 4), ["ab", "abcd", "efgh"]);
        assert_eq!(wrap("中文字中", 3), ["中", "文", "字", "中"]);
    }

    #[test]
    fn wrap_replaces_wide_chars_that_cannot_fit() {
        assert_eq!(wrap("中a", 1), ["?", "a"]);
    }

    #[test]
    fn wrap_keeps_indentation_on_first_line_only() {
        assert_eq!(
            wrap("    indented text here", 12),
            ["    indented", "text here"]
        );
        assert_eq!(wrap("  a\n  b", 10), ["  a", "  b"]);
    }

    #[test]
    fn wrap_zero_width_gives_nothing() {
        assert!(wrap("abc", 0).is_empty());
    }

    #[test]
    fn wrap_styled_carries_styles_across_breaks() {
        let bold = Style::new(Role::Text).bold();
        let spans = [
            Span {
                text: "plain ".into(),
                style: Style::default(),
            },
            Span {
                text: "bold words here".into(),
                style: bold,
            },
            Span {
                text: "ing tail".into(),
                style: Style::default(),
            },
        ];
        let lines = wrap_styled(&spans, 11, 11);
        let plain: Vec<String> = lines.iter().map(Line::plain).collect();
        assert_eq!(plain, ["plain bold", "words", "hereing", "tail"]);
        assert_eq!(lines[1].spans.len(), 1);
        assert_eq!(lines[1].spans[0].style, bold);
        assert_eq!(lines[2].spans.len(), 2);
        assert_eq!(lines[2].spans[0].style, bold);
        assert_eq!(lines[2].spans[1].style, Style::default());
    }

    #[test]
    fn wrap_spans_indents_first_and_rest_lines() {
        let spans = [Span {
            text: "one two three".into(),
            style: Style::new(Role::Muted),
        }];
        let lines = wrap_spans(&spans, 8, "- ", "  ");
        let plain: Vec<String> = lines.iter().map(Line::plain).collect();
        assert_eq!(plain, ["- one", "  two", "  three"]);
        assert_eq!(lines[0].spans[1].style, Style::new(Role::Muted));
        assert!(wrap_spans(&spans, 0, "", "").is_empty());
        assert!(wrap_spans(&spans, 1, "long", "long")
            .iter()
            .all(|l| l.width() <= 1));
    }
}
