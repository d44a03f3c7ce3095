//! Styled text for frames: what a piece of text is (its role) and how it is emphasised.
//! The theme turns roles into colours; nothing here knows about the terminal.

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
    /// Errors.
    Error,
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
        self.spans
            .iter()
            .map(|s| crate::view::text::width(&s.text))
            .sum()
    }

    /// The text of the line without styles.
    pub fn plain(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }
}
