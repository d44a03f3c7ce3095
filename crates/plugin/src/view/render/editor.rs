//! Text being typed: the free-form answer and the notes, wrapped with a visible cursor.

use super::block::Block;
use super::fit::{compact, fit};
use crate::dialog::{Dialog, Editor, Mode};
use crate::view::style::{Line, Role, Style};
use crate::view::text::{self, sanitize, sanitize_line};

/// Lines of an editor shown at once; in the compact layout, also of what was typed in it
/// when it is closed (a note, an answer).
pub(super) const MAX_EDITOR_LINES: usize = 6;

/// An editor's text wrapped at `width` cells, with the cursor as a reversed cell; at most
/// `MAX_EDITOR_LINES` lines, around the cursor.
pub(super) fn editor_lines(editor: &Editor, width: usize, placeholder: Option<&str>) -> Vec<Line> {
    let text = editor.text();
    if text.is_empty() {
        return vec![empty_line(width, placeholder)];
    }
    let mut wrap = HardWrap {
        width,
        lines: vec![Line::new()],
        current: String::new(),
        col: 0,
    };
    let mut cursor_line = 0usize;
    let mut chars = text.char_indices().peekable();
    loop {
        let at_cursor = chars.peek().map_or(text.len(), |(i, _)| *i) == editor.cursor();
        let next = chars.next().map(|(_, c)| c);
        if at_cursor {
            cursor_line = wrap.push_cursor(next);
            if next.is_none() {
                break;
            }
            continue;
        }
        let Some(c) = next else {
            break;
        };
        wrap.push_char(c);
    }
    wrap.flush();
    around_cursor(wrap.lines, cursor_line)
}

/// An empty editor: the cursor, then the placeholder dimmed when it fits whole.
fn empty_line(width: usize, placeholder: Option<&str>) -> Line {
    let mut line = Line::styled(" ", cursor_style());
    if let Some(placeholder) = placeholder.filter(|p| text::width(p) < width) {
        line.push(placeholder, Role::Dim);
    }
    line
}

fn cursor_style() -> Style {
    Style::new(Role::Text).reverse()
}

/// Text hard-wrapped by cells as it is laid out, so that the cursor's place is exact.
struct HardWrap {
    width: usize,
    /// Never empty: the last line is the one being filled.
    lines: Vec<Line>,
    /// Text of the last line not yet pushed to it.
    current: String,
    /// Cells used on the last line.
    col: usize,
}

impl HardWrap {
    /// Pushes the text not yet pushed to the last line.
    fn flush(&mut self) {
        if let Some(last) = self.lines.last_mut() {
            last.push(std::mem::take(&mut self.current), Style::default());
        }
    }

    fn new_line(&mut self) {
        self.lines.push(Line::new());
        self.col = 0;
    }

    /// The cursor on `under` (the character it stands on; None at the end of the text): that
    /// character reversed, or a reversed space on a line break, a tab or the end. Returns the
    /// cursor's line.
    fn push_cursor(&mut self, under: Option<char>) -> usize {
        self.flush();
        let shown = match under {
            Some(c) if c != '\n' && c != '\t' => c.to_string(),
            _ => " ".to_owned(),
        };
        let shown_width = text::width(&shown).max(1);
        if self.col + shown_width > self.width {
            self.new_line();
        }
        let cursor_line = self.lines.len().saturating_sub(1);
        if let Some(last) = self.lines.last_mut() {
            last.push(sanitize(&shown), cursor_style());
        }
        self.col += shown_width;
        if under == Some('\n') {
            self.new_line();
        }
        cursor_line
    }

    /// A character away from the cursor: a line break starts a line, a tab is a space, other
    /// control characters are left out, and a character that does not fit starts a line.
    fn push_char(&mut self, c: char) {
        if c == '\n' {
            self.flush();
            self.new_line();
            return;
        }
        let shown = if c == '\t' { ' ' } else { c };
        if shown.is_control() {
            return;
        }
        let shown_width = text::char_width(shown);
        if self.col + shown_width > self.width {
            self.flush();
            self.new_line();
        }
        if shown_width <= self.width {
            self.current.push(shown);
            self.col += shown_width;
        }
    }
}

/// At most `MAX_EDITOR_LINES` of `lines`, the cursor's among them.
fn around_cursor(mut lines: Vec<Line>, cursor_line: usize) -> Vec<Line> {
    if lines.len() > MAX_EDITOR_LINES {
        let start = cursor_line
            .saturating_sub(MAX_EDITOR_LINES - 1)
            .min(lines.len() - MAX_EDITOR_LINES);
        lines.drain(..start);
        lines.truncate(MAX_EDITOR_LINES);
    }
    lines
}

/// The note under a question (or the global note on the Submit tab): the editor while it is
/// open, else a one-line reminder of what was written.
pub(super) fn note_lines(
    dialog: &Dialog,
    note: &Editor,
    width: usize,
    title: &str,
    out: &mut Block,
) {
    if dialog.mode() == Mode::Note {
        out.blank();
        out.push(Line::styled(format!("{title}:"), Role::Muted));
        for line in editor_lines(note, width.saturating_sub(2).max(1), None) {
            let mut indented = Line::styled("  ", Style::default());
            indented.extend(line);
            out.push(indented);
        }
    } else if !note.is_blank() {
        out.blank();
        let text = format!(
            "{}: {}",
            title.to_lowercase(),
            sanitize_line(note.text().trim())
        );
        out.push_all(fit(
            compact(width),
            &text,
            width,
            0,
            Role::Dim.into(),
            MAX_EDITOR_LINES,
        ));
    }
}
