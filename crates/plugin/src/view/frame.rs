//! A rendered frame: the lines to draw and where each clickable thing is.

use super::style::Line;
use super::theme::Theme;
use crate::dialog::Target;
use std::ops::Range;

/// Where a clickable thing is drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub line: usize,
    pub cols: Range<usize>,
    pub target: Target,
}

/// One frame of the dialog: at most `height` lines, each at most `width` cells wide.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    pub width: usize,
    pub height: usize,
    pub lines: Vec<Line>,
    pub hits: Vec<Hit>,
    /// How far the focused preview can scroll, when one is shown.
    pub preview_max_scroll: Option<usize>,
}

impl Frame {
    /// What is drawn at a cell, for mouse clicks.
    pub fn target_at(&self, line: usize, col: usize) -> Option<crate::dialog::Target> {
        self.hits
            .iter()
            .find(|h| h.line == line && h.cols.contains(&col))
            .map(|h| h.target)
    }

    /// The frame as plain text, one line per row, trailing spaces trimmed: for snapshots.
    pub fn to_plain(&self) -> String {
        let mut out = String::new();
        for line in &self.lines {
            out.push_str(line.plain().trim_end());
            out.push('\n');
        }
        out
    }

    /// The frame as terminal output: styled lines separated by newlines.
    pub fn to_ansi(&self, theme: &Theme) -> String {
        let mut out = String::with_capacity(self.width * self.lines.len() * 2);
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            for span in &line.spans {
                theme.write_sgr(&mut out, span.style);
                out.push_str(&span.text);
            }
            out.push_str("\u{1b}[0m");
        }
        out
    }
}
