//! The tree of blocks handed on as events, in document order: containers around their
//! content, leaves with their lines (paragraphs, headings and table cells through the inline
//! parser), and paragraphs of tight lists without paragraph tags, as the renderer lays them
//! out.

use super::blocks::{self, trim_end_blanks, Block, Kind};
use super::event::{Alignment, Event, Sink, Tag, TagEnd};
use super::inline::Inline;
use super::starts::cells;

/// Parses `text` and hands its events to `take` until it returns false.
pub(super) fn parse(text: &str, take: &mut dyn FnMut(Event<'_>) -> bool) {
    let blocks = blocks::read(text);
    let mut walk = Walk {
        text,
        blocks: &blocks,
        sink: Sink::new(take),
        joined: String::new(),
        inline: Inline::new(),
    };
    walk.block(0, false);
}

struct Walk<'a, 's> {
    text: &'a str,
    blocks: &'a [Block],
    sink: Sink<'s>,
    /// A paragraph's lines joined when they are not one slice of the text, or a table cell
    /// with its escaped pipes made pipes.
    joined: String,
    inline: Inline,
}

impl<'a> Walk<'a, '_> {
    /// Emits block `id`; `tight` when it is in an item of a tight list.
    fn block(&mut self, id: usize, tight: bool) {
        let blocks = self.blocks;
        let Some(block) = blocks.get(id) else { return };
        if self.sink.stopped() {
            return;
        }
        match &block.kind {
            Kind::Document => self.children(block, false),
            Kind::Quote => {
                self.sink.emit(Event::Start(Tag::BlockQuote));
                self.children(block, false);
                self.sink.emit(Event::End(TagEnd::BlockQuote));
            }
            Kind::List { start, .. } => {
                self.sink.emit(Event::Start(Tag::List(*start)));
                self.children(block, !loose(blocks, block));
                self.sink.emit(Event::End(TagEnd::List));
            }
            Kind::Item { .. } => {
                self.sink.emit(Event::Start(Tag::Item));
                self.children(block, tight);
                self.sink.emit(Event::End(TagEnd::Item));
            }
            Kind::Paragraph => {
                if !tight {
                    self.sink.emit(Event::Start(Tag::Paragraph));
                }
                self.inline(block);
                if !tight {
                    self.sink.emit(Event::End(TagEnd::Paragraph));
                }
            }
            Kind::Heading(level) => {
                self.sink.emit(Event::Start(Tag::Heading(*level)));
                self.inline(block);
                self.sink.emit(Event::End(TagEnd::Heading));
            }
            Kind::Code { .. } => {
                self.sink.emit(Event::Start(Tag::CodeBlock));
                for line in self.lines(block) {
                    self.sink.emit(Event::Text(line));
                    self.sink.emit(Event::Text("\n"));
                }
                self.sink.emit(Event::End(TagEnd::CodeBlock));
            }
            Kind::Html { .. } => {
                self.sink.emit(Event::Start(Tag::HtmlBlock));
                for line in self.lines(block) {
                    self.sink.emit(Event::Html(line));
                    self.sink.emit(Event::Html("\n"));
                }
                self.sink.emit(Event::End(TagEnd::HtmlBlock));
            }
            Kind::Table(alignments) => self.table(block, alignments.clone()),
            Kind::Rule => self.sink.emit(Event::Rule),
        }
    }

    fn children(&mut self, block: &'a Block, tight: bool) {
        for &child in &block.children {
            self.block(child, tight);
        }
    }

    fn lines(&self, block: &'a Block) -> impl Iterator<Item = &'a str> {
        let text = self.text;
        block
            .lines
            .iter()
            .map(move |&(a, b)| text.get(a..b).unwrap_or(""))
    }

    /// A paragraph's or heading's inline content, after its task list marker if any.
    fn inline(&mut self, block: &'a Block) {
        if let Some(checked) = block.task {
            self.sink.emit(Event::TaskListMarker(checked));
        }
        let text = self.text;
        let bytes = text.as_bytes();
        let one_slice = block
            .lines
            .windows(2)
            .all(|w| matches!(w, [(_, end), (next, _)] if *next == end + 1 && bytes.get(*end) == Some(&b'\n')));
        let (Some(&(first, _)), Some(&(_, last))) = (block.lines.first(), block.lines.last())
        else {
            return;
        };
        if one_slice {
            let s = text.get(first..last).unwrap_or("");
            self.inline.parse(trim_end_blanks(s), &mut self.sink);
            return;
        }
        let mut joined = std::mem::take(&mut self.joined);
        joined.clear();
        for (i, line) in self.lines(block).enumerate() {
            if i > 0 {
                joined.push('\n');
            }
            joined.push_str(line);
        }
        self.inline.parse(trim_end_blanks(&joined), &mut self.sink);
        self.joined = joined;
    }

    /// A table: its header row, then its body rows, each with at least the header's cells
    /// (a row's extra cells are kept: text is never dropped).
    fn table(&mut self, block: &'a Block, alignments: Vec<Alignment>) {
        let columns = alignments.len();
        self.sink.emit(Event::Start(Tag::Table(alignments)));
        for (r, row) in self.lines(block).enumerate() {
            let (start, end) = if r == 0 {
                (Tag::TableHead, TagEnd::TableHead)
            } else {
                (Tag::TableRow, TagEnd::TableRow)
            };
            self.sink.emit(Event::Start(start));
            let cells = cells(row);
            for c in 0..columns.max(cells.len()) {
                self.sink.emit(Event::Start(Tag::TableCell));
                if let Some(cell) = cells.get(c) {
                    self.cell(cell);
                }
                self.sink.emit(Event::End(TagEnd::TableCell));
            }
            self.sink.emit(Event::End(end));
        }
        self.sink.emit(Event::End(TagEnd::Table));
    }

    /// A cell's inline content; its escaped pipes are pipes, even in code spans (GFM).
    fn cell(&mut self, cell: &str) {
        if !cell.contains('|') {
            self.inline.parse(cell, &mut self.sink);
            return;
        }
        let mut unescaped = std::mem::take(&mut self.joined);
        unescaped.clear();
        for (i, c) in cell.char_indices() {
            if !(c == '\\' && cell.as_bytes().get(i + 1) == Some(&b'|')) {
                unescaped.push(c);
            }
        }
        self.inline.parse(&unescaped, &mut self.sink);
        self.joined = unescaped;
    }
}

/// Whether a list is loose: blank lines between its items, or between the blocks of one.
fn loose(blocks: &[Block], list: &Block) -> bool {
    let gap = |a: usize, b: usize| match (blocks.get(a), blocks.get(b)) {
        (Some(a), Some(b)) => b.first > a.last + 1,
        _ => false,
    };
    let gaps = |ids: &[usize]| ids.windows(2).any(|w| matches!(w, [a, b] if gap(*a, *b)));
    gaps(&list.children)
        || list
            .children
            .iter()
            .any(|&item| blocks.get(item).is_some_and(|item| gaps(&item.children)))
}
