//! Markdown previews: rendered once per request and width into styled lines.
//!
//! A parser of its own reads the markdown agents write: CommonMark's blocks and inlines with
//! GFM's tables, strikethrough and task lists, handed on as events (`blocks.rs` and `starts.rs`
//! read the blocks, `inline.rs`, `emphasis.rs` and `scan.rs` the text in them, `emit.rs` walks
//! the result). It leaves out link reference definitions: `[text][ref]` and `[ref]: url` stay
//! as written, which shows the URL (a link shows only its text) and does not hang on whether
//! the definition falls in the same piece. It reads the common HTML entities only, and counts
//! non-ASCII characters as letters in the emphasis rules. Anything it does not understand is
//! shown as the text it is. It replaces pulldown-cmark, which with its table of 2,000 entity
//! names cost about 140 KB of the plugin's wasm; this costs about 20 KB.
//!
//! This module lays the events out like a terminal markdown viewer: paragraphs are
//! word-wrapped once with their inline styles, containers (quotes, list items) become line
//! prefixes, and every emitted line fits the width. All payload text is sanitised on the way
//! in, so no span ever carries a control character or a newline.

mod blocks;
mod code;
mod emit;
mod emphasis;
mod event;
mod inline;
mod pieces;
mod renderer;
mod scan;
mod starts;
mod table;
mod tags;

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
        emit::parse(text, &mut |event| {
            if renderer.full() {
                return false;
            }
            renderer.event(event);
            true
        });
        renderer.flush_inline();
    }
    let cut = left > 0 || renderer.full();
    let mut lines = renderer.finish();
    limit::finish(&mut lines, cut, md.len(), width);
    lines
}

#[cfg(test)]
mod block_tests;
#[cfg(test)]
mod inline_tests;
#[cfg(test)]
mod tests;
