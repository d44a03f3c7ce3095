//! Terminal text: sanitising untrusted strings, measuring widths and wrapping to a width.

/// The width of `s` in terminal cells.
pub fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}
