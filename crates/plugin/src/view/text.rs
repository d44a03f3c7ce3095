//! Terminal text: measuring and cutting it to a width; sanitising untrusted strings is the
//! protocol's (`ask_popup_protocol::text`), re-exported here.
//!
//! Widths are the sum of per-character widths (`unicode-width`, 0 for controls). That is how
//! Zellij's grid measures what a plugin prints (`TerminalCharacter::new_styled` uses
//! `char::width().unwrap_or(0)`), and it makes widths additive: the width of a line is the sum
//! of the widths of its spans, which every layout computation here relies on.

use std::borrow::Cow;

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

pub use ask_popup_protocol::text::{push_sanitized, sanitize, sanitize_line};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
