//! Asking without waiting: `ask-popup ask --no-wait` leaves its question with a process of its
//! own that waits for the answer and keeps it, and `ask-popup answer ID` (and the MCP server's
//! `get_user_answer`) fetches it later.
//!
//! What is kept lives in the XDG state folder (`$XDG_STATE_HOME/ask-popup/answers`, private):
//! while the question waits, `ID.waiting` holds the waiting process's pid; once it ended,
//! `ID.json` holds the envelope. A request the folder does not know may still be in the record
//! of questionnaires (`ask_popup_protocol::history`), which outlives the session.

use ask_popup_protocol::envelope::Envelope;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The exit status of `ask-popup answer` while the question still waits.
pub const EXIT_WAITING: i32 = 6;
/// Kept answers older than this are deleted when the next question is left to wait.
pub const KEEP_MS: u64 = 7 * 24 * 3600 * 1000;

/// The folder of kept answers.
pub fn answers_dir(xdg_state_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    super::xdg::path_of(xdg_state_home, home, ".local/state", "ask-popup/answers")
}

/// A request id as a file name: letters, digits, `-`, `_` and `.` kept, anything else written
/// as `%XX` (a `/` cannot lead out of the folder, nor two ids share a file).
pub fn file_stem(id: &str) -> String {
    let mut stem = String::new();
    for byte in id.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' => stem.push(char::from(byte)),
            b'.' if !stem.is_empty() => stem.push('.'),
            _ => stem.push_str(&format!("%{byte:02X}")),
        }
    }
    stem
}

/// Where the envelope of request `id` is kept once it ended.
pub fn answer_file(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{}.json", file_stem(id)))
}

/// Where the pid of the process that waits for request `id` is kept while it waits.
pub fn waiting_file(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{}.waiting", file_stem(id)))
}

/// What `ask-popup --no-wait` prints: the id to fetch the answer with.
pub fn asked_line(id: &str) -> String {
    format!("{}\n", serde_json::json!({ "requestId": id }))
}

/// What `ask-popup answer` prints while the question waits.
pub fn waiting_line(id: &str) -> String {
    format!(
        "{}\n",
        serde_json::json!({ "requestId": id, "waiting": true })
    )
}

/// Where request `id` stands, from what is kept of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// It ended: the envelope its caller got (one line, its newline included).
    Ended(String),
    /// It still waits for the user.
    Waiting,
    /// Nothing is known of it: never asked, or its waiting process died before an answer.
    Unknown,
}

/// Where a request stands, looked up in this order: `waiting`, whether its waiting process
/// still runs; `kept`, the text of its answer file; `recorded`, its reply in the record of
/// questionnaires (looked up only when neither tells).
///
/// The order matters: the waiting process writes the answer file before it removes its mark,
/// so a look that found it running and then reads the file, or found it gone, finds the
/// answer. Read the other way round, a request that ends between the two looks would be
/// neither waiting nor answered.
pub fn standing(
    waiting: impl FnOnce() -> bool,
    kept: impl FnOnce() -> Option<String>,
    recorded: impl FnOnce() -> Option<String>,
) -> Standing {
    let envelope = |text: &str| Envelope::read(text).map(|_| format!("{}\n", text.trim_end()));
    let waiting = waiting();
    if let Some(line) = kept().as_deref().and_then(envelope) {
        return Standing::Ended(line);
    }
    if waiting {
        return Standing::Waiting;
    }
    match recorded().as_deref().and_then(envelope) {
        Some(line) => Standing::Ended(line),
        None => Standing::Unknown,
    }
}
