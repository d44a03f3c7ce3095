//! Text being typed: the free-form answer and the notes, wrapped with a visible cursor.

use super::block::Block;
use crate::dialog::{Dialog, Editor, Mode};
use crate::view::style::{Line, Role, Style};
use crate::view::text::{self, sanitize, sanitize_line, truncate_ellipsis};

/// Lines of an editor shown at once.
const MAX_EDITOR_LINES: usize = 6;

/// An editor's text wrapped at `width` cells, with the cursor as a reversed cell; at most
/// `MAX_EDITOR_LINES` lines, around the cursor.
pub(super) fn editor_lines(editor: &Editor, width: usize, placeholder: Option<&str>) -> Vec<Line> {
    let text = editor.text();
    let cursor_style = Style::new(Role::Text).reverse();
    if text.is_empty() {
        let mut line = Line::styled(" ", cursor_style);
        if let Some(placeholder) = placeholder {
            line.push(
                text::truncate(placeholder, width.saturating_sub(1)).to_owned(),
                Role::Dim,
            );
        }
        return vec![line];
    }
    // Hard-wrap by cells so the cursor's place is exact.
    let mut lines: Vec<Line> = vec![Line::new()];
    let mut current = String::new();
    let mut col = 0usize;
    let mut cursor_line = 0usize;
    let flush = |lines: &mut Vec<Line>, current: &mut String| {
        if let Some(last) = lines.last_mut() {
            last.push(std::mem::take(current), Style::default());
        }
    };
    let mut chars = text.char_indices().peekable();
    loop {
        let at_cursor = chars.peek().map_or(text.len(), |(i, _)| *i) == editor.cursor();
        let next = chars.next();
        if at_cursor {
            flush(&mut lines, &mut current);
            cursor_line = lines.len() - 1;
            let shown = match next {
                Some((_, c)) if c != '\n' && c != '\t' => c.to_string(),
                _ => " ".to_owned(),
            };
            let shown_width = text::width(&shown).max(1);
            if col + shown_width > width {
                lines.push(Line::new());
                col = 0;
                cursor_line += 1;
            }
            if let Some(last) = lines.last_mut() {
                last.push(sanitize(&shown), cursor_style);
            }
            col += shown_width;
            match next {
                Some((_, '\n')) => {
                    lines.push(Line::new());
                    col = 0;
                }
                None => break,
                _ => {}
            }
            continue;
        }
        let Some((_, c)) = next else {
            break;
        };
        if c == '\n' {
            flush(&mut lines, &mut current);
            lines.push(Line::new());
            col = 0;
            continue;
        }
        let shown = if c == '\t' { ' ' } else { c };
        if shown.is_control() {
            continue;
        }
        let shown_width = text::char_width(shown);
        if col + shown_width > width {
            flush(&mut lines, &mut current);
            lines.push(Line::new());
            col = 0;
        }
        if shown_width <= width {
            current.push(shown);
            col += shown_width;
        }
    }
    flush(&mut lines, &mut current);
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
        out.push(Line::styled(
            truncate_ellipsis(&text, width).into_owned(),
            Role::Dim,
        ));
    }
}
