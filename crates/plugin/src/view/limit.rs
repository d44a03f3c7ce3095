//! How much of one text of the payload (a question, a context, a description, a preview) is
//! laid out: its first `MAX_BYTES`, in at most `MAX_LINES` lines (and `MAX_SPANS` styled runs),
//! and a last line that says the rest is not shown.
//!
//! Zellij gives the plugin 16 MiB, and up to 8 MiB of it may hold the questionnaires that wait.
//! Laid out whole, a 1 MiB preview of short lines took over 100 MiB (a line costs about a
//! hundred bytes besides its text; the markdown parser's tree as much per block), which killed
//! the plugin and every request waiting in it. 2,000 lines are forty pages of a tall popup;
//! the answer still carries the whole preview.

use crate::view::style::{Line, Role};
use crate::view::text::truncate_ellipsis;

/// The most bytes of one text that are laid out.
pub const MAX_BYTES: usize = 64 * 1024;
/// The most lines one text is laid out in, besides the line that says the rest is not shown.
pub const MAX_LINES: usize = 2_000;
/// The most styled runs in those lines (each about fifty bytes besides its text): lines of
/// many styles end the text sooner.
pub const MAX_SPANS: usize = 8 * 1024;

/// How many of `lines` are kept: at most `MAX_LINES`, with at most `MAX_SPANS` runs in all.
pub fn kept(lines: &[Line]) -> usize {
    let mut spans = 0;
    lines
        .iter()
        .take(MAX_LINES)
        .take_while(|line| {
            spans += line.spans.len().max(1);
            spans <= MAX_SPANS
        })
        .count()
}

/// The part of `text` that is laid out (up to `MAX_BYTES`, ending with a line where one ends
/// in its last quarter), and how many bytes are left out.
pub fn head(text: &str) -> (&str, usize) {
    if text.len() <= MAX_BYTES {
        return (text, 0);
    }
    let mut end = MAX_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(line_end) = text[..end].rfind('\n').filter(|&i| i >= MAX_BYTES / 4 * 3) {
        end = line_end + 1;
    }
    (&text[..end], text.len() - end)
}

/// Keeps `MAX_LINES` of `lines` and, when any text was left out (`cut`: lines beyond them, or
/// bytes never laid out), ends them with a line that says so.
pub fn finish(lines: &mut Vec<Line>, cut: bool, text_bytes: usize, width: usize) {
    let kept = kept(lines);
    let cut = cut || lines.len() > kept;
    lines.truncate(kept);
    if cut && width > 0 {
        let said = format!("… the rest is not shown ({} in all)", size(text_bytes));
        lines.push(Line::styled(
            truncate_ellipsis(&said, width).into_owned(),
            Role::Dim,
        ));
    }
}

/// A size as people read it.
fn size(bytes: usize) -> String {
    if bytes >= 1024 * 1024 {
        // Tenths of a MiB, rounded half up, in whole numbers: formatting an `f64` with `{:.1}`
        // would carry the standard library's exact float formatting into the plugin.
        let tenths = (bytes as u64 * 10 + 512 * 1024) / (1024 * 1024);
        format!("{}.{} MiB", tenths / 10, tenths % 10)
    } else if bytes >= 1024 {
        format!("{} KiB", bytes.div_ceil(1024))
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_text_is_whole() {
        assert_eq!(head("abc"), ("abc", 0));
    }

    #[test]
    fn a_long_text_ends_at_a_line_or_a_character() {
        let lines = "x\n".repeat(MAX_BYTES);
        let (shown, left) = head(&lines);
        assert!(shown.ends_with('\n') && shown.len() <= MAX_BYTES);
        assert_eq!(shown.len() + left, lines.len());
        let wide = "設".repeat(MAX_BYTES);
        let (shown, left) = head(&wide);
        assert!(shown.len() <= MAX_BYTES && shown.chars().all(|c| c == '設'));
        assert_eq!(shown.len() + left, wide.len());
    }

    #[test]
    fn the_last_line_says_what_is_cut() {
        let mut lines = vec![Line::styled("a", Role::Text); MAX_LINES + 5];
        finish(&mut lines, false, 3 * 1024 * 1024, 80);
        assert_eq!(lines.len(), MAX_LINES + 1);
        assert_eq!(
            lines[MAX_LINES].plain(),
            "… the rest is not shown (3.0 MiB in all)"
        );
        let mut lines = vec![Line::styled("a", Role::Text); 3];
        finish(&mut lines, false, 90_000, 80);
        assert_eq!(lines.len(), 3);
        finish(&mut lines, true, 90_000, 10);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[3].plain(), "… the res…");
    }

    #[test]
    fn a_size_is_said_in_tenths_of_a_mib_as_formatting_a_float_would() {
        for bytes in [
            1024 * 1024,
            1024 * 1024 + 1,
            1536 * 1024,
            3 * 1024 * 1024 - 1,
            10 * 1024 * 1024 - 1,
            7_340_000,
        ] {
            let float = format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0));
            assert_eq!(super::size(bytes), float, "{bytes} bytes");
        }
        assert_eq!(super::size(2048), "2 KiB");
    }
}
