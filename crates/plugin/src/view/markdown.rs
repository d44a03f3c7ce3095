//! Markdown previews: rendered once per request and width into styled lines.
//!
//! pulldown-cmark parses; this module lays the events out like a terminal markdown viewer:
//! paragraphs are word-wrapped once with their inline styles, containers (quotes, list items)
//! become line prefixes, and every emitted line fits the width. All payload text is sanitised
//! on the way in, so no span ever carries a control character or a newline.

mod code;
mod pieces;
mod renderer;
mod table;
mod tags;

use pulldown_cmark::{Options, Parser};

use self::renderer::Renderer;
use crate::view::limit;
use crate::view::style::Line;

pub use crate::view::wrap::wrap_spans;

/// Renders `md` into lines that each fit in `width` cells (no lines for width 0): its first
/// `limit::MAX_BYTES` in at most `limit::MAX_LINES` lines, and a line that says so when that
/// is not all of it.
pub fn render(md: &str, width: usize) -> Vec<Line> {
    if width == 0 {
        return Vec::new();
    }
    let (head, left) = limit::head(md);
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut renderer = Renderer::new(width);
    for piece in pieces::pieces(head) {
        if piece.joined {
            renderer.pending_blank = false;
        }
        let reopened;
        let text = match piece.fence {
            Some(fence) => {
                reopened = format!("{fence}\n{}", piece.text);
                reopened.as_str()
            }
            None => piece.text,
        };
        for event in Parser::new_ext(text, options) {
            if renderer.full() {
                break;
            }
            renderer.event(event);
        }
        renderer.flush_inline();
    }
    let cut = left > 0 || renderer.full();
    let mut lines = renderer.finish();
    limit::finish(&mut lines, cut, md.len(), width);
    lines
}

#[cfg(test)]
mod tests;
