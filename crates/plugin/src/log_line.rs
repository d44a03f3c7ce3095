//! Lines for Zellij's log. Zellij takes at most 16 KiB of a plugin's stderr line and fails the
//! write beyond that, which `eprintln!` turns into a panic: every line the plugin logs is made
//! here, cut short well below that, and written without panicking.

use std::fmt::{self, Write as _};

/// The most bytes of one line, before its `…` and newline.
pub const MAX_BYTES: usize = 2000;

/// `args` as one log line: at most `MAX_BYTES` (cut on a character boundary, `…` said so),
/// then a newline. Formatting stops at the cut, so a long value costs no more than that.
pub fn line(args: fmt::Arguments) -> String {
    let mut line = Bounded {
        text: String::new(),
        cut: false,
    };
    let _ = line.write_fmt(args);
    if line.cut {
        line.text.push('…');
    }
    line.text.push('\n');
    line.text
}

/// Writes `args` to stderr as one line (`line`); a write Zellij refuses is dropped.
pub fn write(args: fmt::Arguments) {
    use std::io::Write as _;
    let _ = std::io::stderr().write_all(line(args).as_bytes());
}

struct Bounded {
    text: String,
    cut: bool,
}

impl fmt::Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = MAX_BYTES.saturating_sub(self.text.len());
        if s.len() <= room {
            self.text.push_str(s);
            return Ok(());
        }
        let mut end = room;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&s[..end]);
        self.cut = true;
        // Stops the formatting: nothing more would be kept.
        Err(fmt::Error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_line_is_kept_whole_with_its_newline() {
        assert_eq!(line(format_args!("a {} b", 1)), "a 1 b\n");
    }

    #[test]
    fn a_long_line_is_cut_on_a_character_boundary_and_says_so() {
        let long = "é".repeat(300_000);
        let text = line(format_args!("x{long:?}"));
        assert!(text.len() <= MAX_BYTES + "…\n".len(), "{}", text.len());
        assert!(text.ends_with("…\n"));
        assert!(text.starts_with("x\"éé"));
        assert_eq!(text.matches('\n').count(), 1);
    }
}
