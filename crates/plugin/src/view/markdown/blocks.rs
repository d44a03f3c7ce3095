//! The block structure of a markdown text: its lines read one at a time into a tree of quotes,
//! lists and items and the leaf blocks in them (paragraphs, headings, code, HTML, GFM tables,
//! rules), following the parsing strategy of the CommonMark spec. What a line can start is in
//! `starts.rs`; the tree becomes events in `emit.rs`.

use super::event::Alignment;

/// The most blocks open at once (the document, quotes, lists, items, a leaf): markers deeper
/// than that are read as text, so no text makes the tree, or the walk over it, deeper.
pub(super) const MAX_OPEN: usize = 32;

pub(super) enum Kind {
    Document,
    Quote,
    /// A list: its marker (`-`, `+` or `*`, or the `.` or `)` after an ordered one's number),
    /// and an ordered one's first number.
    List {
        marker: u8,
        start: Option<u64>,
    },
    /// A list item: the columns its content is indented by.
    Item {
        indent: usize,
    },
    Paragraph,
    Heading(u8),
    /// A code block: its fence's character (0 for an indented block), length and indentation.
    Code {
        fence: u8,
        len: usize,
        indent: usize,
    },
    /// An HTML block: the text a line contains to end it, or none when a blank line does.
    Html {
        end: Option<&'static str>,
    },
    Table(Vec<Alignment>),
    Rule,
}

pub(super) struct Block {
    pub(super) kind: Kind,
    pub(super) children: Vec<usize>,
    /// A leaf's lines: byte ranges of the text, without line endings and container markers.
    pub(super) lines: Vec<(usize, usize)>,
    /// Its first line and its last with content: blank lines between the items of a list,
    /// or between the blocks of an item, make the list loose.
    pub(super) first: usize,
    pub(super) last: usize,
    /// The task list marker (`[ ]`: false, `[x]`: true) a paragraph began with.
    pub(super) task: Option<bool>,
}

/// How a line goes on with a block open before it.
enum Continues {
    Yes,
    No,
    /// The line closed the block (a closing fence) and is used up.
    Closed,
}

/// What a line starts at its current position.
pub(super) enum Start {
    None,
    /// A container (quote, list item): more may start after its marker.
    Container,
    /// A leaf block that takes the rest of the line as its first line.
    Leaf,
    /// A block that used up the line (heading, rule, fence, setext underline, table).
    Done,
}

/// The blocks of `text`; the first is the document.
pub(super) fn read(text: &str) -> Vec<Block> {
    let mut parser = Parser {
        text,
        blocks: vec![Block::new(Kind::Document, 0)],
        open: vec![0],
        line_no: 0,
        line: "",
        at: 0,
        offset: 0,
        column: 0,
        nonspace: 0,
        nonspace_column: 0,
        indent: 0,
        blank: true,
        matched: 1,
        all_closed: true,
    };
    let mut start = 0;
    while start < text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line = &text[start..end];
        parser.line = line.strip_suffix('\r').unwrap_or(line);
        parser.at = start;
        parser.incorporate();
        start = end + 1;
    }
    while parser.open.len() > 1 {
        parser.close_tip();
    }
    parser.blocks
}

impl Block {
    fn new(kind: Kind, line: usize) -> Self {
        Block {
            kind,
            children: Vec::new(),
            lines: Vec::new(),
            first: line,
            last: line,
            task: None,
        }
    }
}

pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) blocks: Vec<Block>,
    /// The open blocks, from the document down to the innermost.
    pub(super) open: Vec<usize>,
    line_no: usize,
    /// The line being read, without its ending, and where it is in the text.
    pub(super) line: &'a str,
    at: usize,
    /// How far into the line it has been read, in bytes and in columns (tabs to stops of 4).
    pub(super) offset: usize,
    pub(super) column: usize,
    /// The first character after `offset` that is not a space or tab, and how far it is
    /// indented from `offset`.
    pub(super) nonspace: usize,
    nonspace_column: usize,
    pub(super) indent: usize,
    pub(super) blank: bool,
    /// How many of the open blocks the line continues, and whether those it does not have
    /// been closed yet (they stay open for a lazy continuation line).
    pub(super) matched: usize,
    pub(super) all_closed: bool,
}

impl<'a> Parser<'a> {
    /// Reads one line into the tree.
    fn incorporate(&mut self) {
        self.line_no += 1;
        self.offset = 0;
        self.column = 0;
        let mut matched = 1;
        while let Some(&id) = self.open.get(matched) {
            self.find_nonspace();
            match self.continues(id) {
                Continues::Yes => matched += 1,
                Continues::No => break,
                Continues::Closed => {
                    self.touch();
                    self.close_tip();
                    return;
                }
            }
        }
        self.matched = matched;
        self.all_closed = matched == self.open.len();
        let mut container = self.open.get(matched - 1).copied().unwrap_or(0);
        let mut leaf = self.takes_lines(container);
        while !leaf {
            self.find_nonspace();
            match self.start(container) {
                Start::None => break,
                Start::Container => container = self.tip(),
                Start::Leaf => leaf = true,
                Start::Done => {
                    self.touch();
                    return;
                }
            }
        }
        // A line with a quote marker is not blank for the lists around the quote.
        let quoted = matches!(self.kind(container), Kind::Quote);
        let tip = self.tip();
        let paragraph = matches!(self.kind(tip), Kind::Paragraph);
        if !self.all_closed && !self.blank && paragraph {
            // A lazy continuation line: the paragraph goes on though its containers do not.
            self.add_line(tip, self.nonspace);
            self.touch();
            return;
        }
        self.close_unmatched();
        let tip = self.tip();
        let mut content = !self.blank || quoted;
        let mut ends = false;
        match self.kind(tip) {
            Kind::Code { fence, .. } => {
                content |= *fence != 0;
                self.add_line(tip, self.offset);
            }
            Kind::Html { end } => {
                let end = *end;
                content |= end.is_some();
                self.add_line(tip, self.offset);
                let rest = self.line.get(self.offset..).unwrap_or("");
                ends = end.is_some_and(|end| contains_ignoring_case(rest, end));
            }
            Kind::Table(_) => self.add_line(tip, self.offset),
            Kind::Paragraph => self.add_line(tip, self.nonspace),
            _ if !self.blank => self.paragraph(),
            _ => {}
        }
        if content {
            self.touch();
        }
        if ends {
            self.close_tip();
        }
    }

    /// Whether the line goes on with the open block `id`, reading past its marker if so.
    fn continues(&mut self, id: usize) -> Continues {
        let Some(block) = self.blocks.get(id) else {
            return Continues::No;
        };
        let yes = |ok: bool| if ok { Continues::Yes } else { Continues::No };
        match block.kind {
            Kind::Document | Kind::List { .. } => Continues::Yes,
            Kind::Quote => {
                let quoted = self.indent < 4 && self.peek(self.nonspace) == b'>';
                if quoted {
                    self.skip_to_nonspace();
                    self.advance_bytes(1);
                    if matches!(self.peek(self.offset), b' ' | b'\t') {
                        self.advance_columns(1);
                    }
                }
                yes(quoted)
            }
            Kind::Item { indent } => {
                if self.blank {
                    // An item can begin with one blank line, not two.
                    if block.children.is_empty() {
                        return Continues::No;
                    }
                    self.skip_to_nonspace();
                } else if self.indent >= indent {
                    self.advance_columns(indent);
                } else {
                    return Continues::No;
                }
                Continues::Yes
            }
            Kind::Code { fence: 0, .. } => {
                if self.indent >= 4 {
                    self.advance_columns(4);
                } else if self.blank {
                    self.skip_to_nonspace();
                } else {
                    return Continues::No;
                }
                Continues::Yes
            }
            Kind::Code { fence, len, indent } => {
                let rest = self.rest().as_bytes();
                let run = rest.iter().take_while(|&&b| b == fence).count();
                let closing = self.indent < 4
                    && run >= len
                    && rest
                        .get(run..)
                        .is_some_and(|after| after.iter().all(|&b| b == b' ' || b == b'\t'));
                if closing {
                    return Continues::Closed;
                }
                // The content loses as much indentation as its opening fence had.
                let mut left = indent;
                while left > 0 && matches!(self.peek(self.offset), b' ' | b'\t') {
                    self.advance_columns(1);
                    left -= 1;
                }
                Continues::Yes
            }
            Kind::Html { end: None } | Kind::Paragraph => yes(!self.blank),
            Kind::Html { .. } => Continues::Yes,
            Kind::Table(_) => yes(!self.blank && self.rest().contains('|')),
            Kind::Heading(_) | Kind::Rule => Continues::No,
        }
    }

    /// Whether the block takes whole lines as they come, so nothing can start in them.
    fn takes_lines(&self, id: usize) -> bool {
        matches!(
            self.kind(id),
            Kind::Code { .. } | Kind::Html { .. } | Kind::Table(_)
        )
    }

    /// A paragraph begins with the rest of the line (after a task list marker at an item's
    /// start, which it keeps aside).
    fn paragraph(&mut self) {
        let parent = self.tip();
        let mut from = self.nonspace;
        let mut task = None;
        let item_starts = self.blocks.get(parent).is_some_and(|b| {
            matches!(b.kind, Kind::Item { .. }) && b.children.is_empty() && b.first == self.line_no
        });
        if item_starts {
            let rest = self.rest();
            let checked = match rest.get(..3) {
                Some("[ ]") => Some(false),
                Some("[x]" | "[X]") => Some(true),
                _ => None,
            };
            let after = rest.get(3..).unwrap_or("");
            let text = trim_start_blanks(after);
            if checked.is_some() && text.len() < after.len() && !text.is_empty() {
                task = checked;
                from = self.line.len() - text.len();
            }
        }
        let id = self.add_child(Kind::Paragraph);
        self.add_line(id, from);
        if let Some(block) = self.blocks.get_mut(id) {
            block.task = task;
        }
    }

    /// Adds a block under the innermost open block that can hold it, closing those that
    /// cannot.
    pub(super) fn add_child(&mut self, kind: Kind) -> usize {
        while self.open.len() > 1 && !self.can_hold(self.tip(), &kind) {
            self.close_tip();
        }
        let id = self.blocks.len();
        self.blocks.push(Block::new(kind, self.line_no));
        let parent = self.tip();
        if let Some(parent) = self.blocks.get_mut(parent) {
            parent.children.push(id);
        }
        self.open.push(id);
        id
    }

    fn can_hold(&self, parent: usize, child: &Kind) -> bool {
        let item = matches!(child, Kind::Item { .. });
        match self.kind(parent) {
            Kind::Document | Kind::Quote | Kind::Item { .. } => !item,
            Kind::List { .. } => item,
            _ => false,
        }
    }

    /// Adds the line from byte `from` to the leaf `id`.
    pub(super) fn add_line(&mut self, id: usize, from: usize) {
        let range = (
            self.at + from.min(self.line.len()),
            self.at + self.line.len(),
        );
        if let Some(block) = self.blocks.get_mut(id) {
            block.lines.push(range);
        }
    }

    /// Closes the open blocks the line did not continue, once it is known not to be lazy.
    pub(super) fn close_unmatched(&mut self) {
        if !self.all_closed {
            while self.open.len() > self.matched.max(1) {
                self.close_tip();
            }
            self.all_closed = true;
        }
    }

    /// Closes the innermost open block.
    pub(super) fn close_tip(&mut self) {
        let Some(id) = self.open.pop() else { return };
        let text = self.text;
        if let Some(block) = self.blocks.get_mut(id) {
            if let Kind::Code { fence: 0, .. } = block.kind {
                // Blank lines at the end of an indented code block are not part of it.
                while block
                    .lines
                    .last()
                    .is_some_and(|&(a, b)| text.get(a..b).is_none_or(|l| l.bytes().all(is_blank)))
                {
                    block.lines.pop();
                }
            }
        }
        if self.open.is_empty() {
            self.open.push(0);
        }
    }

    /// The line has content for every open block.
    fn touch(&mut self) {
        for &id in &self.open {
            if let Some(block) = self.blocks.get_mut(id) {
                block.last = self.line_no;
            }
        }
    }

    pub(super) fn tip(&self) -> usize {
        self.open.last().copied().unwrap_or(0)
    }

    pub(super) fn kind(&self, id: usize) -> &Kind {
        self.blocks.get(id).map_or(&Kind::Document, |b| &b.kind)
    }

    pub(super) fn line_no(&self) -> usize {
        self.line_no
    }

    /// How many blocks are open for what the line starts.
    pub(super) fn depth(&self) -> usize {
        if self.all_closed {
            self.open.len()
        } else {
            self.matched
        }
    }

    /// The line from its first non-space character on.
    pub(super) fn rest(&self) -> &'a str {
        self.line.get(self.nonspace..).unwrap_or("")
    }

    /// The byte at `i` of the line, 0 past its end.
    pub(super) fn peek(&self, i: usize) -> u8 {
        self.line.as_bytes().get(i).copied().unwrap_or(0)
    }

    /// The byte range in the text of `s`, a slice of the line.
    pub(super) fn range_of(&self, s: &str) -> (usize, usize) {
        let start = (s.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize);
        (start, start + s.len())
    }

    /// Finds the first character after `offset` that is not a space or tab.
    pub(super) fn find_nonspace(&mut self) {
        let bytes = self.line.as_bytes();
        let (mut i, mut column) = (self.offset, self.column);
        while let Some(&b) = bytes.get(i) {
            match b {
                b' ' => column += 1,
                b'\t' => column += 4 - column % 4,
                _ => break,
            }
            i += 1;
        }
        self.nonspace = i;
        self.nonspace_column = column;
        self.indent = column - self.column;
        self.blank = i >= bytes.len();
    }

    pub(super) fn skip_to_nonspace(&mut self) {
        self.offset = self.nonspace;
        self.column = self.nonspace_column;
    }

    /// Reads past `n` ASCII characters that are not tabs.
    pub(super) fn advance_bytes(&mut self, n: usize) {
        let n = n.min(self.line.len().saturating_sub(self.offset));
        self.offset += n;
        self.column += n;
    }

    /// Reads past `n` columns. Of a tab wider than what is left, only the columns needed are
    /// read: the rest of it still indents what follows (and stays in a code line's text, where
    /// CommonMark would make it spaces).
    pub(super) fn advance_columns(&mut self, mut n: usize) {
        while n > 0 {
            match self.line.as_bytes().get(self.offset) {
                Some(b'\t') => {
                    let tab = 4 - self.column % 4;
                    if tab > n {
                        self.column += n;
                        return;
                    }
                    self.column += tab;
                    n -= tab;
                }
                Some(_) => {
                    self.column += 1;
                    n -= 1;
                }
                None => break,
            }
            self.offset += 1;
        }
    }
}

/// Whether `hay` contains `needle`, ASCII letters compared without case.
pub(super) fn contains_ignoring_case(hay: &str, needle: &str) -> bool {
    let needle = needle.as_bytes();
    !needle.is_empty()
        && hay
            .as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

/// Whether a byte is a space or a tab.
pub(super) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `s` without the spaces and tabs that begin it.
pub(super) fn trim_start_blanks(s: &str) -> &str {
    let n = s.bytes().take_while(|&b| is_blank(b)).count();
    s.get(n..).unwrap_or("")
}

/// `s` without the spaces and tabs that end it.
pub(super) fn trim_end_blanks(s: &str) -> &str {
    let n = s.bytes().rev().take_while(|&b| is_blank(b)).count();
    s.get(..s.len() - n).unwrap_or("")
}

/// `s` without the spaces and tabs around it.
pub(super) fn trim_blanks(s: &str) -> &str {
    trim_end_blanks(trim_start_blanks(s))
}
