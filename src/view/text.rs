//! Terminal text: sanitising untrusted strings, measuring widths and wrapping to a width.
//!
//! Widths are the sum of per-character widths (`unicode-width`, 0 for controls). That is how
//! Zellij's grid measures what a plugin prints (`TerminalCharacter::new_styled` uses
//! `char::width().unwrap_or(0)`), and it makes widths additive: the width of a line is the sum
//! of the widths of its spans, which every layout computation here relies on.

use std::borrow::Cow;

use crate::view::style::{Line, Span, Style};

/// The width of `s` in terminal cells.
pub fn width(s: &str) -> usize {
    let bytes = s.as_bytes();
    let mut total = 0usize;
    let mut i = 0usize;
    // Byte loop with a per-char fallback: most text is ASCII, and this stays fast even in
    // the size-optimised release build, which does not inline the char iterators.
    while let Some(&b) = bytes.get(i) {
        if b < 0x80 {
            total += usize::from((0x20..0x7f).contains(&b));
            i += 1;
        } else {
            let c = s.get(i..).and_then(|t| t.chars().next()).unwrap_or(' ');
            total += char_width(c);
            i += c.len_utf8();
        }
    }
    total
}

/// The width of one character in terminal cells (0 for controls and combining marks).
#[inline]
pub fn char_width(c: char) -> usize {
    unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)
}

/// Characters that must never reach the terminal: C0 controls other than `\n` (tab is
/// handled separately), DEL, C1 controls and the bidi overrides and isolates, which can make
/// text display in an order other than the one it is stored in.
fn is_removed(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The byte offset of the first character that sanitising would change. Scans bytes, not
/// chars: every character concerned starts with a byte that ASCII text never contains or is
/// an ASCII control, so ordinary text is checked at memory speed.
fn first_to_sanitize(s: &str, newline_as_space: bool) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        let hit = match b {
            b'\n' => newline_as_space,
            0x00..=0x1f | 0x7f => true,
            // U+0080..=U+009F
            0xc2 => matches!(bytes.get(i + 1), Some(0x80..=0x9f)),
            // U+202A..=U+202E and U+2066..=U+2069
            0xe2 => matches!(
                (bytes.get(i + 1), bytes.get(i + 2)),
                (Some(0x80), Some(0xaa..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
            ),
            _ => false,
        };
        if hit {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Appends `s` to `out`, sanitised as by [`sanitize`] (or [`sanitize_line`] when
/// `newline_as_space`). Lets callers that build one string from many pieces skip a copy.
pub(crate) fn push_sanitized(out: &mut String, s: &str, newline_as_space: bool) {
    let Some(first) = first_to_sanitize(s, newline_as_space) else {
        out.push_str(s);
        return;
    };
    let (clean, rest) = s.split_at(first);
    out.push_str(clean);
    for c in rest.chars() {
        match c {
            '\t' => out.push_str("    "),
            '\n' if newline_as_space => out.push(' '),
            c if is_removed(c) => {}
            c => out.push(c),
        }
    }
}

fn sanitize_with(s: &str, newline_as_space: bool) -> String {
    if first_to_sanitize(s, newline_as_space).is_none() {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 8);
    push_sanitized(&mut out, s, newline_as_space);
    out
}

/// `s` without control characters (except `\n`) and bidi controls; a tab becomes 4 spaces.
pub fn sanitize(s: &str) -> String {
    sanitize_with(s, false)
}

/// Like [`sanitize`], for one-line contexts: `\n` becomes a space too.
pub fn sanitize_line(s: &str) -> String {
    sanitize_with(s, true)
}

/// The longest prefix of `s` whose width is at most `max`. Zero-width characters that follow
/// the last included character are included.
pub fn truncate(s: &str, max: usize) -> &str {
    let mut used = 0usize;
    for (i, c) in s.char_indices() {
        used += char_width(c);
        if used > max {
            return &s[..i];
        }
    }
    s
}

/// `s` if it fits in `max` cells, else its longest fitting prefix followed by `…`.
pub fn truncate_ellipsis(s: &str, max: usize) -> Cow<'_, str> {
    if width(s) <= max {
        return Cow::Borrowed(s);
    }
    if max == 0 {
        return Cow::Borrowed("");
    }
    let head = truncate(s, max - 1).trim_end_matches(' ');
    Cow::Owned(format!("{head}…"))
}

/// `s` truncated to `width` cells and padded with spaces to exactly `width` cells. A wide
/// character that would straddle the edge becomes a space.
pub fn pad(s: &str, width: usize) -> String {
    let head = truncate(s, width);
    let fill = width.saturating_sub(self::width(head));
    let mut out = String::with_capacity(head.len() + fill);
    out.push_str(head);
    out.extend(std::iter::repeat_n(' ', fill));
    out
}

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

/// Buffers [`wrap_styled_into`] reuses between calls.
#[derive(Default)]
pub(crate) struct WrapScratch {
    word: Vec<Piece>,
    spaces: Vec<Piece>,
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
    let mut w = Wrapper::new(spans, first_width.max(1), rest_width.max(1));
    w.lines = std::mem::take(out);
    w.first_line = w.lines.len();
    w.word = std::mem::take(&mut scratch.word);
    w.spaces = std::mem::take(&mut scratch.spaces);
    // Roughly one line per `rest_width` bytes (exact for ASCII prose).
    let bytes: usize = spans.iter().map(|s| s.text.len()).sum();
    w.lines.reserve((bytes / w.rest_width).min(1 << 16) + 1);
    for (idx, span) in spans.iter().enumerate() {
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
                    w.add_word_piece(idx, start, i, word_w);
                    word_w = 0;
                    if b == b'\n' {
                        w.end_paragraph();
                    } else {
                        if !w.word.is_empty() {
                            w.flush_word();
                        }
                        w.add_space(idx, i);
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
        w.add_word_piece(idx, start, bytes.len(), word_w);
    }
    w.end_paragraph();
    *out = w.lines;
    w.word.clear();
    w.spaces.clear();
    scratch.word = w.word;
    scratch.spaces = w.spaces;
}

/// A byte range of one input span.
#[derive(Clone, Copy)]
struct Piece {
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
    pending: Option<Piece>,
    /// Spaces seen since the last word (pieces of spaces only) and how many.
    spaces: Vec<Piece>,
    spaces_w: usize,
    word: Vec<Piece>,
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

    fn text(&self, p: Piece) -> (&'a str, Style) {
        match self.spans.get(p.span) {
            Some(span) => (span.text.get(p.start..p.end).unwrap_or(""), span.style),
            None => ("", Style::default()),
        }
    }

    fn add_word_piece(&mut self, span: usize, start: usize, end: usize, width: usize) {
        if start < end {
            self.word_w += width;
            self.word.push(Piece { span, start, end });
        }
    }

    /// Notes one space; consecutive spaces of one span share a piece.
    fn add_space(&mut self, span: usize, at: usize) {
        self.spaces_w += 1;
        match self.spaces.last_mut() {
            Some(last) if last.span == span && last.end == at => last.end = at + 1,
            _ => self.spaces.push(Piece {
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
    fn append_piece(&mut self, p: Piece) {
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

    fn append_pieces(&mut self, pieces: &[Piece]) {
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
                    self.append_piece(Piece {
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
    fn hard_break(&mut self, word: &[Piece]) {
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
                self.append_piece(Piece {
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
            self.append_piece(Piece {
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
    fn sanitize_removes_controls_and_expands_tabs() {
        let cases = [
            ("plain", "plain"),
            ("a\u{1b}[31mred", "a[31mred"),
            ("bell\u{7}", "bell"),
            ("cr\r\nlf", "cr\nlf"),
            ("del\u{7f}", "del"),
            ("c1\u{9b}31m", "c131m"),
            ("\u{202e}evil\u{2066}x\u{2069}", "evilx"),
            ("a\tb", "a    b"),
            ("kept\u{301}é 中文 🙂", "kept\u{301}é 中文 🙂"),
            ("\u{0}nul", "nul"),
        ];
        for (input, want) in cases {
            assert_eq!(sanitize(input), want, "{input:?}");
        }
    }

    #[test]
    fn sanitize_line_turns_newlines_into_spaces() {
        assert_eq!(sanitize_line("a\nb\tc\u{1b}"), "a b    c");
    }

    #[test]
    fn width_counts_cells() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("中文"), 4);
        assert_eq!(width("e\u{301}"), 1);
        assert_eq!(width("a\u{1b}"), 1);
        assert_eq!(width(""), 0);
        assert_eq!(char_width('中'), 2);
        assert_eq!(char_width('\u{7}'), 0);
    }

    #[test]
    fn truncate_keeps_whole_characters() {
        assert_eq!(truncate("hello", 3), "hel");
        assert_eq!(truncate("hello", 10), "hello");
        assert_eq!(truncate("中文字", 3), "中");
        assert_eq!(truncate("中文字", 4), "中文");
        assert_eq!(truncate("e\u{301}x", 1), "e\u{301}");
        assert_eq!(truncate("abc", 0), "");
    }

    #[test]
    fn truncate_ellipsis_marks_cut_text() {
        assert_eq!(truncate_ellipsis("hello", 5), "hello");
        assert_eq!(truncate_ellipsis("hello world", 8), "hello w…");
        assert_eq!(truncate_ellipsis("hello world", 7), "hello…");
        assert_eq!(truncate_ellipsis("hello", 4), "hel…");
        assert_eq!(truncate_ellipsis("中文字", 4), "中…");
        assert_eq!(truncate_ellipsis("hello", 1), "…");
        assert_eq!(truncate_ellipsis("hello", 0), "");
        assert!(matches!(truncate_ellipsis("fits", 9), Cow::Borrowed(_)));
    }

    #[test]
    fn pad_fills_to_exact_width() {
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(pad("abcdef", 4), "abcd");
        assert_eq!(pad("中文", 3), "中 ");
        assert_eq!(pad("", 2), "  ");
        assert_eq!(pad("x", 0), "");
    }

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
}
