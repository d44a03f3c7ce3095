//! Asking without waiting: `ask-popup ask --no-wait` leaves its question with a process of its
//! own that waits for the answer and keeps it, and `ask-popup answer ID` (and the MCP server's
//! `get_user_answer`) fetches it later.
//!
//! What is kept lives in the XDG state folder (`$XDG_STATE_HOME/ask-popup/answers`, private):
//! `ID.asked`, the mark of the request last asked under the id (see `Asked`: the pid of the
//! process that waits for it, a token of its own, where it was asked and its questions), and
//! `ID@TOKEN.json`, the envelope of the request of that token once it ended. Asking again under
//! an id replaces the mark, which leaves the earlier request's answer unreachable: a question
//! that waits is never answered with an older question's answer. A request the folder does not
//! know may still be in the record of questionnaires (`ask_popup_protocol::history`), which
//! outlives the session: only an entry of that same request counts (see `recorded_reply`).

use ask_popup_protocol::envelope::Envelope;
use ask_popup_protocol::history::{Entry, RecordedQuestion};
use ask_popup_protocol::request::Questionnaire;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The exit status of `ask-popup answer` while the question still waits.
pub const EXIT_WAITING: i32 = 6;
/// Kept answers and marks older than this are deleted when the next question is left to wait
/// (a mark whose process still waits is kept).
pub const KEEP_MS: u64 = 7 * 24 * 3600 * 1000;

/// The folder of kept answers.
pub fn answers_dir(xdg_state_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    crate::xdg::path_of(xdg_state_home, home, ".local/state", "ask-popup/answers")
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

/// Where the mark of the request last asked under `id` is kept (see `Asked`).
pub fn mark_file(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{}.asked", file_stem(id)))
}

/// Where the envelope of the request asked under `id` with `token` is kept once it ended. (`@`
/// is in no file stem: the files of two ids never meet.)
pub fn answer_file(dir: &Path, id: &str, token: &str) -> PathBuf {
    dir.join(format!("{}@{}.json", file_stem(id), file_stem(token)))
}

/// The request last asked under an id with `--no-wait`, as its mark keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asked {
    /// The process that waits for its answer.
    pub pid: u32,
    /// Its own among the requests of its id: its answer is kept under it.
    pub token: String,
    /// Where it was asked: the session and the pane, as the record names them.
    #[serde(default)]
    pub session: Option<String>,
    #[serde(default)]
    pub pane: Option<u32>,
    /// Its questions, as the record holds them (`RecordedQuestion::all_of`).
    pub questions: Value,
}

impl Asked {
    /// The mark of the request asking `questionnaire`, waited for by process `pid`, asked from
    /// `session` and pane `pane` (`$ZELLIJ_PANE_ID`).
    pub fn new(
        pid: u32,
        token: String,
        session: Option<&str>,
        pane: Option<&str>,
        questionnaire: &Questionnaire,
    ) -> Asked {
        Asked {
            pid,
            token,
            session: session.filter(|s| !s.is_empty()).map(str::to_owned),
            pane: pane.and_then(pane_number),
            questions: serde_json::to_value(RecordedQuestion::all_of(questionnaire))
                .unwrap_or_default(),
        }
    }

    /// The mark as its file holds it.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The mark in a file's `text`; None for anything else.
    pub fn read(text: &str) -> Option<Asked> {
        serde_json::from_str(text).ok()
    }

    /// Whether the record's `entry` (of its id) is of this request: asked from the same pane of
    /// the same session, with the same questions.
    fn recorded_in(&self, entry: &Entry) -> bool {
        entry.pane_id == self.pane
            && self
                .session
                .as_ref()
                .is_none_or(|s| entry.session.as_ref() == Some(s))
            && serde_json::to_value(&entry.questions).is_ok_and(|q| q == self.questions)
    }
}

/// A pane id as Zellij gives it (`3`, `terminal_3`), as the record holds it.
pub fn pane_number(pane: &str) -> Option<u32> {
    let pane = pane.trim();
    pane.strip_prefix("terminal_").unwrap_or(pane).parse().ok()
}

/// Where `ask-popup answer` runs: its session and pane.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Here {
    pub session: Option<String>,
    pub pane: Option<u32>,
}

impl Here {
    /// From `$ZELLIJ_SESSION_NAME` and `$ZELLIJ_PANE_ID`.
    pub fn new(session: Option<&str>, pane: Option<&str>) -> Here {
        Here {
            session: session.filter(|s| !s.is_empty()).map(str::to_owned),
            pane: pane.and_then(pane_number),
        }
    }
}

/// The reply the record holds for request `id`, when it holds one of that same request: the
/// request `asked` marks, when one was asked under the id with `--no-wait` here (its pane, its
/// session, its questions); otherwise one asked from where this command runs (`here`: the same
/// session, and the same pane or, run without one, none; an agent fetches its answer where it
/// asked), never from outside a session. The latest such. Another pane's request of the same
/// id, or an earlier request of this id with other questions, is none.
pub fn recorded_reply(
    entries: Vec<Entry>,
    id: &str,
    asked: Option<&Asked>,
    here: &Here,
) -> Option<String> {
    let same_request = |entry: &Entry| match asked {
        Some(asked) => asked.recorded_in(entry),
        None => {
            here.session.is_some() && entry.session == here.session && entry.pane_id == here.pane
        }
    };
    entries
        .into_iter()
        .filter(|e| e.request_id.as_deref() == Some(id) && same_request(e))
        .max_by_key(|e| e.asked_ms)
        .map(|e| e.reply)
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

/// Where a request stands, from `asked`, the mark of the request last asked under its id (read
/// first, once), then in this order: `waiting`, whether its waiting process still runs; `kept`,
/// the text of its answer (the one kept under its token); `recorded`, its reply in the record
/// of questionnaires (looked up only when neither tells; see `recorded_reply`).
///
/// The order matters: the waiting process keeps the answer under its token before it ends, so
/// a look that found it running and then reads the answer, or found it gone, finds the answer.
/// Read the other way round, a request that ends between the two looks would be neither
/// waiting nor answered. An answer kept for another token (an earlier request of the same id)
/// is never read.
pub fn standing(
    asked: Option<&Asked>,
    waiting: impl FnOnce(&Asked) -> bool,
    kept: impl FnOnce(&Asked) -> Option<String>,
    recorded: impl FnOnce() -> Option<String>,
) -> Standing {
    let envelope = |text: &str| Envelope::read(text).map(|_| format!("{}\n", text.trim_end()));
    if let Some(asked) = asked {
        let waiting = waiting(asked);
        if let Some(line) = kept(asked).as_deref().and_then(envelope) {
            return Standing::Ended(line);
        }
        if waiting {
            return Standing::Waiting;
        }
    }
    match recorded().as_deref().and_then(envelope) {
        Some(line) => Standing::Ended(line),
        None => Standing::Unknown,
    }
}
