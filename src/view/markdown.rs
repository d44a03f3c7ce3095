//! Markdown previews: rendered once per request and width into styled lines.
//!
//! pulldown-cmark parses; this module lays the events out like a terminal markdown viewer:
//! paragraphs are word-wrapped once with their inline styles, containers (quotes, list items)
//! become line prefixes, and every emitted line fits the width. All payload text is sanitised
//! on the way in, so no span ever carries a control character or a newline.

use pulldown_cmark::{Alignment, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::view::style::{Line, Role, Span, Style};
use crate::view::text::{
    self, char_width, push_sanitized, sanitize_line, wrap_styled, wrap_styled_into, WrapScratch,
};

/// Renders `md` into lines that each fit in `width` cells (no lines for width 0).
pub fn render(md: &str, width: usize) -> Vec<Line> {
    if width == 0 {
        return Vec::new();
    }
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut renderer = Renderer::new(width);
    for event in Parser::new_ext(md, options) {
        renderer.event(event);
    }
    renderer.finish()
}

/// Word-wraps styled spans to `width` cells; the first line starts with `first_indent`, the
/// others with `rest_indent` (plain text; indents are cut to leave at least one cell).
/// Styles carry across breaks; same rules as [`text::wrap`]. Width 0 gives no lines.
pub fn wrap_spans(
    spans: &[Span],
    width: usize,
    first_indent: &str,
    rest_indent: &str,
) -> Vec<Line> {
    if width == 0 {
        return Vec::new();
    }
    let first_indent = sanitize_line(first_indent);
    let rest_indent = sanitize_line(rest_indent);
    let first_indent = text::truncate(&first_indent, width - 1);
    let rest_indent = text::truncate(&rest_indent, width - 1);
    let first_w = width - text::width(first_indent);
    let rest_w = width - text::width(rest_indent);
    wrap_styled(spans, first_w, rest_w)
        .into_iter()
        .enumerate()
        .map(|(i, content)| {
            let indent = if i == 0 { first_indent } else { rest_indent };
            let mut line = Line::styled(indent, Style::default());
            line.extend(content);
            line
        })
        .collect()
}

const QUOTE_BAR: &str = "│ ";
const CODE_INDENT: usize = 2;

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

#[derive(Default)]
struct Table {
    alignments: Vec<Alignment>,
    /// Rows of cells; the flag marks the header row.
    rows: Vec<(bool, Vec<Vec<Span>>)>,
    row: Vec<Vec<Span>>,
    in_head: bool,
}

/// The prefixes and content widths for the lines of one block.
struct Frame {
    first: Line,
    rest: Line,
    first_w: usize,
    rest_w: usize,
}

struct Renderer {
    width: usize,
    out: Vec<Line>,
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
                let frame = self.frame();
                let rule = Line::styled("─".repeat(frame.first_w), Style::new(Role::Dim));
                self.emit_framed(frame, vec![rule]);
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
            Tag::Paragraph => {
                self.flush_inline();
                self.begin_block();
                if matches!(self.containers.last(), Some(Container::Item { .. })) {
                    if let Some(list) = self.lists.last_mut() {
                        list.loose = true;
                    }
                }
                self.target = Inline::Paragraph;
            }
            Tag::Heading { level, .. } => {
                self.flush_inline();
                self.begin_block();
                self.target = Inline::Heading(level);
            }
            Tag::BlockQuote(_) => {
                self.flush_inline();
                self.begin_block();
                self.containers.push(Container::Quote);
                self.quotes += 1;
            }
            Tag::CodeBlock(_) => {
                self.flush_inline();
                self.begin_block();
                self.code = Some(String::new());
            }
            Tag::HtmlBlock => {
                self.flush_inline();
                self.begin_block();
                self.html = Some(String::new());
            }
            Tag::List(start) => {
                self.flush_inline();
                self.begin_block();
                self.lists.push(List {
                    next: start,
                    loose: false,
                    first_item: true,
                });
            }
            Tag::Item => {
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
            Tag::Table(alignments) => {
                self.flush_inline();
                self.begin_block();
                self.table = Some(Table {
                    alignments,
                    ..Table::default()
                });
            }
            Tag::TableHead => {
                if let Some(table) = self.table.as_mut() {
                    table.in_head = true;
                    table.row.clear();
                }
            }
            Tag::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    table.row.clear();
                }
            }
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
            TagEnd::HtmlBlock => {
                if let Some(html) = self.html.take() {
                    let mut clean = String::with_capacity(html.len());
                    push_sanitized(&mut clean, html.trim_end_matches('\n'), false);
                    let span = [Span {
                        text: clean,
                        style: Style::new(Role::Dim),
                    }];
                    let frame = self.frame();
                    self.emit_wrapped(frame, &span);
                }
                self.pending_blank = true;
            }
            TagEnd::List(_) => {
                self.flush_inline();
                self.lists.pop();
                self.pending_blank = true;
            }
            TagEnd::Item => {
                self.flush_inline();
                if let Some(Container::Item { used: false, .. }) = self.containers.last() {
                    // An empty item still shows its marker.
                    let mut frame = self.frame();
                    frame.first = trim_end(frame.first);
                    self.emit_framed(frame, vec![Line::new()]);
                }
                if matches!(self.containers.last(), Some(Container::Item { .. })) {
                    self.containers.pop();
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.emit_table(table);
                }
                self.pending_blank = true;
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    let row = std::mem::take(&mut table.row);
                    table.rows.push((table.in_head, row));
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
        let frame = self.frame();
        self.emit_wrapped(frame, &spans);
        // Keep the buffer's allocation for the next paragraph.
        self.inline = spans;
        self.inline.clear();
    }

    /// Emits the blank line owed before a new block, if any.
    fn begin_block(&mut self) {
        if std::mem::replace(&mut self.pending_blank, false) && !self.out.is_empty() {
            // No trailing spaces: `│ ` becomes `│`, list indentation disappears.
            let blank = trim_end(self.frame().rest);
            self.out.push(blank);
        }
    }

    /// The prefixes of the containers around the current block, cut to leave at least one
    /// cell for content.
    fn frame(&self) -> Frame {
        if self.containers.is_empty() {
            // Top-level blocks, most of a document: no prefixes to build or measure.
            return Frame {
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
                    push_merged(&mut first, QUOTE_BAR, quote_style());
                    push_merged(&mut rest, QUOTE_BAR, quote_style());
                }
                Container::Item { marker, used } => {
                    let blank = text::width(marker);
                    if *used {
                        push_spaces(&mut first, blank);
                    } else {
                        push_merged(&mut first, marker, marker_style());
                    }
                    push_spaces(&mut rest, blank);
                }
            }
        }
        let max = self.width.saturating_sub(1);
        let first = clip(first, max);
        let rest = clip(rest, max);
        let first_w = self.width.saturating_sub(first.width()).max(1);
        let rest_w = self.width.saturating_sub(rest.width()).max(1);
        Frame {
            first,
            rest,
            first_w,
            rest_w,
        }
    }

    /// Emits content lines (laid out for the frame's widths) behind the frame's prefixes.
    fn emit_framed(&mut self, frame: Frame, content: impl IntoIterator<Item = Line>) {
        let mut emitted = false;
        for (i, mut line) in content.into_iter().enumerate() {
            emitted = true;
            let prefix = if i == 0 { &frame.first } else { &frame.rest };
            if !prefix.spans.is_empty() {
                line.spans.splice(0..0, prefix.spans.iter().cloned());
            }
            // A cell is at least a byte, so only lines of more bytes than cells need measuring.
            let bytes: usize = line.spans.iter().map(|s| s.text.len()).sum();
            let line = if bytes > self.width && line.width() > self.width {
                debug_assert!(false, "markdown line wider than {}", self.width);
                clip(line, self.width)
            } else {
                line
            };
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

    /// Wraps `spans` into the frame and emits the lines, reusing the wrap buffers.
    fn emit_wrapped(&mut self, frame: Frame, spans: &[Span]) {
        let mut lines = std::mem::take(&mut self.wrap_lines);
        lines.clear();
        wrap_styled_into(
            &mut self.wrap_scratch,
            &mut lines,
            spans,
            frame.first_w,
            frame.rest_w,
        );
        self.emit_framed(frame, lines.drain(..));
        self.wrap_lines = lines;
    }

    /// A code block: each source line on its own line, indented and hard-wrapped.
    fn emit_code(&mut self, code: &str) {
        if code.is_empty() {
            return;
        }
        let frame = self.frame();
        let indent_for = |w: usize| if w > CODE_INDENT * 2 { CODE_INDENT } else { 0 };
        let mut lines = Vec::new();
        let mut clean = String::new();
        for source in code.strip_suffix('\n').unwrap_or(code).split('\n') {
            clean.clear();
            push_sanitized(&mut clean, source, true);
            if clean.is_empty() {
                lines.push(Line::new());
                continue;
            }
            let mut rest = clean.as_str();
            while !rest.is_empty() {
                let avail = if lines.is_empty() {
                    frame.first_w
                } else {
                    frame.rest_w
                };
                let indent = indent_for(avail);
                // The indent is part of the code span: a themed code background then shows
                // as a block.
                let mut chunk = String::with_capacity(avail.min(rest.len() + indent));
                chunk.extend(std::iter::repeat_n(' ', indent));
                rest = hard_split_into(&mut chunk, rest, avail - indent);
                lines.push(Line::styled(chunk, Role::Code));
            }
        }
        self.emit_framed(frame, lines);
    }

    fn emit_table(&mut self, table: Table) {
        let columns = table.rows.iter().map(|(_, r)| r.len()).max().unwrap_or(0);
        if columns == 0 {
            return;
        }
        let frame = self.frame();
        let avail = frame.first_w.min(frame.rest_w);
        let separators = 3 * (columns - 1);
        let sep_style = Style::new(Role::Dim);
        let mut lines = Vec::new();
        if separators + columns > avail {
            // Too many columns to give each a cell: one clipped line per row.
            for (header, row) in &table.rows {
                let mut line = Line::new();
                for (c, cell) in row.iter().enumerate() {
                    if c > 0 {
                        line.push(" │ ", sep_style);
                    }
                    line.spans.extend(cell.iter().cloned());
                }
                lines.push(clip(line, avail));
                if *header {
                    lines.push(Line::styled("─".repeat(avail), sep_style));
                }
            }
            self.emit_framed(frame, lines);
            return;
        }
        let widths = column_widths(&table.rows, columns, avail - separators);
        for (header, row) in table.rows {
            let mut row = row.into_iter();
            let mut cells: Vec<Vec<Line>> = widths
                .iter()
                .map(|&w| {
                    let cell = row.next().unwrap_or_default();
                    let cell_w: usize = cell.iter().map(|s| text::width(&s.text)).sum();
                    if cell_w <= w {
                        // Cells hold no newlines (hard breaks become spaces): it fits as is.
                        vec![Line { spans: cell }]
                    } else {
                        wrap_styled(&cell, w, w)
                    }
                })
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            for i in 0..height {
                let mut line = Line::new();
                for (c, (&w, cell)) in widths.iter().zip(&mut cells).enumerate() {
                    if c > 0 {
                        push_merged(&mut line, " │ ", sep_style);
                    }
                    let body = cell.get_mut(i).map(std::mem::take).unwrap_or_default();
                    let fill = w.saturating_sub(body.width());
                    let (left, right) = match table.alignments.get(c) {
                        Some(Alignment::Right) => (fill, 0),
                        Some(Alignment::Center) => (fill / 2, fill - fill / 2),
                        _ => (0, fill),
                    };
                    push_spaces(&mut line, left);
                    for span in body.spans {
                        match line.spans.last_mut() {
                            Some(last) if last.style == span.style => {
                                last.text.push_str(&span.text)
                            }
                            _ => line.spans.push(span),
                        }
                    }
                    if c + 1 < columns {
                        push_spaces(&mut line, right);
                    }
                }
                lines.push(line);
            }
            if header {
                let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
                lines.push(Line::styled(rule.join("─┼─"), sep_style));
            }
        }
        self.emit_framed(frame, lines);
    }
}

/// Column widths for a table: natural widths, the widest cut down first when they do not fit
/// in `budget` (which allows at least one cell per column).
fn column_widths(rows: &[(bool, Vec<Vec<Span>>)], columns: usize, budget: usize) -> Vec<usize> {
    let mut natural = vec![1usize; columns];
    for (_, row) in rows {
        for (c, cell) in row.iter().enumerate() {
            let w: usize = cell.iter().map(|s| text::width(&s.text)).sum();
            if let Some(n) = natural.get_mut(c) {
                *n = (*n).max(w);
            }
        }
    }
    if natural.iter().sum::<usize>() <= budget {
        return natural;
    }
    // The largest cap with sum(min(natural, cap)) <= budget, by binary search.
    let capped = |cap: usize| natural.iter().map(|&n| n.min(cap)).sum::<usize>();
    let (mut lo, mut hi) = (1usize, natural.iter().copied().max().unwrap_or(1));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if capped(mid) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let mut widths: Vec<usize> = natural.iter().map(|&n| n.min(lo)).collect();
    // Hand the cells left over to the columns that were cut.
    let mut spare = budget.saturating_sub(widths.iter().sum());
    for (w, &n) in widths.iter_mut().zip(&natural) {
        if spare == 0 {
            break;
        }
        if n > *w {
            *w += 1;
            spare -= 1;
        }
    }
    widths
}

/// Appends to `out` the longest prefix of `s` that fits in `max` (at least 1) cells and
/// returns the rest; a character too wide to fit on its own becomes `?`.
fn hard_split_into<'s>(out: &mut String, s: &'s str, max: usize) -> &'s str {
    let max = max.max(1);
    let head = text::truncate(s, max);
    if !head.is_empty() || s.is_empty() {
        out.push_str(head);
        return s.get(head.len()..).unwrap_or("");
    }
    // The first character alone is wider than the line.
    let first_len = s.chars().next().map_or(0, char::len_utf8);
    let tail = s.get(first_len..).unwrap_or("");
    // Zero-width characters that belonged to it go with it.
    let zero = tail
        .char_indices()
        .find(|&(_, c)| char_width(c) > 0)
        .map_or(tail.len(), |(i, _)| i);
    out.push('?');
    out.push_str(tail.get(..zero).unwrap_or(""));
    tail.get(zero..).unwrap_or("")
}

/// Appends text to a line, merging with its last span when the style is the same.
fn push_merged(line: &mut Line, text: &str, style: Style) {
    match line.spans.last_mut() {
        Some(last) if last.style == style => last.text.push_str(text),
        _ => line.push(text, style),
    }
}

/// Appends `n` spaces in the default style.
fn push_spaces(line: &mut Line, n: usize) {
    if n > 0 {
        match line.spans.last_mut() {
            Some(last) if last.style == Style::default() => {
                last.text.extend(std::iter::repeat_n(' ', n));
            }
            _ => line.push(" ".repeat(n), Style::default()),
        }
    }
}

/// `line` without trailing spaces.
fn trim_end(mut line: Line) -> Line {
    while let Some(last) = line.spans.last_mut() {
        let trimmed = last.text.trim_end_matches(' ').len();
        last.text.truncate(trimmed);
        if !last.text.is_empty() {
            break;
        }
        line.spans.pop();
    }
    line
}

/// `line` cut to at most `max` cells.
fn clip(mut line: Line, max: usize) -> Line {
    let mut used = 0usize;
    let mut keep = 0usize;
    for span in &mut line.spans {
        let w = text::width(&span.text);
        if used + w <= max {
            used += w;
            keep += 1;
            continue;
        }
        let head_len = text::truncate(&span.text, max - used).len();
        span.text.truncate(head_len);
        if !span.text.is_empty() {
            keep += 1;
        }
        break;
    }
    line.spans.truncate(keep);
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[Line]) -> Vec<String> {
        lines.iter().map(Line::plain).collect()
    }

    fn styles_of<'a>(lines: &'a [Line], text: &str) -> Vec<&'a Style> {
        lines
            .iter()
            .flat_map(|l| &l.spans)
            .filter(|s| s.text.contains(text))
            .map(|s| &s.style)
            .collect()
    }

    fn style_of(lines: &[Line], text: &str) -> Style {
        match styles_of(lines, text).first() {
            Some(style) => **style,
            None => panic!("no span with {text:?} in {:?}", plain(lines)),
        }
    }

    #[test]
    fn headings_are_bold_without_hashes_and_followed_by_a_blank_line() {
        let lines = render("# Title\n## Sub\ntext", 40);
        assert_eq!(plain(&lines), ["Title", "", "Sub", "", "text"]);
        assert_eq!(
            style_of(&lines, "Title"),
            Style::new(Role::Heading).bold().underline()
        );
        assert_eq!(style_of(&lines, "Sub"), Style::new(Role::Heading).bold());
    }

    #[test]
    fn last_heading_has_no_trailing_blank_line() {
        assert_eq!(plain(&render("text\n\n# End", 40)), ["text", "", "End"]);
    }

    #[test]
    fn paragraphs_wrap_and_are_separated_by_one_blank_line() {
        let lines = render("one two three four\n\nfive", 9);
        assert_eq!(plain(&lines), ["one two", "three", "four", "", "five"]);
    }

    #[test]
    fn inline_styles_survive_wrapping() {
        let lines = render("plain *emph word* **strong** ~~gone~~ `code`", 12);
        assert_eq!(plain(&lines), ["plain emph", "word strong", "gone code"]);
        assert_eq!(style_of(&lines, "emph"), Style::new(Role::Text).italic());
        assert_eq!(style_of(&lines, "word"), Style::new(Role::Text).italic());
        assert_eq!(style_of(&lines, "strong"), Style::new(Role::Text).bold());
        assert_eq!(style_of(&lines, "gone"), Style::new(Role::Dim));
        assert_eq!(style_of(&lines, "code"), Style::new(Role::Code));
    }

    #[test]
    fn links_show_their_text_only_and_images_their_alt_text() {
        let lines = render(
            "see [the docs](https://example.com) and ![a cat](cat.png)",
            80,
        );
        assert_eq!(plain(&lines), ["see the docs and [image: a cat]"]);
        assert_eq!(
            style_of(&lines, "the docs"),
            Style::new(Role::Link).underline()
        );
        assert_eq!(style_of(&lines, "a cat"), Style::new(Role::Dim));
    }

    #[test]
    fn soft_breaks_are_spaces_and_hard_breaks_new_lines() {
        assert_eq!(plain(&render("a\nb", 20)), ["a b"]);
        assert_eq!(plain(&render("a  \nb\\\nc", 20)), ["a", "b", "c"]);
    }

    #[test]
    fn bullet_lists_nest_with_hollow_bullets() {
        let md = "- one\n- two\n  - inner\n  - more\n- three";
        assert_eq!(
            plain(&render(md, 40)),
            ["• one", "• two", "  ◦ inner", "  ◦ more", "• three"]
        );
    }

    #[test]
    fn list_continuation_lines_align_with_the_text() {
        let lines = render("- alpha beta gamma\n\n10. delta epsilon", 10);
        assert_eq!(
            plain(&lines),
            [
                "• alpha",
                "  beta",
                "  gamma",
                "",
                "10. delta",
                "    epsilo",
                "    n"
            ]
        );
        assert_eq!(style_of(&lines, "•"), marker_style());
    }

    #[test]
    fn ordered_lists_honour_their_start_number() {
        assert_eq!(plain(&render("3. c\n4. d", 20)), ["3. c", "4. d"]);
    }

    #[test]
    fn loose_lists_keep_blank_lines_between_items() {
        assert_eq!(plain(&render("- a\n\n- b", 20)), ["• a", "", "• b"]);
    }

    #[test]
    fn task_list_markers_are_shown() {
        assert_eq!(
            plain(&render("- [ ] todo\n- [x] done", 20)),
            ["• [ ] todo", "• [x] done"]
        );
    }

    #[test]
    fn empty_list_items_show_their_marker() {
        assert_eq!(plain(&render("-\n- b", 20)), ["•", "• b"]);
    }

    #[test]
    fn block_quotes_prefix_every_line() {
        let lines = render("> quoted text here\n>\n> again\n>> deeper", 12);
        assert_eq!(
            plain(&lines),
            ["│ quoted", "│ text here", "│", "│ again", "│", "│ │ deeper"]
        );
        assert_eq!(style_of(&lines, "quoted"), quote_style());
        assert_eq!(style_of(&lines, "│").role, Role::Quote);
    }

    #[test]
    fn code_blocks_keep_lines_indent_and_hard_wrap() {
        let md = "```rust\nfn main() {\n\n\tlet x = 1;\n}\n```\n\nafter";
        let lines = render(md, 12);
        assert_eq!(
            plain(&lines),
            [
                "  fn main() ",
                "  {",
                "",
                "      let x ",
                "  = 1;",
                "  }",
                "",
                "after"
            ]
        );
        assert_eq!(style_of(&lines, "fn main").role, Role::Code);
        assert!(!plain(&lines).iter().any(|l| l.contains("```")));
    }

    #[test]
    fn indented_code_blocks_render_like_fenced_ones() {
        assert_eq!(
            plain(&render("text\n\n    code  here\n", 20)),
            ["text", "", "  code  here"]
        );
    }

    #[test]
    fn thematic_break_spans_the_width() {
        let lines = render("a\n\n---\n\nb", 5);
        assert_eq!(plain(&lines), ["a", "", "─────", "", "b"]);
        assert_eq!(style_of(&lines, "─"), Style::new(Role::Dim));
    }

    #[test]
    fn tables_join_cells_and_rule_the_header() {
        let md = "| Name | Qty |\n|------|----:|\n| apple | 3 |\n| kiwi | 12 |";
        let lines = render(md, 40);
        assert_eq!(
            plain(&lines),
            ["Name  │ Qty", "──────┼────", "apple │   3", "kiwi  │  12"]
        );
        assert_eq!(style_of(&lines, "Name"), Style::new(Role::Text).bold());
    }

    #[test]
    fn wide_tables_are_cut_to_fit() {
        let md = "| a | b |\n|---|---|\n| a long cell of text | another long cell |";
        let lines = render(md, 20);
        assert!(lines.iter().all(|l| l.width() <= 20), "{:?}", plain(&lines));
        assert!(plain(&lines).iter().any(|l| l.contains("│")));
    }

    #[test]
    fn raw_html_is_shown_dim_and_sanitised() {
        let lines = render("<div>\u{1b}[31mhi</div>\n\ntext <b>x</b>", 40);
        assert_eq!(plain(&lines), ["<div>[31mhi</div>", "", "text <b>x</b>"]);
        assert_eq!(style_of(&lines, "<div>"), Style::new(Role::Dim));
        assert_eq!(style_of(&lines, "<b>"), Style::new(Role::Dim));
    }

    #[test]
    fn control_characters_never_reach_spans() {
        let lines = render("a\u{7}b\u{1b}c \u{202e}d\n\n```\nx\u{9b}y\r\n```", 40);
        for span in lines.iter().flat_map(|l| &l.spans) {
            assert!(!span.text.chars().any(char::is_control), "{span:?}");
        }
        assert_eq!(plain(&lines), ["abc d", "", "  xy"]);
    }

    #[test]
    fn zero_width_renders_nothing() {
        assert!(render("# hi", 0).is_empty());
    }

    #[test]
    fn narrow_widths_still_fit() {
        let md = "> - 1. deep `code` 中文\n>   ```\n>   中文 code\n>   ```";
        for width in 1..12 {
            for line in render(md, width) {
                assert!(line.width() <= width, "{width}: {:?}", line.plain());
            }
        }
    }

    #[test]
    fn wrap_spans_indents_first_and_rest_lines() {
        let spans = [Span {
            text: "one two three".into(),
            style: Style::new(Role::Muted),
        }];
        let lines = wrap_spans(&spans, 8, "- ", "  ");
        assert_eq!(plain(&lines), ["- one", "  two", "  three"]);
        assert_eq!(lines[0].spans[1].style, Style::new(Role::Muted));
        assert!(wrap_spans(&spans, 0, "", "").is_empty());
        assert!(wrap_spans(&spans, 1, "long", "long")
            .iter()
            .all(|l| l.width() <= 1));
    }
}
