//! Markdown previews: rendered once per request and width into styled lines.
//!
//! pulldown-cmark parses; this module lays the events out like a terminal markdown viewer:
//! paragraphs are word-wrapped once with their inline styles, containers (quotes, list items)
//! become line prefixes, and every emitted line fits the width. All payload text is sanitised
//! on the way in, so no span ever carries a control character or a newline.

mod code;
mod pieces;
mod table;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use self::table::Table;
use crate::view::limit;
use crate::view::style::{Line, Role, Span, Style};
use crate::view::text::{self, push_sanitized};
use crate::view::wrap::{wrap_styled_into, WrapScratch};

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

const QUOTE_BAR: &str = "│ ";

fn quote_style() -> Style {
    Style::new(Role::Quote).italic()
}

fn marker_style() -> Style {
    Style::new(Role::Muted)
}

/// A block that prefixes the lines of what it contains.
enum Container {
    Quote,
    /// A list item: its marker goes on its first line, spaces of the same width on the rest.
    Item {
        marker: String,
        used: bool,
    },
}

struct List {
    /// The next number of an ordered list.
    next: Option<u64>,
    /// A loose list (its items hold paragraphs) keeps blank lines between items.
    loose: bool,
    first_item: bool,
}

/// What inline content is being collected for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inline {
    None,
    Paragraph,
    /// Text outside any paragraph: the items of a tight list.
    Implicit,
    Heading(HeadingLevel),
    Cell,
}

/// What the containers around a block (quotes, list items) put before each of its lines,
/// and the cells left for content on the first line and on the others.
struct Prefixes {
    first: Line,
    rest: Line,
    first_w: usize,
    rest_w: usize,
}

struct Renderer {
    width: usize,
    out: Vec<Line>,
    /// The styled runs in `out` (a line without any counts as one).
    spans: usize,
    containers: Vec<Container>,
    lists: Vec<List>,
    /// A blank line is owed before the next block (never at the start or the end).
    pending_blank: bool,
    inline: Vec<Span>,
    target: Inline,
    emphasis: usize,
    strong: usize,
    strike: usize,
    link: usize,
    image: usize,
    quotes: usize,
    code: Option<String>,
    html: Option<String>,
    table: Option<Table>,
    wrap_scratch: WrapScratch,
    wrap_lines: Vec<Line>,
}

impl Renderer {
    fn new(width: usize) -> Self {
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
    fn full(&self) -> bool {
        self.out.len() > limit::MAX_LINES || self.spans > limit::MAX_SPANS
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                if let Some(code) = self.code.as_mut() {
                    code.push_str(&t);
                } else if let Some(html) = self.html.as_mut() {
                    html.push_str(&t);
                } else {
                    self.push_inline(&t, self.style());
                }
            }
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                let style = Style {
                    role: Role::Code,
                    ..self.style()
                };
                self.push_inline(&t, style);
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                if let Some(html) = self.html.as_mut() {
                    html.push_str(&t);
                } else {
                    self.push_inline(&t, Style::new(Role::Dim));
                }
            }
            Event::FootnoteReference(label) => {
                self.push_inline(&format!("[^{label}]"), Style::new(Role::Dim));
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

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.start_paragraph(),
            Tag::Heading { level, .. } => {
                self.open_block();
                self.target = Inline::Heading(level);
            }
            Tag::BlockQuote(_) => {
                self.open_block();
                self.containers.push(Container::Quote);
                self.quotes += 1;
            }
            Tag::CodeBlock(_) => {
                self.open_block();
                self.code = Some(String::new());
            }
            Tag::HtmlBlock => {
                self.open_block();
                self.html = Some(String::new());
            }
            Tag::List(start) => {
                self.open_block();
                self.lists.push(List {
                    next: start,
                    loose: false,
                    first_item: true,
                });
            }
            Tag::Item => self.start_item(),
            Tag::Table(alignments) => {
                self.open_block();
                self.table = Some(Table {
                    alignments,
                    ..Table::default()
                });
            }
            Tag::TableHead => self.start_table_row(true),
            Tag::TableRow => self.start_table_row(false),
            Tag::TableCell => {
                self.inline.clear();
                self.target = Inline::Cell;
            }
            Tag::Emphasis => self.emphasis += 1,
            Tag::Strong => self.strong += 1,
            Tag::Strikethrough => self.strike += 1,
            Tag::Link { .. } => self.link += 1,
            Tag::Image { .. } => {
                self.push_inline("[image: ", Style::new(Role::Dim));
                self.image += 1;
            }
            // Not enabled in the parser options; their content flows as ordinary text.
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Superscript
            | Tag::Subscript
            | Tag::MetadataBlock(_) => {}
        }
    }

    /// Ends the inline content before a new block, and gives it the blank line owed.
    fn open_block(&mut self) {
        self.flush_inline();
        self.begin_block();
    }

    /// A paragraph; one inside a list item makes its list loose.
    fn start_paragraph(&mut self) {
        self.open_block();
        if matches!(self.containers.last(), Some(Container::Item { .. })) {
            if let Some(list) = self.lists.last_mut() {
                list.loose = true;
            }
        }
        self.target = Inline::Paragraph;
    }

    /// A list item: its marker (the next number of an ordered list, else a bullet by depth),
    /// and no blank line from the item before in a tight list.
    fn start_item(&mut self) {
        self.flush_inline();
        let depth = self.lists.len().saturating_sub(1);
        let marker = match self.lists.last_mut() {
            Some(list) => {
                if !std::mem::replace(&mut list.first_item, false) && !list.loose {
                    self.pending_blank = false;
                }
                match list.next.as_mut() {
                    Some(n) => {
                        let marker = format!("{n}. ");
                        *n = n.saturating_add(1);
                        marker
                    }
                    None if depth == 0 => "• ".to_owned(),
                    None => "◦ ".to_owned(),
                }
            }
            None => "• ".to_owned(),
        };
        self.begin_block();
        self.containers.push(Container::Item {
            marker,
            used: false,
        });
    }

    /// A table's row begins (its head, when `head`).
    fn start_table_row(&mut self, head: bool) {
        if let Some(table) = self.table.as_mut() {
            if head {
                table.in_head = true;
            }
            table.row.clear();
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::Heading(_) => {
                self.flush_inline();
                self.pending_blank = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush_inline();
                if matches!(self.containers.last(), Some(Container::Quote)) {
                    self.containers.pop();
                }
                self.quotes = self.quotes.saturating_sub(1);
                self.pending_blank = true;
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    self.emit_code(&code);
                }
                self.pending_blank = true;
            }
            TagEnd::HtmlBlock => self.end_html_block(),
            TagEnd::List(_) => {
                self.flush_inline();
                self.lists.pop();
                self.pending_blank = true;
            }
            TagEnd::Item => self.end_item(),
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.emit_table(table);
                }
                self.pending_blank = true;
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    let row = std::mem::take(&mut table.row);
                    // A row is a line at least: rows beyond what is kept are not held.
                    if self.out.len() + table.rows.len() <= limit::MAX_LINES {
                        table.rows.push((table.in_head, row));
                    }
                    table.in_head = false;
                }
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                if let Some(table) = self.table.as_mut() {
                    table.row.push(cell);
                }
                self.target = Inline::None;
            }
            TagEnd::Emphasis => self.emphasis = self.emphasis.saturating_sub(1),
            TagEnd::Strong => self.strong = self.strong.saturating_sub(1),
            TagEnd::Strikethrough => self.strike = self.strike.saturating_sub(1),
            TagEnd::Link => self.link = self.link.saturating_sub(1),
            TagEnd::Image => {
                self.image = self.image.saturating_sub(1);
                self.push_inline("]", Style::new(Role::Dim));
            }
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::MetadataBlock(_) => {}
        }
    }

    /// An HTML block, shown as its source, dimmed and wrapped.
    fn end_html_block(&mut self) {
        if let Some(html) = self.html.take() {
            let mut clean = String::with_capacity(html.len());
            push_sanitized(&mut clean, html.trim_end_matches('\n'), false);
            let span = [Span {
                text: clean,
                style: Style::new(Role::Dim),
            }];
            let prefixes = self.prefixes();
            self.emit_wrapped(prefixes, &span);
        }
        self.pending_blank = true;
    }

    /// A list item ends; an empty one still shows its marker.
    fn end_item(&mut self) {
        self.flush_inline();
        if let Some(Container::Item { used: false, .. }) = self.containers.last() {
            let mut prefixes = self.prefixes();
            prefixes.first.trim_end();
            self.emit_prefixed(prefixes, vec![Line::new()]);
        }
        if matches!(self.containers.last(), Some(Container::Item { .. })) {
            self.containers.pop();
        }
    }

    fn finish(mut self) -> Vec<Line> {
        self.flush_inline();
        if let Some(code) = self.code.take() {
            self.emit_code(&code);
        }
        self.out
    }

    /// The style of inline text at this point.
    fn style(&self) -> Style {
        if self.image > 0 {
            return Style::new(Role::Dim);
        }
        let mut style = match self.target {
            Inline::Heading(level) => {
                let heading = Style::new(Role::Heading).bold();
                if level == HeadingLevel::H1 {
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
    fn push_inline(&mut self, text: &str, style: Style) {
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
    fn push_inline_raw(&mut self, text: &str, style: Style) {
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
    fn open_inline(&mut self) {
        if self.target == Inline::None {
            self.begin_block();
            self.target = Inline::Implicit;
        }
    }

    /// Wraps and emits the collected inline content of a paragraph or heading.
    fn flush_inline(&mut self) {
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
    fn begin_block(&mut self) {
        if std::mem::replace(&mut self.pending_blank, false) && !self.out.is_empty() {
            // No trailing spaces: `│ ` becomes `│`, list indentation disappears.
            let mut blank = self.prefixes().rest;
            blank.trim_end();
            self.out.push(blank);
        }
    }

    /// The prefixes of the containers around the current block, cut to leave at least one
    /// cell for content.
    fn prefixes(&self) -> Prefixes {
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
    fn emit_prefixed(&mut self, prefixes: Prefixes, content: impl IntoIterator<Item = Line>) {
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
    fn emit_wrapped(&mut self, prefixes: Prefixes, spans: &[Span]) {
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
    fn emit_code(&mut self, code: &str) {
        if code.is_empty() {
            return;
        }
        let prefixes = self.prefixes();
        let room = (limit::MAX_LINES + 1).saturating_sub(self.out.len());
        let lines = code::lines(code, prefixes.first_w, prefixes.rest_w, room);
        self.emit_prefixed(prefixes, lines);
    }

    fn emit_table(&mut self, table: Table) {
        let prefixes = self.prefixes();
        let lines = table.lines(prefixes.first_w.min(prefixes.rest_w));
        self.emit_prefixed(prefixes, lines);
    }
}

#[cfg(test)]
mod tests;
