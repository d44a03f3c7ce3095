//! What the markdown parser hands the renderer: the blocks and inline spans it opens and
//! closes, and the text between them, borrowed from the input where it can be.

/// A table column's alignment, from the colons of its delimiter row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Alignment {
    None,
    Left,
    Center,
    Right,
}

/// A block or inline span that opens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tag {
    Paragraph,
    /// A heading of level 1 to 6.
    Heading(u8),
    BlockQuote,
    CodeBlock,
    HtmlBlock,
    /// A list: an ordered one's first number, or none for bullets.
    List(Option<u64>),
    Item,
    Table(Vec<Alignment>),
    TableHead,
    TableRow,
    TableCell,
    Emphasis,
    Strong,
    Strikethrough,
    Link,
    Image,
}

/// A block or inline span that closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TagEnd {
    Paragraph,
    Heading,
    BlockQuote,
    CodeBlock,
    HtmlBlock,
    List,
    Item,
    Table,
    TableHead,
    TableRow,
    TableCell,
    Emphasis,
    Strong,
    Strikethrough,
    Link,
    Image,
}

#[derive(Debug, PartialEq, Eq)]
pub(super) enum Event<'a> {
    Start(Tag),
    End(TagEnd),
    /// Text as it is shown (escapes and entities resolved); inside a code block, its lines.
    Text(&'a str),
    /// A code span's content.
    Code(&'a str),
    /// Raw HTML, shown as written: an inline tag, or a line of an HTML block.
    Html(&'a str),
    SoftBreak,
    HardBreak,
    /// A thematic break.
    Rule,
    /// A task list item's `[ ]` (false) or `[x]` (true).
    TaskListMarker(bool),
}

/// Where events go: the renderer, which can ask for no more once its lines are full.
pub(super) struct Sink<'s> {
    take: &'s mut dyn FnMut(Event<'_>) -> bool,
    stopped: bool,
}

impl<'s> Sink<'s> {
    /// A sink that hands each event to `take` until it returns false.
    pub(super) fn new(take: &'s mut dyn FnMut(Event<'_>) -> bool) -> Self {
        Sink {
            take,
            stopped: false,
        }
    }

    pub(super) fn emit(&mut self, event: Event<'_>) {
        if !self.stopped {
            self.stopped = !(self.take)(event);
        }
    }

    /// Whether no more events are wanted: the parser can stop.
    pub(super) fn stopped(&self) -> bool {
        self.stopped
    }
}
