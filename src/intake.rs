//! Reassembles a payload that `zellij pipe` delivers in pieces.
//!
//! A payload on the CLI's stdin arrives one line per message, all with the same pipe id. A
//! small lexical scan (strings, escapes, bracket depth) tells, in time proportional to the
//! input, when the pieces form one complete JSON value, so a pretty-printed payload of
//! thousands of lines is parsed once, not once per line.

use crate::request::MAX_PAYLOAD_BYTES;

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
        self.size = self.size.saturating_add(piece.len());
        if self.size > MAX_PAYLOAD_BYTES {
            // Too large already: keep counting, but hold no more of it.
            self.text = String::new();
            return Assembly::Broken;
        }
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            // A piece without its line break; JSON does not mind one.
            self.text.push('\n');
        }
        self.text.push_str(piece);
        for c in piece.chars() {
            if self.broken {
                break;
            }
            if self.in_string {
                match (self.escaped, c) {
                    (true, _) => self.escaped = false,
                    (false, '\\') => self.escaped = true,
                    (false, '"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
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
