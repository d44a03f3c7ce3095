//! What the command prints for a person, made safe for their terminal. Text that came from an
//! agent (a question, an answer, its name), from a user's file or from an error is cleaned as
//! the popup cleans what it shows (no control characters but the line break, no bidi
//! controls): it cannot set the window's title or colours, write to the clipboard or forge a
//! link. JSON stays exact: serde_json escapes the C0 controls, and the C1 controls (which some
//! terminals obey as they come) and the bidi controls (which would reorder what it shows) are
//! written as escapes too.

use std::borrow::Cow;
use std::io::Write;

/// `println!` for a person: the line cleaned for their terminal (`for_person`).
macro_rules! say {
    ($($arg:tt)*) => { $crate::terminal::say(&format!($($arg)*)) };
}

/// `eprintln!` for a person, cleaned the same way.
macro_rules! say_err {
    ($($arg:tt)*) => { $crate::terminal::say_err(&format!($($arg)*)) };
}

/// `text` for a person's terminal: line breaks kept, every other control character and bidi
/// control taken out, a tab as four spaces.
pub fn for_person(text: &str) -> String {
    ask_popup_protocol::text::sanitize(text)
}

/// `json` (serde_json's output) with every control character but the line break (C0, DEL,
/// C1) and every bidi control written as a JSON escape (`\u001b`, `\u009b`, `\u202e`): the
/// same JSON value (serde_json writes no control character outside a string, nor C0 inside
/// one), safe to print to a terminal.
pub fn json_for_terminal(json: &str) -> Cow<'_, str> {
    let raw =
        |c: char| (c.is_control() && c != '\n') || ask_popup_protocol::text::is_bidi_control(c);
    if !json.chars().any(raw) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if raw(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Prints to stdout; a reader that went away (the agent was stopped) is not an error here.
/// Prints `line` and a line break for a person (see `say!`).
pub fn say(line: &str) {
    print(&format!("{}\n", for_person(line)));
}

/// Writes `line` and a line break to stderr for a person (see `say_err!`).
pub fn say_err(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}", for_person(line));
}

/// Prints `text` as it is: an envelope, JSON (see `json_for_terminal`), or text
/// cleaned already.
pub fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}
