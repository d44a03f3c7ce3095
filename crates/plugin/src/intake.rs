//! Reassembles a payload that `zellij pipe` delivers in pieces.
//!
//! A payload on the CLI's stdin arrives one line per message, all with the same pipe id. A
//! small lexical scan (strings, escapes, bracket depth) tells, in time proportional to the
//! input, when the pieces form one complete JSON value, so a pretty-printed payload of
//! thousands of lines is parsed once, not once per line.

use ask_popup_protocol::request::MAX_PAYLOAD_BYTES;

/// What the pieces received so far amount to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assembly {
    /// More lines are needed.
    Incomplete,
    /// A complete value: parse it now.
    Complete,
    /// Cannot become a valid questionnaire (not an object, unbalanced, or too large): parse
    /// now to say why, without waiting for more.
    Broken,
}

/// The pieces of one pipe's payload.
#[derive(Clone, Debug, Default)]
pub struct Intake {
    text: String,
    /// Bytes received, including any not kept.
    size: usize,
    depth: usize,
    in_string: bool,
    escaped: bool,
    started: bool,
    broken: bool,
}

impl Intake {
    pub fn new() -> Self {
        Intake::default()
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Bytes received so far.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether more arrived than a questionnaire may be.
    pub fn too_large(&self) -> bool {
        self.size > MAX_PAYLOAD_BYTES
    }

    /// Whether nothing but whitespace has arrived.
    pub fn is_blank(&self) -> bool {
        !self.started
    }

    /// Adds one piece.
    pub fn feed(&mut self, piece: &str) -> Assembly {
        if !self.counted(piece.len()) {
            return Assembly::Broken;
        }
        self.push(piece);
        self.scan(piece)
    }

    /// Adds one piece it takes: the first is kept as it came, not copied (a questionnaire of
    /// 1 MiB on one line is held once while it is parsed, not twice: Zellij gives the plugin
    /// 16 MiB).
    pub fn feed_owned(&mut self, piece: String) -> Assembly {
        if !self.counted(piece.len()) {
            return Assembly::Broken;
        }
        let assembly = self.scan(&piece);
        if self.text.is_empty() {
            self.text = piece;
        } else {
            self.push(&piece);
        }
        assembly
    }

    /// Counts `len` more bytes; whether they are within the limit (beyond it, nothing more
    /// is held).
    fn counted(&mut self, len: usize) -> bool {
        self.size = self.size.saturating_add(len);
        if self.size > MAX_PAYLOAD_BYTES {
            self.text = String::new();
            return false;
        }
        true
    }

    fn push(&mut self, piece: &str) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            // A piece without its line break; JSON does not mind one.
            self.text.push('\n');
        }
        self.text.push_str(piece);
    }

    /// Follows the piece's strings and brackets: what the pieces so far amount to.
    fn scan(&mut self, piece: &str) -> Assembly {
        // Bytes, not chars: a payload is mostly string contents, where only `\\` and `"`
        // matter, and no byte of a multi-byte character is either.
        let bytes = piece.as_bytes();
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            if self.broken {
                break;
            }
            i += 1;
            if self.in_string {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            let c = if b.is_ascii() {
                char::from(b)
            } else {
                // Outside a string (not JSON, but it may be whitespace): the whole character.
                let c = piece
                    .get(i - 1..)
                    .and_then(|rest| rest.chars().next())
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                i += c.len_utf8() - 1;
                c
            };
            match c {
                c if c.is_whitespace() => {}
                _ if !self.started => {
                    self.started = true;
                    if c == '{' {
                        self.depth = 1;
                    } else {
                        self.broken = true;
                    }
                }
                _ if self.depth == 0 => self.broken = true, // something after the value
                '"' => self.in_string = true,
                '{' | '[' => self.depth += 1,
                '}' | ']' => self.depth -= 1,
                _ => {}
            }
        }
        if self.broken {
            Assembly::Broken
        } else if self.started && self.depth == 0 {
            Assembly::Complete
        } else {
            Assembly::Incomplete
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_beyond_ascii_count_inside_and_outside_strings() {
        // An ideographic space is whitespace; `設計` in a string is text, its quote escaped.
        let mut i = Intake::new();
        assert_eq!(
            i.feed("\u{3000}{\"q\": \"設計 \\\"}\","),
            Assembly::Incomplete
        );
        assert_eq!(i.feed("\"r\": [\"é\"]}\u{3000}"), Assembly::Complete);
        let mut i = Intake::new();
        assert_eq!(i.feed("{} é"), Assembly::Broken);
        let mut i = Intake::new();
        assert_eq!(i.feed("é{}"), Assembly::Broken);
    }

    #[test]
    fn one_line_object_is_complete() {
        let mut i = Intake::new();
        assert_eq!(
            i.feed(r#"{"questions":[{"question":"a}]\"{"}]}"#),
            Assembly::Complete
        );
    }

    #[test]
    fn pretty_printed_lines_complete_on_the_last_line() {
        let mut i = Intake::new();
        assert_eq!(i.feed("{"), Assembly::Incomplete);
        assert_eq!(i.feed("  \"questions\": ["), Assembly::Incomplete);
        assert_eq!(i.feed("    {\"question\": \"}\"}"), Assembly::Incomplete);
        assert_eq!(i.feed("  ]"), Assembly::Incomplete);
        assert_eq!(i.feed("}"), Assembly::Complete);
        assert_eq!(
            i.text(),
            "{\n  \"questions\": [\n    {\"question\": \"}\"}\n  ]\n}"
        );
    }

    #[test]
    fn not_an_object_is_broken_at_once() {
        assert_eq!(Intake::new().feed("nope"), Assembly::Broken);
        assert_eq!(Intake::new().feed("[1, 2"), Assembly::Broken);
        assert_eq!(Intake::new().feed("{} trailing"), Assembly::Broken);
        assert_eq!(Intake::new().feed("{}}"), Assembly::Broken);
    }

    #[test]
    fn blank_lines_before_the_value_wait() {
        let mut i = Intake::new();
        assert_eq!(i.feed("   "), Assembly::Incomplete);
        assert!(i.is_blank());
        assert_eq!(i.feed("{}"), Assembly::Complete);
    }

    #[test]
    fn too_large_is_broken() {
        let mut i = Intake::new();
        assert_eq!(i.feed("{\"a\": \""), Assembly::Incomplete);
        assert_eq!(i.feed(&"x".repeat(MAX_PAYLOAD_BYTES)), Assembly::Broken);
    }
}
