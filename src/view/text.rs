//! Terminal text: sanitising untrusted strings, measuring and cutting them to a width.
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
