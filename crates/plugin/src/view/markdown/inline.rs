//! Inline markdown: the text of a paragraph, heading or table cell read into tokens (text, code
//! spans, raw HTML, breaks, delimiter runs, brackets), links matched at each `]` and emphasis
//! with CommonMark's delimiter stack (`emphasis.rs`), then handed on as events. Every
//! character that is not syntax that was used ends up in some event's text.

use super::emphasis::{Delim, Mark, NONE};
use super::event::{Event, Sink, Tag, TagEnd};
use super::scan::{self, Entity, Memo};

#[derive(Clone, Copy)]
pub(super) enum Tok {
    /// Text: a byte range of the input.
    Text(usize, usize),
    /// What an entity stands for.
    Str(&'static str),
    Char(char),
    Code(usize, usize),
    Html(usize, usize),
    Soft,
    Hard,
    /// A run of `*`, `_` or `~` at `at`, of which `len` are still shown as text, and the
    /// spans it opens and closes (lists in `Inline::marks`, the last matched first).
    Delim {
        at: usize,
        len: usize,
        opens: usize,
        closes: usize,
    },
    /// A `[` (or `![`) that did not open a link (yet).
    Bracket {
        at: usize,
        image: bool,
    },
    LinkStart {
        image: bool,
    },
    LinkEnd {
        image: bool,
    },
}

/// A `[` or `![` that may open a link.
struct Bracket {
    tok: usize,
    image: bool,
    /// The first delimiter run after it: those are the link text's.
    bottom: usize,
}

/// The buffers of inline parsing, kept from one text to the next.
pub(super) struct Inline {
    pub(super) toks: Vec<Tok>,
    pub(super) delims: Vec<Delim>,
    pub(super) marks: Vec<Mark>,
    brackets: Vec<Bracket>,
    /// Brackets below this index are inactive (no links in links), images apart.
    active_from: usize,
    /// The spans a run closes, to hand on the first matched first.
    closes: Vec<TagEnd>,
    /// Per length, the last backtick run of that length seen, and whether the text has been
    /// read to its end for them: an opening run with none after it is then known at once.
    ticks: [usize; 32],
    ticks_read: bool,
    memo: Memo,
}

impl Inline {
    pub(super) fn new() -> Self {
        Inline {
            toks: Vec::new(),
            delims: Vec::new(),
            marks: Vec::new(),
            brackets: Vec::new(),
            active_from: 0,
            closes: Vec::new(),
            ticks: [0; 32],
            ticks_read: false,
            memo: Memo::new(),
        }
    }

    /// Parses `s` (lines joined by `\n`, without the paragraph's leading and trailing
    /// whitespace) and hands its events to `sink`.
    pub(super) fn parse(&mut self, s: &str, sink: &mut Sink) {
        self.toks.clear();
        self.delims.clear();
        self.marks.clear();
        self.brackets.clear();
        self.active_from = 0;
        self.ticks = [0; 32];
        self.ticks_read = false;
        self.memo = Memo::new();
        self.tokenize(s);
        self.process_emphasis(0);
        self.emit(s, sink);
    }

    fn tokenize(&mut self, s: &str) {
        let b = s.as_bytes();
        let mut start = 0;
        let mut i = 0;
        while let Some(&c) = b.get(i) {
            let next = match c {
                b'\n' => {
                    let line = b.get(start..i).unwrap_or(&[]);
                    let text_end = i - trailing(line, b" \t");
                    let spaces = trailing(line, b" ");
                    self.text(start, text_end);
                    self.toks
                        .push(if spaces >= 2 { Tok::Hard } else { Tok::Soft });
                    Some(skip_blanks(b, i + 1))
                }
                b'\\' => match b.get(i + 1) {
                    Some(b'\n') => {
                        self.text(start, i);
                        self.toks.push(Tok::Hard);
                        Some(skip_blanks(b, i + 2))
                    }
                    Some(p) if p.is_ascii_punctuation() => {
                        self.text(start, i);
                        self.toks.push(Tok::Text(i + 1, i + 2));
                        Some(i + 2)
                    }
                    _ => None,
                },
                b'`' => {
                    let n = run(b, i);
                    match self.code_close(s, i, n) {
                        Some(close) => {
                            self.text(start, i);
                            let (mut from, mut to) = (i + n, close);
                            let spaced = |c: Option<&u8>| matches!(c, Some(b' ' | b'\n'));
                            let content = b.get(from..to).unwrap_or(&[]);
                            if spaced(content.first())
                                && spaced(content.last())
                                && content.iter().any(|&c| c != b' ' && c != b'\n')
                            {
                                from += 1;
                                to -= 1;
                            }
                            self.toks.push(Tok::Code(from, to));
                            Some(close + n)
                        }
                        // Backticks that open no code span are text.
                        None => {
                            i += n;
                            continue;
                        }
                    }
                }
                b'*' | b'_' | b'~' => {
                    let n = run(b, i);
                    if c == b'~' && n > 2 {
                        i += n;
                        continue;
                    }
                    self.text(start, i);
                    self.delim(b, i, n);
                    Some(i + n)
                }
                b'[' => {
                    self.text(start, i);
                    self.bracket(i, false);
                    Some(i + 1)
                }
                b'!' if b.get(i + 1) == Some(&b'[') => {
                    self.text(start, i);
                    self.bracket(i, true);
                    Some(i + 2)
                }
                b']' => self.close_bracket(s, start, i),
                b'<' => {
                    if let Some(end) = scan::autolink(s, i) {
                        self.text(start, i);
                        self.toks.push(Tok::LinkStart { image: false });
                        self.toks.push(Tok::Text(i + 1, end - 1));
                        self.toks.push(Tok::LinkEnd { image: false });
                        Some(end)
                    } else if let Some(end) = scan::html_tag(s, i, &mut self.memo) {
                        self.text(start, i);
                        self.toks.push(Tok::Html(i, end));
                        Some(end)
                    } else {
                        None
                    }
                }
                b'&' => scan::entity(s, i).map(|(end, entity)| {
                    self.text(start, i);
                    self.toks.push(match entity {
                        Entity::Named(text) => Tok::Str(text),
                        Entity::Numeric(c) => Tok::Char(c),
                    });
                    end
                }),
                _ => None,
            };
            match next {
                Some(next) => {
                    i = next;
                    start = next;
                }
                None => i += 1,
            }
        }
        self.text(start, b.len());
    }

    fn text(&mut self, from: usize, to: usize) {
        if from < to {
            self.toks.push(Tok::Text(from, to));
        }
    }

    /// Where the code span whose opening run of `n` backticks is at `i` closes: the next run
    /// of exactly `n`.
    fn code_close(&mut self, s: &str, i: usize, n: usize) -> Option<usize> {
        if self.ticks_read && self.ticks.get(n).is_some_and(|&last| last <= i) {
            return None;
        }
        let b = s.as_bytes();
        let mut j = i + n;
        while let Some(k) = b
            .get(j..)
            .and_then(|rest| rest.iter().position(|&c| c == b'`'))
        {
            let at = j + k;
            let len = run(b, at);
            if let Some(last) = self.ticks.get_mut(len) {
                *last = (*last).max(at);
            }
            if len == n {
                return Some(at);
            }
            j = at + len;
        }
        self.ticks_read = true;
        None
    }

    /// A delimiter run of `n` at `i`: whether it can open or close emphasis follows from the
    /// characters around it (CommonMark's flanking rules, with non-ASCII characters read as
    /// letters). Like `_`, a single `~` does not work inside words (`~/a~b` stays as written);
    /// `~~` does, like `*`.
    fn delim(&mut self, b: &[u8], i: usize, n: usize) {
        let c = b.get(i).copied().unwrap_or(b'*');
        let before = class(i.checked_sub(1).and_then(|p| b.get(p)));
        let after = class(b.get(i + n));
        let left = after != Class::Space && (after != Class::Punct || before != Class::Other);
        let right = before != Class::Space && (before != Class::Punct || after != Class::Other);
        let (open, close) = if c == b'_' || (c == b'~' && n == 1) {
            (
                left && (!right || before == Class::Punct),
                right && (!left || after == Class::Punct),
            )
        } else {
            (left, right)
        };
        let tok = self.toks.len();
        self.toks.push(Tok::Delim {
            at: i,
            len: n,
            opens: NONE,
            closes: NONE,
        });
        if open || close {
            self.delims.push(Delim::new(tok, c, n, open, close));
        }
    }

    fn bracket(&mut self, at: usize, image: bool) {
        self.brackets.push(Bracket {
            tok: self.toks.len(),
            image,
            bottom: self.delims.len(),
        });
        self.toks.push(Tok::Bracket { at, image });
    }

    /// A `]` at `i`: with the innermost open bracket and a `(destination)` after it, a link
    /// or image; otherwise text. Returns where reading goes on after a link.
    fn close_bracket(&mut self, s: &str, start: usize, i: usize) -> Option<usize> {
        let index = self.brackets.len().checked_sub(1)?;
        let bracket = self.brackets.pop()?;
        let inactive = !bracket.image && index < self.active_from;
        self.active_from = self.active_from.min(index);
        if inactive {
            return None;
        }
        let end = if s.as_bytes().get(i + 1) == Some(&b'(') {
            scan::link_tail(s, i + 1, &mut self.memo)?
        } else {
            return None;
        };
        self.text(start, i);
        let image = bracket.image;
        if let Some(tok) = self.toks.get_mut(bracket.tok) {
            *tok = Tok::LinkStart { image };
        }
        self.process_emphasis(bracket.bottom);
        self.toks.push(Tok::LinkEnd { image });
        if !image {
            // No links in links: the brackets open around this one can only be text now.
            self.active_from = self.brackets.len();
        }
        Some(end)
    }

    fn emit(&mut self, s: &str, sink: &mut Sink) {
        let slice = |a: usize, b: usize| s.get(a..b).unwrap_or("");
        for &tok in &self.toks {
            if sink.stopped() {
                return;
            }
            match tok {
                Tok::Text(a, b) => sink.emit(Event::Text(slice(a, b))),
                Tok::Str(text) => sink.emit(Event::Text(text)),
                Tok::Char(c) => sink.emit(Event::Text(c.encode_utf8(&mut [0; 4]))),
                Tok::Code(a, b) => sink.emit(Event::Code(slice(a, b))),
                Tok::Html(a, b) => sink.emit(Event::Html(slice(a, b))),
                Tok::Soft => sink.emit(Event::SoftBreak),
                Tok::Hard => sink.emit(Event::HardBreak),
                Tok::Bracket { at, image } => {
                    sink.emit(Event::Text(slice(at, at + 1 + usize::from(image))));
                }
                Tok::LinkStart { image } => {
                    sink.emit(Event::Start(if image { Tag::Image } else { Tag::Link }))
                }
                Tok::LinkEnd { image } => {
                    sink.emit(Event::End(if image { TagEnd::Image } else { TagEnd::Link }))
                }
                Tok::Delim {
                    at,
                    len,
                    opens,
                    closes,
                } => {
                    // Used as a closer from its start, as an opener from its end.
                    self.closes.clear();
                    let mut m = closes;
                    while let Some(mark) = self.marks.get(m) {
                        self.closes.push(mark.kind);
                        m = mark.next;
                    }
                    for &kind in self.closes.iter().rev() {
                        sink.emit(Event::End(kind));
                    }
                    if len > 0 {
                        sink.emit(Event::Text(slice(at, at + len)));
                    }
                    let mut m = opens;
                    while let Some(mark) = self.marks.get(m) {
                        sink.emit(Event::Start(match mark.kind {
                            TagEnd::Strong => Tag::Strong,
                            TagEnd::Strikethrough => Tag::Strikethrough,
                            _ => Tag::Emphasis,
                        }));
                        m = mark.next;
                    }
                }
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Space,
    Punct,
    Other,
}

/// What a character next to a delimiter run is; the start and end of the text are spaces.
fn class(c: Option<&u8>) -> Class {
    match c {
        None | Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0c) => Class::Space,
        Some(c) if c.is_ascii_punctuation() => Class::Punct,
        Some(_) => Class::Other,
    }
}

/// The length of the run of the byte at `i`.
fn run(b: &[u8], i: usize) -> usize {
    let c = b.get(i).copied();
    b.get(i..)
        .map_or(0, |rest| rest.iter().take_while(|&&x| Some(x) == c).count())
}

/// How many of `b`'s last bytes are in `set`.
fn trailing(b: &[u8], set: &[u8]) -> usize {
    b.iter().rev().take_while(|c| set.contains(c)).count()
}

/// Past the spaces and tabs that begin a line at `i`.
fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    i
}
