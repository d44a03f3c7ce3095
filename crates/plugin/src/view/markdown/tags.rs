//! What the markdown renderer does at the start and end of each block and inline tag: opens
//! and closes containers and lists, starts and finishes paragraphs, headings, code blocks and
//! tables, and turns inline styles on and off.

use super::event::{Tag, TagEnd};

use super::renderer::{Container, Inline, List, Renderer};
use super::table::Table;
use crate::view::limit;
use crate::view::style::{Line, Role, Span, Style};
use crate::view::text::push_sanitized;

impl Renderer {
    pub(super) fn start(&mut self, tag: Tag) {
        match tag {
            Tag::Paragraph => self.start_paragraph(),
            Tag::Heading(level) => {
                self.open_block();
                self.target = Inline::Heading(level);
            }
            Tag::BlockQuote => {
                self.open_block();
                self.containers.push(Container::Quote);
                self.quotes += 1;
            }
            Tag::CodeBlock => {
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
            Tag::Link => self.link += 1,
            Tag::Image => {
                self.push_inline("[image: ", Style::new(Role::Dim));
                self.image += 1;
            }
        }
    }

    /// Ends the inline content before a new block, and gives it the blank line owed.
    pub(super) fn open_block(&mut self) {
        self.flush_inline();
        self.begin_block();
    }

    /// A paragraph; one inside a list item makes its list loose.
    pub(super) fn start_paragraph(&mut self) {
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
    pub(super) fn start_item(&mut self) {
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
    pub(super) fn start_table_row(&mut self, head: bool) {
        if let Some(table) = self.table.as_mut() {
            if head {
                table.in_head = true;
            }
            table.row.clear();
        }
    }

    pub(super) fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::Heading => {
                self.flush_inline();
                self.pending_blank = true;
            }
            TagEnd::BlockQuote => {
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
            TagEnd::List => {
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
        }
    }

    /// An HTML block, shown as its source, dimmed and wrapped.
    pub(super) fn end_html_block(&mut self) {
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
    pub(super) fn end_item(&mut self) {
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
}
