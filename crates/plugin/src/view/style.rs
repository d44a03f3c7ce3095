//! Styled text for frames: what a piece of text is (its role), how it is emphasised, and the
//! edits layout makes to a line (padding, clipping, merging spans). The theme turns roles into
//! colours; nothing here knows about the terminal.

use crate::view::text;

/// What a piece of text is, in the dialog's words. The theme maps each role to a colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Role {
    /// Ordinary text.
    #[default]
    Text,
    /// Secondary text: descriptions, labels of hints.
    Muted,
    /// Least important text: footer hints, scroll markers.
    Dim,
    /// The focused row, borders of the preview box, headings of the dialog.
    Accent,
    /// Answered marks, ticked boxes.
    Success,
    /// Warnings such as unanswered questions or "Esc again to discard".
    Warning,
    /// The active tab: drawn on the selection background.
    Selected,
    /// Inline and block code in previews.
    Code,
    /// Markdown headings in previews.
    Heading,
    /// Link text in previews.
    Link,
    /// Block quotes in previews.
    Quote,
}

/// A role plus emphasis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Style {
    pub role: Role,
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub reverse: bool,
}

impl Style {
    pub const fn new(role: Role) -> Self {
        Style {
            role,
            bold: false,
            italic: false,
            underline: false,
            reverse: false,
        }
    }
    pub const fn bold(mut self) -> Self {
        self.bold = true;
        self
    }
    pub const fn italic(mut self) -> Self {
        self.italic = true;
        self
    }
    pub const fn underline(mut self) -> Self {
        self.underline = true;
        self
    }
    pub const fn reverse(mut self) -> Self {
        self.reverse = true;
        self
    }
}

impl From<Role> for Style {
    fn from(role: Role) -> Self {
        Style::new(role)
    }
}

/// A run of text in one style. The text is already sanitised: no control characters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub text: String,
    pub style: Style,
}

/// One screen line: spans drawn left to right.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    pub spans: Vec<Span>,
}

impl Line {
    pub fn new() -> Self {
        Line { spans: Vec::new() }
    }

    /// A line of one span.
    pub fn styled(text: impl Into<String>, style: impl Into<Style>) -> Self {
        let mut line = Line::new();
        line.push(text, style);
        line
    }

    /// Appends a span (empty text is skipped).
    pub fn push(&mut self, text: impl Into<String>, style: impl Into<Style>) {
        let text = text.into();
        if !text.is_empty() {
            self.spans.push(Span {
                text,
                style: style.into(),
            });
        }
    }

    /// Appends every span of `other`.
    pub fn extend(&mut self, other: Line) {
        self.spans.extend(other.spans);
    }

    /// The width of the line in terminal cells.
    pub fn width(&self) -> usize {
        self.spans.iter().map(|s| text::width(&s.text)).sum()
    }

    /// The text of the line without styles.
    pub fn plain(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }

    /// Appends text, into the last span when it has the same style: fewer spans mean fewer
    /// escape sequences in the frame.
    pub fn push_merged(&mut self, text: &str, style: Style) {
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.text.push_str(text),
            _ => self.push(text, style),
        }
    }

    /// Appends every span of `other`, each merged as by [`Line::push_merged`].
    pub fn extend_merged(&mut self, other: Line) {
        for span in other.spans {
            match self.spans.last_mut() {
                Some(last) if last.style == span.style => last.text.push_str(&span.text),
                _ => self.spans.push(span),
            }
        }
    }

    /// Appends `n` spaces in the default style.
    pub fn push_spaces(&mut self, n: usize) {
        if n > 0 {
            match self.spans.last_mut() {
                Some(last) if last.style == Style::default() => {
                    last.text.extend(std::iter::repeat_n(' ', n));
                }
                _ => self.push(" ".repeat(n), Style::default()),
            }
        }
    }

    /// Drops trailing spaces.
    pub fn trim_end(&mut self) {
        while let Some(last) = self.spans.last_mut() {
            let trimmed = last.text.trim_end_matches(' ').len();
            last.text.truncate(trimmed);
            if !last.text.is_empty() {
                break;
            }
            self.spans.pop();
        }
    }

    /// Cuts the line to at most `max` cells, in place, and says how wide it is then. Text
    /// after the cut is dropped even where a narrower character would still fit, so the
    /// line never skips over part of its text.
    pub fn clip(&mut self, max: usize) -> usize {
        let mut used = 0usize;
        let mut keep = 0usize;
        for span in &mut self.spans {
            let w = text::width(&span.text);
            if used + w <= max {
                used += w;
                keep += 1;
                continue;
            }
            let head = text::truncate(&span.text, max - used);
            used += text::width(head);
            let head_len = head.len();
            span.text.truncate(head_len);
            if !span.text.is_empty() {
                keep += 1;
            }
            break;
        }
        self.spans.truncate(keep);
        used
    }

    /// Pads the line with spaces to exactly `width` cells, cutting it first if it is wider.
    pub fn pad(&mut self, width: usize) {
        let used = self.clip(width);
        self.push_spaces(width - used);
    }
}
