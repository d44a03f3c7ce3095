//! Emphasis, strong emphasis and strikethrough: the delimiter runs of a text matched as
//! CommonMark's "process emphasis" does (the delimiter stack, the rule of three, and the
//! bottoms that keep it linear), and GFM's strikethrough (`~` or `~~`) with them.

use super::event::TagEnd;
use super::inline::{Inline, Tok};

/// No index: the end of a list.
pub(super) const NONE: usize = usize::MAX;

/// A delimiter run that can open or close, on the stack.
#[derive(Clone, Copy)]
pub(super) struct Delim {
    /// Its token, which holds how many of it are left.
    tok: usize,
    ch: u8,
    /// Its length as written (for the rule of three).
    len: usize,
    open: bool,
    close: bool,
    /// The runs before and after it still on the stack, while emphasis is processed.
    prev: usize,
    next: usize,
}

impl Delim {
    pub(super) fn new(tok: usize, ch: u8, len: usize, open: bool, close: bool) -> Self {
        Delim {
            tok,
            ch,
            len,
            open,
            close,
            prev: NONE,
            next: NONE,
        }
    }
}

/// A span that a delimiter run opens or closes (`kind` is its end tag), in a list of the
/// run's.
#[derive(Clone, Copy)]
pub(super) struct Mark {
    pub(super) kind: TagEnd,
    pub(super) next: usize,
}

impl Inline {
    /// Matches the closers among the delimiter runs from `bottom` on with the openers before
    /// them, then takes those runs off the stack. Runs below `bottom` are untouched (they are
    /// outside the link whose text this is).
    pub(super) fn process_emphasis(&mut self, bottom: usize) {
        let count = self.delims.len();
        for (i, delim) in self.delims.iter_mut().enumerate().skip(bottom) {
            delim.prev = if i > bottom { i - 1 } else { NONE };
            delim.next = if i + 1 < count { i + 1 } else { NONE };
        }
        // Per kind of closer, the lowest run worth looking at for an opener: those below
        // were tried and failed.
        let mut lowest = [bottom; 18];
        let mut current = if bottom < count { bottom } else { NONE };
        while let Some(&closer) = self.delims.get(current) {
            if !closer.close {
                current = closer.next;
                continue;
            }
            let kind = match closer.ch {
                b'*' => 0,
                b'_' => 6,
                _ => 12,
            } + usize::from(closer.open) * 3
                + closer.len % 3;
            let floor = lowest.get(kind).copied().unwrap_or(bottom);
            let mut at = closer.prev;
            let opener = loop {
                let Some(&candidate) = self.delims.get(at).filter(|_| at >= floor) else {
                    break NONE;
                };
                let sum = candidate.len + closer.len;
                // The rule of three: a run that can both open and close does not pair with one
                // whose length makes a multiple of three with it, unless both are.
                let three = closer.ch != b'~'
                    && (candidate.close || closer.open)
                    && sum % 3 == 0
                    && !(candidate.len % 3 == 0 && closer.len % 3 == 0);
                // Strikethrough pairs `~` with `~` and `~~` with `~~`.
                let tildes = closer.ch != b'~' || candidate.len == closer.len;
                if candidate.ch == closer.ch && candidate.open && !three && tildes {
                    break at;
                }
                at = candidate.prev;
            };
            if opener == NONE {
                if let Some(low) = lowest.get_mut(kind) {
                    *low = current;
                }
                let next = closer.next;
                if !closer.open {
                    self.unlink(current);
                }
                current = next;
                continue;
            }
            let opener_left = self.left(opener);
            let closer_left = self.left(current);
            let (kind, used) = if closer.ch == b'~' {
                (TagEnd::Strikethrough, closer.len)
            } else if opener_left >= 2 && closer_left >= 2 {
                (TagEnd::Strong, 2)
            } else {
                (TagEnd::Emphasis, 1)
            };
            self.take(opener, used, kind, true);
            self.take(current, used, kind, false);
            // The runs between them can no longer pair with anything.
            if let Some(d) = self.delims.get_mut(opener) {
                d.next = current;
            }
            if let Some(d) = self.delims.get_mut(current) {
                d.prev = opener;
            }
            if opener_left <= used {
                self.unlink(opener);
            }
            if closer_left <= used {
                let next = self.delims.get(current).map_or(NONE, |d| d.next);
                self.unlink(current);
                current = next;
            }
        }
        self.delims.truncate(bottom);
    }

    /// How many of the run `d` are left.
    fn left(&self, d: usize) -> usize {
        match self.delims.get(d).and_then(|d| self.toks.get(d.tok)) {
            Some(&Tok::Delim { len, .. }) => len,
            _ => 0,
        }
    }

    /// Uses `used` of the run `d` to open (or close) a span of `kind`.
    fn take(&mut self, d: usize, used: usize, kind: TagEnd, open: bool) {
        let Some(&Delim { tok, .. }) = self.delims.get(d) else {
            return;
        };
        let Some(Tok::Delim {
            len, opens, closes, ..
        }) = self.toks.get_mut(tok)
        else {
            return;
        };
        *len = len.saturating_sub(used);
        let list = if open { opens } else { closes };
        self.marks.push(Mark { kind, next: *list });
        *list = self.marks.len() - 1;
    }

    fn unlink(&mut self, d: usize) {
        let Some(&Delim { prev, next, .. }) = self.delims.get(d) else {
            return;
        };
        if let Some(p) = self.delims.get_mut(prev) {
            p.next = next;
        }
        if let Some(n) = self.delims.get_mut(next) {
            n.prev = prev;
        }
    }
}
