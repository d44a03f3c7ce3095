//! The markdown renderer's state as it reads the parser's events: the containers open around
//! the text (quotes, list items), the inline text being collected with its styles, and the
//! lines laid out so far, each fitting the width. What a block's start and end tags do is in
//! `tags.rs`.

use super::code;
use super::event::Event;
use super::table::Table;
use crate::view::limit;
use crate::view::style::{Line, Role, Span, Style};
use crate::view::text::{self, push_sanitized};
use crate::view::wrap::{wrap_styled_into, WrapScratch};

pub(super) const QUOTE_BAR: &str = "│ ";

pub(super) fn quote_style() -> Style {
    Style::new(Role::Quote).italic()
}

pub(super) fn marker_style() -> Style {
    Style::new(Role::Muted)
}

/// A block that prefixes the lines of what it contains.
pub(super) enum Container {
    Quote,
    /// A list item: its marker goes on its first line, spaces of the same width on the rest.
    Item {
        marker: String,
        used: bool,
    },
}

pub(super) struct List {
    /// The next number of an ordered list.
    pub(super) next: Option<u64>,
    /// A loose list (its items hold paragraphs) keeps blank lines between items.
    pub(super) loose: bool,
    pub(super) first_item: bool,
}

/// What inline content is being collected for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Inline {
    None,
    Paragraph,
    /// Text outside any paragraph: the items of a tight list.
    Implicit,
    /// A heading of level 1 to 6.
    Heading(u8),
    Cell,
}

/// What the containers around a block (quotes, list items) put before each of its lines,
/// and the cells left for content on the first line and on the others.
pub(super) struct Prefixes {
    pub(super) first: Line,
    pub(super) rest: Line,
    pub(super) first_w: usize,
    pub(super) rest_w: usize,
}

pub(super) struct Renderer {
    pub(super) width: usize,
    pub(super) out: Vec<Line>,
    /// The styled runs in `out` (a line without any counts as one).
    pub(super) spans: usize,
    pub(super) containers: Vec<Container>,
    pub(super) lists: Vec<List>,
    /// A blank line is owed before the next block (never at the start or the end).
    pub(super) pending_blank: bool,
    pub(super) inline: Vec<Span>,
    pub(super) target: Inline,
    pub(super) emphasis: usize,
    pub(super) strong: usize,
    pub(super) strike: usize,
    pub(super) link: usize,
    pub(super) image: usize,
    pub(super) quotes: usize,
    pub(super) code: Option<String>,
    pub(super) html: Option<String>,
    pub(super) table: Option<Table>,
    pub(super) wrap_scratch: WrapScratch,
    pub(super) wrap_lines: Vec<Line>,
}

impl Renderer {
    pub(super) fn new(width: usize) -> Self {
        Renderer {
            width,
            out: Vec::new(),
            spans: 0,
            containers: Vec::new(),
            lists: Vec::new(),
            pending_blank: false,
            inline: Vec::new(),
            target: Inline::None,
            emphasis: 0,
            strong: 0,
            strike: 0,
            link: 0,
            image: 0,
            quotes: 0,
            code: None,
            html: None,
            table: None,
            wrap_scratch: WrapScratch::default(),
            wrap_lines: Vec::new(),
        }
    }

    /// Whether more lines came than are kept: what follows is not laid out.
    pub(super) fn full(&self) -> bool {
        self.out.len() > limit::MAX_LINES || self.spans > limit::MAX_SPANS
    }

    pub(super) fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                if let Some(code) = self.code.as_mut() {
                    code.push_str(t);
                } else if let Some(html) = self.html.as_mut() {
                    html.push_str(t);
                } else {
                    self.push_inline(t, self.style());
                }
            }
            Event::Code(t) => {
                let style = Style {
                    role: Role::Code,
                    ..self.style()
                };
                self.push_inline(t, style);
            }
            Event::Html(t) => {
                if let Some(html) = self.html.as_mut() {
                    html.push_str(t);
                } else {
                    self.push_inline(t, Style::new(Role::Dim));
                }
            }
            Event::SoftBreak => self.push_inline(" ", self.style()),
            Event::HardBreak => {
                if self.target == Inline::Cell {
                    self.push_inline(" ", self.style());
                } else {
                    self.push_inline_raw("\n", self.style());
                }
            }
            Event::Rule => {
                self.flush_inline();
                self.begin_block();
                let prefixes = self.prefixes();
                let rule = Line::styled("─".repeat(prefixes.first_w), Style::new(Role::Dim));
                self.emit_prefixed(prefixes, vec![rule]);
                self.pending_blank = true;
            }
            Event::TaskListMarker(checked) => {
                let mark = if checked { "[x] " } else { "[ ] " };
                self.push_inline(mark, marker_style());
            }
        }
    }

    pub(super) fn finish(mut self) -> Vec<Line> {
        self.flush_inline();
        if let Some(code) = self.code.take() {
            self.emit_code(&code);
        }
        self.out
    }

    /// The style of inline text at this point.
    pub(super) fn style(&self) -> Style {
        if self.image > 0 {
            return Style::new(Role::Dim);
        }
        let mut style = match self.target {
            Inline::Heading(level) => {
                let heading = Style::new(Role::Heading).bold();
                if level == 1 {
                    heading.underline()
                } else {
                    heading
                }
            }
            _ if self.quotes > 0 => quote_style(),
            _ => Style::new(Role::Text),
        };
        if self.strike > 0 {
            style.role = Role::Dim;
        }
        if self.link > 0 {
            style.role = Role::Link;
            style.underline = true;
        }
        if self.emphasis > 0 {
            style.italic = true;
        }
        if self.strong > 0 || self.table.as_ref().is_some_and(|t| t.in_head) {
            style.bold = true;
        }
        style
    }

    /// Adds sanitised inline text (newlines become spaces).
    pub(super) fn push_inline(&mut self, text: &str, style: Style) {
        self.open_inline();
        match self.inline.last_mut() {
            Some(last) if last.style == style => push_sanitized(&mut last.text, text, true),
            _ => {
                let mut clean = String::with_capacity(text.len());
                push_sanitized(&mut clean, text, true);
                if !clean.is_empty() {
                    self.inline.push(Span { text: clean, style });
                }
            }
        }
    }

    /// Adds trusted inline text as is (a hard break's newline).
    pub(super) fn push_inline_raw(&mut self, text: &str, style: Style) {
        self.open_inline();
        match self.inline.last_mut() {
            Some(last) if last.style == style => last.text.push_str(text),
            _ => self.inline.push(Span {
                text: text.to_owned(),
                style,
            }),
        }
    }

    /// Inline content outside any block (a tight list item's text) starts a block of its own.
    pub(super) fn open_inline(&mut self) {
        if self.target == Inline::None {
            self.begin_block();
            self.target = Inline::Implicit;
        }
    }

    /// Wraps and emits the collected inline content of a paragraph or heading.
    pub(super) fn flush_inline(&mut self) {
        if matches!(self.target, Inline::None | Inline::Cell) {
            return;
        }
        self.target = Inline::None;
        let spans = std::mem::take(&mut self.inline);
        if spans.is_empty() {
            return;
        }
        let prefixes = self.prefixes();
        self.emit_wrapped(prefixes, &spans);
        // Keep the buffer's allocation for the next paragraph.
        self.inline = spans;
        self.inline.clear();
    }

    /// Emits the blank line owed before a new block, if any.
    pub(super) fn begin_block(&mut self) {
        if std::mem::replace(&mut self.pending_blank, false) && !self.out.is_empty() {
            // No trailing spaces: `│ ` becomes `│`, list indentation disappears.
            let mut blank = self.prefixes().rest;
            blank.trim_end();
            self.out.push(blank);
        }
    }

    /// The prefixes of the containers around the current block, cut to leave at least one
    /// cell for content.
    pub(super) fn prefixes(&self) -> Prefixes {
        if self.containers.is_empty() {
            // Top-level blocks, most of a document: no prefixes to build or measure.
            return Prefixes {
                first: Line::new(),
                rest: Line::new(),
                first_w: self.width,
                rest_w: self.width,
            };
        }
        let mut first = Line::new();
        let mut rest = Line::new();
        for container in &self.containers {
            match container {
                Container::Quote => {
                    first.push_merged(QUOTE_BAR, quote_style());
                    rest.push_merged(QUOTE_BAR, quote_style());
                }
                Container::Item { marker, used } => {
                    let blank = text::width(marker);
                    if *used {
                        first.push_spaces(blank);
                    } else {
                        first.push_merged(marker, marker_style());
                    }
                    rest.push_spaces(blank);
                }
            }
        }
        let max = self.width.saturating_sub(1);
        let first_w = self.width.saturating_sub(first.clip(max)).max(1);
        let rest_w = self.width.saturating_sub(rest.clip(max)).max(1);
        Prefixes {
            first,
            rest,
            first_w,
            rest_w,
        }
    }

    /// Emits content lines (laid out for the content widths) behind the prefixes.
    pub(super) fn emit_prefixed(
        &mut self,
        prefixes: Prefixes,
        content: impl IntoIterator<Item = Line>,
    ) {
        let mut emitted = false;
        for (i, mut line) in content.into_iter().enumerate() {
            if self.full() {
                break;
            }
            emitted = true;
            let prefix = if i == 0 {
                &prefixes.first
            } else {
                &prefixes.rest
            };
            if !prefix.spans.is_empty() {
                line.spans.splice(0..0, prefix.spans.iter().cloned());
            }
            // A cell is at least a byte, so only lines of more bytes than cells need measuring.
            let bytes: usize = line.spans.iter().map(|s| s.text.len()).sum();
            if bytes > self.width && line.width() > self.width {
                debug_assert!(false, "markdown line wider than {}", self.width);
                line.clip(self.width);
            }
            self.spans += line.spans.len().max(1);
            self.out.push(line);
        }
        if !emitted {
            return;
        }
        for container in &mut self.containers {
            if let Container::Item { used, .. } = container {
                *used = true;
            }
        }
    }

    /// Wraps `spans` to the content widths and emits the lines, reusing the wrap buffers.
    pub(super) fn emit_wrapped(&mut self, prefixes: Prefixes, spans: &[Span]) {
        let mut lines = std::mem::take(&mut self.wrap_lines);
        lines.clear();
        wrap_styled_into(
            &mut self.wrap_scratch,
            &mut lines,
            spans,
            prefixes.first_w,
            prefixes.rest_w,
        );
        self.emit_prefixed(prefixes, lines.drain(..));
        self.wrap_lines = lines;
    }

    /// A code block: each source line on its own line, indented and hard-wrapped.
    pub(super) fn emit_code(&mut self, code: &str) {
        if code.is_empty() {
            return;
        }
        let prefixes = self.prefixes();
        let room = (limit::MAX_LINES + 1).saturating_sub(self.out.len());
        let lines = code::lines(code, prefixes.first_w, prefixes.rest_w, room);
        self.emit_prefixed(prefixes, lines);
    }

    pub(super) fn emit_table(&mut self, table: Table) {
        let prefixes = self.prefixes();
        let lines = table.lines(prefixes.first_w.min(prefixes.rest_w));
        self.emit_prefixed(prefixes, lines);
    }
}
